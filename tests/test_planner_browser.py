"""The memory planner of Lesson 2.9 in headless Chromium, against the Python model it ports.

The port's functions are run on a grid of whole-step inputs and must give what
``snippets/memory_model.py`` gives; every number the form shows is read back from the page and
compared with the Python to the precision it is displayed with; the committed results files are
fed to the port and must give the tables' predicted columns exactly.
"""

from __future__ import annotations

import itertools
import json
import math
import re

import memory_model
import pytest
from conftest import axe_violations
from mkdocs_course.benchmarks.formatting import fmt_bytes
from mkdocs_course.buildkit.buildinfo import ROOT

pytestmark = pytest.mark.browser

LESSON = "lessons/02-part-3-measuring-and-choosing.html"  # Lesson 2's quiz and planner
RESULTS = sorted(p for p in (ROOT / "docs" / "benchmarks").glob("*.json") if "traced" not in p.name)
UNITS = {"B": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12, "PB": 1e15}
BYTES = re.compile(r"([\d,]+(?:\.(\d+))?) (B|kB|MB|GB|TB|PB)\b")
SIZES = ("layers", "hidden", "heads", "tokens", "batch", "ranks")
SELECTS = ("block", "attention", "precision", "optimizer")
OPTION_KEYS = ("peak", "total", "fraction", "overhead")

READ_PLANNER = """form => ({
  rows: Array.from(form.querySelectorAll("tbody tr")).map(tr => ({
    setting: tr.dataset.setting,
    recommended: tr.classList.contains("is-recommended"),
    head: tr.querySelector("th").textContent,
    cells: Array.from(tr.querySelectorAll("td")).map(td => td.textContent),
  })),
  tableHidden: form.querySelector("table").hidden,
  status: form.querySelector(".planner-status").textContent,
  sizes: form.querySelector(".planner-sizes").textContent,
  source: form.querySelector(".planner-source").textContent,
  text: form.textContent,
})"""


def grid() -> list[dict]:
    """Inputs across every block, attention path, precision, optimizer, rank count and memory
    regime (everything fits, some settings fit, only more ranks help, nothing helps)."""
    shapes = [(1, 64, 4, 64, 1), (12, 768, 12, 1024, 8), (48, 4096, 32, 4096, 1)]
    shapes += [(96, 8192, 64, 32768, 2)]
    blocks = [("mlp", "explicit"), ("transformer", "explicit"), ("transformer", "fused")]
    configs = []
    for shape, (block, attention), precision, optimizer, ranks, memory in itertools.product(
        shapes, blocks, memory_model.PRECISIONS, memory_model.OPTIMIZERS, (1, 8), (1, 24, 141)
    ):
        layers, hidden, heads, tokens, batch = shape
        configs.append(
            {
                "block": block,
                "attention": attention,
                "layers": layers,
                "hidden": hidden,
                "heads": heads,
                "tokens": tokens,
                "batch": batch,
                "precision": precision,
                "optimizer": optimizer,
                "ranks": ranks,
                "memory": memory,
            }
        )
    return configs


def python_plan(config: dict, measured: list[dict]) -> dict:
    """The Python model's plan, with the course's measured overheads the page carries."""
    args = {k: v for k, v in config.items() if k != "memory"}
    return memory_model.plan_step(
        **args, device_bytes=config["memory"] * 1e9, measured_runs=measured
    )


MEASURED = """() => JSON.parse(document.querySelector("form.planner").dataset.model).measured"""


PORT = """configs => {
  const model = JSON.parse(document.querySelector("form.planner").dataset.model);
  return configs.map(c => window.coursePlanner.planStep(
    Object.assign({}, c, {deviceBytes: c.memory * 1e9}), model));
}"""


def evaluated(shared_site):
    """The lesson loaded once for the tests that only run the page's functions and read it."""
    return shared_site.once("lesson", lambda opener: opener().goto(LESSON))


