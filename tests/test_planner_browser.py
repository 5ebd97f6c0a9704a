"""The memory planner of Lesson 2.9 in headless Chromium, against the Python model it ports.

Every number the planner shows is read back from the page and compared with
``snippets/memory_model.py`` to the precision it is displayed with; the committed results files
are fed to the planner's own functions and must give the tables' predicted columns exactly.
"""

from __future__ import annotations

import itertools
import json
import re

import memory_model
import pytest
from test_planner import mlp_units

from tools.benchmarks.formatting import fmt_bytes
from tools.build.buildinfo import ROOT

pytestmark = pytest.mark.browser

LESSON = "lessons/02-part-3-measuring-and-choosing.html"  # Lesson 2's quiz and planner
RESULTS = sorted((ROOT / "docs" / "benchmarks").glob("*.json"))
UNITS = {"B": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12, "PB": 1e15}
BYTES = re.compile(r"([\d,]+(?:\.(\d+))?) (B|kB|MB|GB|TB|PB)\b")
FIELDS = ("layers", "batch", "tokens", "hidden", "heads", "c", "budget")

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
  text: form.textContent,
})"""


def grid() -> list[dict]:
    """Configurations across every block, dtype and budget regime (fits all, some, none)."""
    configs = []
    shapes = [(1, 1, 64, 64), (2, 4, 512, 768), (7, 2, 1000, 1536), (24, 8, 2048, 2048)]
    shapes += [(96, 1, 32768, 8192)]
    blocks = [("mlp", None, None), ("transformer", 16, None), ("custom", None, 12.5)]
    for (layers, batch, tokens, hidden), (block, heads, c), dtype in itertools.product(
        shapes, blocks, ("float32", "bfloat16", "float16")
    ):
        a = memory_model.boundary_bytes(batch, tokens, hidden, dtype)
        for share in (1.5, 0.3, 0.002):  # budget as a share of the no-checkpointing peak
            units = expected_units(block, tokens, hidden, heads or 1, dtype, c)
            budget = float(f"{layers * units[0] * a * share / 1e9:.4g}")
            if budget <= 0:
                continue
            configs.append(
                {
                    "layers": layers,
                    "batch": batch,
                    "tokens": tokens,
                    "hidden": hidden,
                    "dtype": dtype,
                    "block": block,
                    "heads": heads,
                    "c": c,
                    "budget": budget,
                }
            )
    return configs[::2]  # every other one: all blocks, dtypes and regimes still appear


def expected_units(block, tokens, hidden, heads, dtype, c):
    if block == "mlp":  # the planner's MLP sizes are the results files' (test_planner checks)
        return mlp_units(json.loads(RESULTS[0].read_text(encoding="utf-8")))
    if block == "transformer":
        return memory_model.transformer_units(tokens, hidden, heads, dtype)
    return c, None


def fill(page, config: dict) -> None:
    page.select_option("#planner-dtype", config["dtype"])
    page.select_option("#planner-block", config["block"])
    for name in FIELDS:
        if config.get(name) is not None:
            page.fill(
                f"#planner-{name}", f"{config[name]:g}" if name != "budget" else repr(config[name])
            )


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


def test_planner_matches_the_python_model_over_a_grid(open_site):
    page = open_site().goto(LESSON)
    configs = grid()
    assert len(configs) >= 60
    for config in configs:
        fill(page, config)
        shown = read(page)
        c, kept = expected_units(
            config["block"], config["tokens"], config["hidden"], config["heads"], config["dtype"],
            config["c"],
        )  # fmt: skip
        a = memory_model.boundary_bytes(
            config["batch"], config["tokens"], config["hidden"], config["dtype"]
        )
        expected = memory_model.plan(config["layers"], a, c, kept, config["budget"] * 1e9)
        where = json.dumps(config)
        assert not shown["tableHidden"], where
        assert "NaN" not in shown["text"] and "Infinity" not in shown["text"], where
        assert [r["setting"] for r in shown["rows"]] == [o["setting"] for o in expected["options"]]
        for row, option in zip(shown["rows"], expected["options"], strict=True):
            peak, overhead, fits = row["cells"]
            assert_close(shown_bytes(peak)[0], option["peak"], f"{where} {option['setting']} peak")
            percent = float(re.search(r"\+(\d+)%", overhead).group(1))
            assert abs(percent - option["overhead"] * 100) <= 0.5 + 1e-9, (where, row)
            assert fits == ("yes" if option["fits"] else "no"), (where, row)
            if option["setting"] == "segments":
                assert f"{option['segments']} segments" in row["head"], (where, row)
            if option["setting"] == "groups":
                g = option["layers_per_group"]
                assert f"{g} layer{'' if g == 1 else 's'} per group" in row["head"], (where, row)
            assert row["recommended"] == (option["setting"] == expected["recommended"]), where
        assert_close(shown_bytes(shown["sizes"])[0], a, f"{where} a")
        c_shown = float(re.search(r"c = ([\d,.]+) a", shown["sizes"]).group(1).replace(",", ""))
        assert abs(c_shown - c) <= 0.0005 + 1e-9, where
        if kept is not None:
            kept_shown = float(re.search(r"keeps ([\d.]+) a per layer", shown["sizes"]).group(1))
            assert abs(kept_shown - kept) <= 0.0005 + 1e-9, where
        figures = shown_bytes(shown["status"])
        assert_close(figures[0], config["budget"] * 1e9, f"{where} budget")
        if expected["recommended"] is None:
            assert shown["status"].startswith("Nothing fits"), where
            lowest = min(o["peak"] for o in expected["options"])
            assert_close(figures[1], lowest, f"{where} lowest peak")
        else:
            assert shown["status"].startswith("Recommended: "), where
            if expected["recommended"] != "none":  # "...; no checkpointing needs X."
                none = expected["options"][0]["peak"]
                assert_close(figures[1], none, f"{where} no-checkpointing peak")


def _table_predicted_cells(page) -> list[str]:
    """The predicted column of each results table on the lesson, in file order (GPU first)."""
    return page.locator(".benchmark-table table").evaluate_all(
        "tables => tables.map(t => Array.from(t.querySelectorAll('tbody tr'))"
        ".map(tr => tr.querySelectorAll('td')[0].textContent))"
    )


@pytest.mark.parametrize("path", RESULTS, ids=lambda p: p.name)
def test_planner_predicts_each_results_files_predicted_column(open_site, path):
    """Fed a results file's configuration, the planner gives the table's predictions exactly."""
    data = json.loads(path.read_text(encoding="utf-8"))
    config = data["config"]
    page = open_site().goto(LESSON)
    predictions = page.evaluate(
        """([config, rows]) => {
          const form = document.querySelector("form.planner");
          const model = JSON.parse(form.dataset.model);
          const a = config.batch * config.tokens * config.hidden * model.itemsize[config.dtype];
          return rows.map(r => window.coursePlanner.predict(r.strategy, config.layers, a,
            model.mlp.c, model.mlp.kept,
            {layersPerGroup: r.layers_per_group, segments: r.segments}).map(Math.round).concat(
            [window.coursePlanner.recomputedFraction(r.strategy, config.layers, r.segments)]));
        }""",
        [config, data["rows"]],
    )
    predicted_column = []
    for row, (saved, peak, fraction) in zip(data["rows"], predictions, strict=True):
        assert (saved, peak) == (row["predicted_saved_bytes"], row["predicted_peak_bytes"]), row
        assert fraction == row["recomputed_fraction"], row
        predicted_column.append(fmt_bytes(peak))  # every table compares measured peaks
    tables = _table_predicted_cells(page)
    gpu_first = sorted(RESULTS, key=lambda p: '"type": "cuda"' not in p.read_text())
    assert tables[gpu_first.index(path)] == predicted_column

    # The same configuration typed into the form: its no-checkpointing and every-layer rows.
    sizes = {k: config[k] for k in ("layers", "batch", "tokens", "hidden", "dtype")}
    fill(page, {**sizes, "block": "mlp", "budget": 1000.0})
    shown = {r["setting"]: r for r in read(page)["rows"]}
    by_key = {(r["strategy"], r["layers_per_group"]): r for r in data["rows"]}
    for setting, key in (("none", ("none", None)), ("every-layer", ("groups", 1))):
        if key in by_key:
            expected = by_key[key]["predicted_peak_bytes"]
            assert_close(shown_bytes(shown[setting]["cells"][0])[0], expected, setting)


BAD = [
    ("layers", "0", "more than 0"),
    ("layers", "-4", "more than 0"),
    ("layers", "2.5", "whole number"),
    ("batch", "eight", "Enter a number"),
    ("tokens", "", "Enter a value"),
    ("hidden", "1e400", "Too large"),
    ("hidden", "99999999999", "Too large"),
    ("budget", "NaN", "Enter a number"),
    ("budget", "1e12", "Too large"),
    ("budget", "-0.5", "more than 0"),
]


@pytest.mark.parametrize(("name", "value", "message"), BAD)
def test_bad_input_gets_an_inline_message_and_no_stale_results(open_site, name, value, message):
    page = open_site().goto(LESSON)
    before = read(page)
    assert before["rows"] and not before["tableHidden"]
    field = page.locator(f"#planner-{name}")
    field.fill(value)
    shown = read(page)
    error = page.locator(f"#planner-{name}-error")
    assert message in error.inner_text()
    assert field.get_attribute("aria-invalid") == "true"
    assert f"planner-{name}-error" in field.get_attribute("aria-describedby").split()
    assert shown["tableHidden"] and not shown["rows"], "results of the old input still shown"
    assert shown["status"].startswith("No results")
    assert "NaN" not in shown["text"].replace(value, "") and "Infinity" not in shown["text"]
    field.fill("3")
    assert error.inner_text() == ""
    assert field.get_attribute("aria-invalid") is None
    assert not read(page)["tableHidden"]


def test_attention_heads_beyond_the_hidden_size_are_refused(open_site):
    page = open_site().goto(LESSON)
    page.select_option("#planner-block", "transformer")
    page.fill("#planner-hidden", "64")
    page.fill("#planner-heads", "65")
    assert "At most the hidden size" in page.locator("#planner-heads-error").inner_text()
    assert read(page)["tableHidden"]


def test_planner_works_by_keyboard_with_labels_and_a_live_region(open_site):
    page = open_site().goto(LESSON)
    form = page.locator("form.planner")
    for label in ("Layers", "Batch size", "Sequence length", "Hidden size", "dtype", "Block"):
        assert page.get_by_label(label, exact=True).count() == 1, label
    assert page.get_by_label("Memory budget (GB)").count() == 1
    status = form.locator(".planner-status")
    assert status.get_attribute("aria-live") == "polite"
    assert page.get_by_label("Attention heads").is_hidden()
    page.get_by_label("Block", exact=True).focus()
    page.keyboard.press("ArrowDown")  # a focused <select> changes its value with the arrows
    heads = page.get_by_label("Attention heads")
    assert heads.is_visible()
    page.keyboard.press("Tab")  # dtype, block, then the next shown field: attention heads
    assert page.evaluate("document.activeElement.id") == "planner-heads"
    page.keyboard.press("Control+a")
    page.keyboard.type("32")
    assert "Transformer" in form.locator("select[name=block] option:checked").inner_text()
    assert status.inner_text().startswith(("Recommended", "Nothing fits"))
    assert "attention core" in form.locator("tbody").inner_text()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_planner_passes_axe_with_results_and_with_errors(open_site, scheme):
    from axe_playwright_python.sync_playwright import Axe

    page = open_site(color_scheme=scheme).goto(LESSON)
    for layers in ("24", "-1"):  # a recommendation on screen, then an inline error
        page.fill("#planner-layers", layers)
        results = Axe().run(page, context={"include": [["form.planner"]]})
        bad = [v for v in results.response["violations"] if v["impact"] in ("serious", "critical")]
        assert not bad, [(layers, v["id"], [n["target"] for n in v["nodes"]]) for v in bad]


def test_planner_works_after_materials_instant_navigation(open_site, built_site):
    """Material swaps the page in place; planner.js must set up the new page's form."""
    from test_site_browser import published_url

    page = open_site(origin=published_url(built_site)).goto("index.html")
    page.wait_for_load_state("networkidle")  # Material reads the sitemap before it intercepts
    page.evaluate("window.__sameDocument = true")
    page.locator('.md-nav a[href$="02-part-3-measuring-and-choosing.html"]').first.click()
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
        assert len(read(page)["rows"]) == 5
        assert not errors, errors
    finally:
        context.close()