def test_the_port_gives_the_python_models_plan_over_a_grid(shared_site):
    page = evaluated(shared_site)
    configs = grid()
    assert len(configs) >= 800
    measured = page.evaluate(MEASURED)
    assert measured, "the page carries no measured overheads"
    regimes = set()
    for config, port in zip(configs, page.evaluate(PORT, configs), strict=True):
        expected, where = python_plan(config, measured), json.dumps(config)
        regimes.add((expected["recommended"] is None, expected["ranks_needed"] is None))
        assert port["recommended"] == expected["recommended"], where
        assert port["ranksNeeded"] == expected["ranks_needed"], where
        assert port["a"] == expected["a"], where
        assert port["blockBytes"] == pytest.approx(expected["block_bytes"], rel=1e-12), where
        assert port["state"] == pytest.approx(expected["state"], rel=1e-12), where
        assert [o["setting"] for o in port["options"]] == [
            o["setting"] for o in expected["options"]
        ], where
        for shown, option in zip(port["options"], expected["options"], strict=True):
            assert shown["fits"] == option["fits"], (where, option["setting"])
            assert shown["segments"] == option.get("segments"), where
            assert shown["layersPerGroup"] == option.get("layers_per_group"), where
            assert shown["measured"] == option["measured"], (where, option["setting"])
            for key in OPTION_KEYS:
                expected_value = option[key]
                if expected_value is not None:
                    expected_value = pytest.approx(expected_value, rel=1e-12)
                assert shown[key] == expected_value, (where, option["setting"], key)
    assert regimes == {(False, True), (True, False), (True, True)}  # fits; more ranks; neither


def fill(page, config: dict) -> None:
    """Type ``config`` into the form; the MLP block hides (and ignores) the attention fields."""
    attention = config["block"] == "transformer"
    for name in SELECTS:
        if name != "attention" or attention:
            page.select_option(f"#planner-{name}", config[name])
    for name in SIZES:
        if name != "heads" or attention:
            page.fill(f"#planner-{name}", str(config[name]))
    page.fill("#planner-memory", repr(float(config["memory"])))


def form_values(page) -> dict:
    """What the form holds now, as the Python model takes it."""
    values = page.locator("form.planner").evaluate(
        "form => Object.fromEntries(Array.from(form.querySelectorAll('[name]'))"
        ".map(c => [c.name, c.value]))"
    )
    numbers = {name: int(values[name]) for name in SIZES}
    chosen = {name: values[name] for name in SELECTS}
    return {**numbers, **chosen, "memory": float(values["memory"])}


def read(page) -> dict:
    return page.locator("form.planner").evaluate(READ_PLANNER)


def shown_bytes(text: str) -> list[tuple[float, float]]:
    """(value in bytes, half a unit of the last shown digit) for each byte figure in ``text``."""
    out = []
    for number, decimals, unit in BYTES.findall(text):
        value = float(number.replace(",", ""))
        half = 0.5 * 10 ** -len(decimals) * UNITS[unit]
        out.append((value * UNITS[unit], half))
    return out


def assert_close(shown: tuple[float, float], expected: float, what: str) -> None:
    value, half = shown
    assert abs(value - expected) <= half * (1 + 1e-9), f"{what}: shows {value}, model {expected}"


def test_every_number_shown_is_the_python_models(open_site):
    page = open_site().goto(LESSON)
    configs = grid()[5::67]  # a spread of blocks, precisions, optimizers, ranks and regimes
    assert len(configs) >= 12
    measured = page.evaluate(MEASURED)
    for config in configs:
        fill(page, config)
        shown, expected = read(page), python_plan(config, measured)
        where = json.dumps(config)
        assert not shown["tableHidden"], where
        assert "NaN" not in shown["text"] and "Infinity" not in shown["text"], where
        assert [r["setting"] for r in shown["rows"]] == [o["setting"] for o in expected["options"]]
        for row, option in zip(shown["rows"], expected["options"], strict=True):
            activations, whole, overhead, fits = row["cells"]
            assert_close(shown_bytes(activations)[0], option["peak"], f"{where} activations")
            assert_close(shown_bytes(whole)[0], option["total"], f"{where} whole step")
            if option["overhead"] is None:
                assert overhead == "copies, no recompute", (where, row)
            else:
                percent = float(re.search(r"\+(\d+)%", overhead).group(1))
                assert abs(percent - option["overhead"] * 100) <= 0.5 + 1e-9, (where, row)
                assert overhead.startswith("estimate"), (where, row)
                found = option["measured"]
                if found:  # the course's ratio beside the estimate, naming where it was measured
                    percent = math.floor(found["overhead"] * 100 + 0.5)  # as Math.round
                    said = f"measured +{percent}% on {found['device']}"
                    assert said in overhead and found["run"] in overhead, (where, row)
            assert fits == ("yes" if option["fits"] else "no"), (where, row)
            if option["setting"] == "segments":
                assert f"{option['segments']} segments" in row["head"], (where, row)
            if option["setting"] == "groups":
                g = option["layers_per_group"]
                assert f"{g} layer{'' if g == 1 else 's'} per group" in row["head"], (where, row)
            assert row["recommended"] == (option["setting"] == expected["recommended"]), where
        state = expected["state"]
        figures = shown_bytes(shown["sizes"])
        terms = ["parameter_bytes", "gradient_bytes", "optimizer_bytes"]
        fsdp = ["unsharded_parameter_bytes", "all_gather_bytes", "reduce_scatter_bytes"]
        terms += fsdp * (state["unsharded_parameter_bytes"] > 0) + ["total"]
        for figure, key in zip(figures, terms, strict=False):
            assert_close(figure, state[key], f"{where} {key}")
        assert_close(figures[len(terms)], expected["a"], f"{where} a")
        device = config["memory"] * 1e9
        assert any(abs(v - device) <= half for v, half in shown_bytes(shown["status"])), where
        if expected["recommended"] is None:
            assert shown["status"].startswith("Nothing fits"), where
            needed = expected["ranks_needed"]
            assert (f"over {needed} FSDP ranks" in shown["status"]) == (needed is not None), where
        else:
            assert shown["status"].startswith("Recommended: "), where


def test_nothing_fits_says_what_is_needed_and_what_is_usable_with_the_headroom(
    open_site, artifacts
):
    """The verdict gives the lowest whole step beside the usable memory and the headroom in
    words, so "nothing fits 24 GB" never sits beside a step smaller than 24 GB unexplained."""
    watched = open_site()
    watched.page.set_viewport_size({"width": 390, "height": 844})
    page = watched.goto(LESSON)
    config = {**form_values(page), "memory": 1.0}
    fill(page, config)
    expected = python_plan(config, page.evaluate(MEASURED))
    assert expected["recommended"] is None, "1 GB holds nothing of the default model"
    lowest = min(
        (o for o in expected["options"] if o["overhead"] is not None), key=lambda o: o["peak"]
    )
    kept = round(memory_model.HEADROOM * 100)
    status = read(page)["status"]
    figure = r"[\d,.]+ [kMGTP]?B"
    assert re.match(
        rf"Nothing fits: {figure} needed, {figure} usable of {figure} \({kept}% kept free\)\. ",
        status,
    ), status
    needed, usable, device = shown_bytes(status)[:3]
    assert_close(needed, lowest["total"], "needed")
    assert_close(usable, expected["usable"], "usable")
    assert_close(device, config["memory"] * 1e9, "device")
    page.locator(".planner-status").screenshot(path=artifacts / "phone-planner-nothing-fits.png")


def test_the_planner_predicts_each_results_files_predicted_column(shared_site):
    """Fed a results file's configurations, the port gives the tables' predictions exactly,
    its block sizes included, for the MLP and the transformer runs alike."""
    page = evaluated(shared_site)
    runs = []
    for path in RESULTS:
        data = json.loads(path.read_text(encoding="utf-8"))
        runs += [(path, run) for run in [data, *data.get("runs", [])]]
    assert len(runs) >= 4
    on_cuda = {path: '"type": "cuda"' in path.read_text() for path in RESULTS}
    for path, run in runs:
        config, model = run["config"], run["model"]
        got = page.evaluate(
            """([c, rows, cuda, parameters]) => {
              const m = JSON.parse(document.querySelector("form.planner").dataset.model);
              const size = m.itemsize[c.dtype];
              const compute = c.autocast ? m.itemsize[c.autocast] : null;
              // fused attention with dropout on CPU runs SDPA's math path (Config.block_bytes)
              const fallback = c.attention === "fused" && c.dropout > 0 && !cuda;
              const path = fallback ? "explicit" : c.attention || "explicit";
              const bb = window.coursePlanner.blockBytes(c.block || "mlp", c.batch, c.tokens,
                c.hidden, c.heads || 1, path, size, compute,
                cuda ? 1 : null, cuda && compute ? 4 : null, cuda);
              const a = c.batch * c.tokens * c.hidden * size;
              // the harness's Adam: torch.optim's default, foreach on CUDA
              const optimizer = window.coursePlanner.optimizerUnits("adam", parameters,
                c.hidden, size, a, cuda, m.stepTemporaries);
              const share = c.tokens / (c.tokens + 6 * c.hidden);
              return {bb, rows: rows.map(r => {
                const kept = r.strategy === "selective-attention" ? bb.attention : bb.matmuls;
                return window.coursePlanner.predict(r.strategy, c.layers, a, bb.full / a, kept / a,
                  Object.assign({layersPerGroup: r.layers_per_group, segments: r.segments,
                    optimizer: optimizer},
                    window.coursePlanner.transientUnits(bb, a, m.rngStateBytes))).map(Math.round)
                  .concat([window.coursePlanner.recomputedFraction(r.strategy, c.layers,
                    r.segments, share)]);
              })};
            }""",
            [config, run["rows"], on_cuda[path], run["state"]["predicted"]["parameter_bytes"]],
        )
        assert got["bb"] == model["block_bytes"], (path.name, config)
        for row, (saved, peak, fraction) in zip(run["rows"], got["rows"], strict=True):
            assert (saved, peak) == (row["predicted_saved_bytes"], row["predicted_peak_bytes"])
            recorded = row["recomputed_fraction"]  # None: offload recomputes nothing
            assert fraction == (recorded and pytest.approx(recorded, rel=1e-12)), row
    # the page's MLP tables show exactly those predictions, GPU file first
    tables = page.locator(".benchmark-table table").evaluate_all(
        "tables => tables.map(t => Array.from(t.querySelectorAll('tbody tr'))"
        ".map(tr => tr.querySelectorAll('td')[0].textContent))"
    )
    gpu_first = sorted(RESULTS, key=lambda p: not on_cuda[p])
    for path in RESULTS:
        rows = json.loads(path.read_text(encoding="utf-8"))["rows"]
        assert tables[gpu_first.index(path)] == [fmt_bytes(r["predicted_peak_bytes"]) for r in rows]


BAD = [
    ("layers", "0", "more than 0"),
    ("layers", "-4", "more than 0"),
    ("layers", "2.5", "whole number"),
    ("batch", "eight", "Enter a number"),
    ("tokens", "", "Enter a value"),
    ("hidden", "1e400", "Too large"),
    ("hidden", "99999999999", "Too large"),
    ("heads", "0", "more than 0"),
    ("heads", "15", "Must divide the hidden size"),
    ("ranks", "0", "more than 0"),
    ("ranks", "two", "Enter a number"),
    ("memory", "NaN", "Enter a number"),
    ("memory", "1e12", "Too large"),
    ("memory", "-0.5", "more than 0"),
]


def test_bad_input_gets_a_message_next_to_its_field_and_no_stale_results(open_site):
    """Every bad value in turn, on one page: the field's own message, no results, and all of it
    gone once the field holds a good value again."""
    page = open_site().goto(LESSON)
    for name, value, message in BAD:
        where = f"{name} = {value!r}"
        before = read(page)
        assert before["rows"] and not before["tableHidden"], where
        field = page.locator(f"#planner-{name}")
        original = field.input_value()
        field.fill(value)
        shown = read(page)
        error = page.locator(f"#planner-{name}-error")
        assert message in error.inner_text(), where
        assert field.get_attribute("aria-invalid") == "true", where
        assert f"planner-{name}-error" in field.get_attribute("aria-describedby").split()
        # next to the field: the message is inside the field's own box, under its input
        wrap = page.locator(f".planner-field[data-field='{name}']")
        assert wrap.locator(".planner-error").inner_text() == error.inner_text(), where
        assert shown["tableHidden"] and not shown["rows"], f"{where}: old results still shown"
        assert shown["status"].startswith("No results"), where
        assert "NaN" not in shown["text"].replace(value, "") and "Infinity" not in shown["text"]
        field.fill(original)
        assert error.inner_text() == "", where
        assert field.get_attribute("aria-invalid") is None, where
        assert not read(page)["tableHidden"], where


def test_a_preset_fills_a_public_models_shape_and_names_its_source(open_site):
    page = open_site().goto(LESSON)
    model = json.loads(page.locator("form.planner").get_attribute("data-model"))
    for preset in model["presets"]:
        page.select_option("#planner-preset", preset["key"])
        for name in ("layers", "hidden", "heads", "tokens"):
            assert page.input_value(f"#planner-{name}") == str(preset[name]), preset["key"]
        assert page.input_value("#planner-block") == "transformer"
        shown = read(page)
        assert preset["source"] in shown["source"]
        link = page.locator(".planner-source a")
        assert link.get_attribute("href") == preset["url"]
        assert shown["status"].startswith(("Recommended", "Nothing fits"))
    page.fill("#planner-layers", "13")  # an edit: the shape is the learner's own now
    assert page.input_value("#planner-preset") == ""
    assert read(page)["source"] == ""


def test_inputs_are_remembered_across_visits_and_bad_memory_is_ignored(open_site):
    page = open_site().goto(LESSON)
    page.select_option("#planner-precision", "float16")
    page.fill("#planner-layers", "40")
    page.fill("#planner-ranks", "4")
    page.reload()
    assert page.input_value("#planner-layers") == "40"
    assert page.input_value("#planner-ranks") == "4"
    assert page.input_value("#planner-precision") == "float16"
    assert read(page)["status"].startswith(("Recommended", "Nothing fits"))
    page.evaluate(
        "localStorage.setItem('course-planner:v1', "
        "JSON.stringify({precision: 'float8', layers: 7}))"
    )
    page.reload()  # an unknown choice and a non-text value are dropped, not shown
    assert page.input_value("#planner-precision") == "autocast-bfloat16"
    assert page.input_value("#planner-layers") == "24"
    page.evaluate("localStorage.setItem('course-planner:v1', '[not json')")
    page.reload()
    assert not read(page)["tableHidden"]


def test_planner_works_by_keyboard_with_labels_and_a_live_region(open_site):
    page = open_site().goto(LESSON)
    form = page.locator("form.planner")
    labels = ("Model shape", "Block", "Attention", "Layers", "Hidden size", "Attention heads")
    labels += ("Sequence length", "Batch size per device", "Precision", "Optimizer", "FSDP ranks")
    for label in labels:
        assert page.get_by_label(label, exact=True).count() == 1, label
    assert page.get_by_label("Device memory (GB)").count() == 1
    status = form.locator(".planner-status")
    assert status.get_attribute("aria-live") == "polite"
    assert page.get_by_label("Attention heads").is_visible()
    page.get_by_label("Block", exact=True).focus()
    page.keyboard.press("ArrowDown")  # a focused <select> changes its value with the arrows
    assert page.get_by_label("Attention heads").is_hidden()  # the MLP block has no attention
    assert "attention core" not in form.locator("tbody").inner_text()
    page.keyboard.press("ArrowUp")
    page.keyboard.press("Tab")  # block, then the next shown field: attention
    assert page.evaluate("document.activeElement.id") == "planner-attention"
    page.get_by_label("Attention heads").focus()
    page.keyboard.press("Control+a")
    page.keyboard.type("32")
    assert status.inner_text().startswith(("Recommended", "Nothing fits"))
    assert "attention core" in form.locator("tbody").inner_text()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_planner_passes_axe_with_results_and_with_errors(open_site, scheme):
    page = open_site(color_scheme=scheme).goto(LESSON)
    for layers in ("24", "-1"):  # a recommendation on screen, then an inline error
        page.fill("#planner-layers", layers)
        violations = axe_violations(page, context={"include": [["form.planner"]]})
        bad = [v for v in violations if v["impact"] in ("serious", "critical")]
        assert not bad, [(layers, v["id"], [n["target"] for n in v["nodes"]]) for v in bad]


def test_planner_works_after_materials_instant_navigation(open_site, built_site):
    """Material swaps the page in place; planner.js must set up the new page's form."""
    from test_site_browser import published_url

    page = open_site(origin=published_url(built_site)).goto("index.html")
    page.wait_for_load_state("networkidle")  # Material reads the sitemap before it intercepts
    page.evaluate("window.__sameDocument = true")
    page.locator(f'.md-nav a[href$="{LESSON.rsplit("/", 1)[1]}"]').first.click()
    page.wait_for_url(f"**/{LESSON}")
    page.locator("form.planner tbody tr").first.wait_for(state="visible")
    assert page.evaluate("window.__sameDocument === true"), "the page was fully reloaded"
    page.fill("#planner-layers", "0")
    assert read(page)["tableHidden"]


def test_planner_runs_from_disk(browser, built_site):
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto((built_site / LESSON).as_uri())
        assert read(page)["status"].startswith(("Recommended", "Nothing fits"))
        page.fill("#planner-layers", "48")
        plan = python_plan(form_values(page), page.evaluate(MEASURED))
        assert len(read(page)["rows"]) == len(plan["options"])
        assert not errors, errors
    finally:
        context.close()
