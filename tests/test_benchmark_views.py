"""The whole-step breakdown plot, and the statements about time that the views make.

Every figure the ``plot-breakdown`` view draws comes from the results file, and a row missing a
field is the same ``file:line`` schema error as for any view. A view says that a strategy's step
time differs from another's, or from its one-forward estimate, only where the difference is
larger than the spread of the rounds; otherwise it says the difference is within the spread.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from benchmark_files import committed, course_root, render, write
from conftest import ROOT
from mkdocs_course import benchmarks
from mkdocs_course.benchmarks.chart import Bars
from mkdocs_course.benchmarks.formatting import fmt_bytes

from snippets import memory_model
from snippets.benchmark_views.step import describe_run, run_kind

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return course_root(tmp_path)


def svgs(out: str) -> list[ET.Element]:
    """The figures' SVGs (a bar chart's nested canvas inside its own)."""
    found = re.findall(r"<svg.*?</svg>(?=\s*<figcaption>)", out, re.DOTALL)
    return [ET.fromstring(m) for m in found]


# --- plot-breakdown ---------------------------------------------------------------------------


def test_breakdown_draws_every_run_in_one_accessible_figure_from_the_committed_file(root: Path):
    measured = [p for p in (ROOT / "docs" / "benchmarks").glob("*.json") if "traced" not in p.name]
    assert len(svgs(render(ROOT, "plot-breakdown"))) == len(measured)  # one figure per file
    data = committed()
    write(root, data)
    out = render(root, "plot-breakdown")
    runs = [data, *data["runs"]]
    assert out == render(root, "plot-breakdown")  # deterministic
    (svg,) = svgs(out)
    assert out.count("<figcaption>") == 1
    assert svg.get("role") == "img" and svg.find(f"{SVG}title") is not None
    assert svg.get("width") == "100%"  # fills a 390 px column as it fills a desktop's
    label = svg.get("aria-label", "")
    texts = [" ".join(t.itertext()) for t in svg.iter(f"{SVG}text")]
    for term in ("parameters", "gradients", "optimizer state", "activations"):
        assert term in texts
    for run in runs:
        assert f"{run_kind(run['config'])}, {run['config']['layers']} blocks" in texts  # heading
        assert describe_run(run["config"]) in label
        state = run["state"]
        for key in ("parameter_bytes", "gradient_bytes", "optimizer_bytes"):
            assert f"{key.split('_')[0]}" in label and fmt_bytes(state[key]) in label
        for row in run["rows"]:
            assert fmt_bytes(row["step_peak_bytes"]) in texts
    ok = sum(1 for run in runs for r in run["rows"] if r["status"] == "ok")
    assert len(svg.findall(f"{SVG}rect")) == 4  # the legend's swatches
    assert [len(rects) for rects in _segments(svg)] == [ok] * 4  # each term: a rect per bar
    assert "currentColor" in svg.get("style", "")


def test_a_bar_chart_adds_texts_not_shapes_for_more_bars(root: Path):
    """What the course adds to a page for a bar chart: the texts a reader sees (a name and a
    figure per bar), a path per colour however many bars there are, the legend's swatches and
    the grid; no style sheet of its own (the site's stylesheet styles every chart, once), and
    one drawing for every width."""
    data = committed()
    write(root, data)
    few_out = render(root, "plot-breakdown")
    added = len(data["rows"])
    data["rows"] = data["rows"] * 2  # the first run's bars twice: the same axis, more bars
    write(root, data)
    more_out = render(root, "plot-breakdown")
    (few,) = svgs(few_out)
    (more,) = svgs(more_out)
    assert few_out.count("<svg") == more_out.count("<svg") == 2  # the chart and its bars' canvas
    for svg in (few, more):
        assert svg.find(f".//{SVG}style") is None
        assert {e.tag.removeprefix(SVG) for e in svg.iter()} == {
            "svg", "title", "text", "tspan", "rect", "path", "line"
        }  # fmt: skip

    def count(svg: ET.Element, *tags: str) -> int:
        return sum(len(list(svg.iter(f"{SVG}{tag}"))) for tag in tags)

    assert count(more, "rect", "path", "line") == count(few, "rect", "path", "line")
    assert count(more, "text") == count(few, "text") + 2 * added
    assert count(few, "path") == 4 and count(few, "rect") == 4  # a path, a swatch per term
    assert int(more.get("height")) > int(few.get("height"))  # the canvas grows with its rows


def _segments(svg: ET.Element) -> list[list[tuple[float, float, float]]]:
    """Per colour path, in the legend's order: each bar's segment as (left, top, width)."""
    rect = re.compile(r"M([\d.]+) ([\d.]+)h([\d.]+)v13h-\3z")
    paths = [p.get("d", "") for p in svg.iter(f"{SVG}path")]
    for d in paths:
        assert rect.sub("", d) == "", d  # nothing but rectangles
    return [[tuple(map(float, m)) for m in rect.findall(d)] for d in paths]


def _bar_lengths(svg: ET.Element) -> list[float]:
    """Each bar's length in pixels: its four segments, summed."""
    return [sum(seg[2] for seg in bar) for bar in zip(*_segments(svg), strict=True)]


def test_breakdown_bars_are_the_files_figures(root: Path):
    """Change the file and the plot follows: the state in every bar, the activations per row."""
    data = committed()
    state = data["state"]
    state["optimizer_bytes"] *= 3
    none = data["rows"][0]
    assert none["strategy"] == "none"
    none["peak_bytes"] *= 2
    for row in data["rows"]:
        row["step_peak_bytes"] = (
            state["parameter_bytes"]
            + state["gradient_bytes"]
            + state["optimizer_bytes"]
            + row["peak_bytes"]
        )
    write(root, data)
    (svg,) = svgs(render(root, "plot-breakdown"))
    assert fmt_bytes(state["optimizer_bytes"]) in svg.get("aria-label")
    lengths = _bar_lengths(svg)[: len(data["rows"])]  # the MLP run's bars come first
    # Lengths are proportional to the whole-step peaks, to the 0.1 px the SVG is written at.
    for length, row in zip(lengths, data["rows"], strict=True):
        assert length == pytest.approx(
            lengths[0] * row["step_peak_bytes"] / none["step_peak_bytes"], abs=0.5
        )
    assert lengths[0] == max(_bar_lengths(svg))  # the longest of every run's


def test_breakdown_row_missing_a_field_is_a_schema_error_at_its_line(root: Path):
    data = committed()
    del data["runs"][0]["rows"][2]["peak_bytes"]
    text = write(root, data).read_text("utf-8")
    with pytest.raises(benchmarks.BenchmarkError) as caught:
        render(root, "plot-breakdown")
    # The row's line: where its strategy is written (the row's first field).
    rows_start = text.index('"runs"')
    strategies = [m.start() for m in re.finditer(r'"strategy"', text) if m.start() > rows_start]
    line = text[: strategies[2]].count("\n")  # the row's opening brace is the line above
    assert re.search(
        rf"checkpointing-cpu\.json:{line}: runs\[0\]\.rows\[2\]: 'peak_bytes' is a required",
        str(caught.value),
    )


def test_the_bars_stack_under_their_names_at_full_text_size_at_any_width(root: Path):
    """One drawing for a phone and a desktop: its text in pixels on a canvas with no viewBox (12
    px at any width), each name on its own line above its bar, the legend and headings laid out
    to fit a 340 px column; the bars in a nested canvas that spans a share of the width, so
    every figure after its bar has the room it takes at 340 px."""
    write(root, committed())
    (svg,) = svgs(render(root, "plot-breakdown"))
    assert svg.get("viewBox") is None and svg.get("width") == "100%"
    assert "font:12px" in svg.get("style", "")
    (canvas,) = svg.findall(f"{SVG}svg")
    assert canvas.get("preserveAspectRatio") == "none"
    span = float(canvas.get("width").removesuffix("%"))
    left = float(canvas.get("x"))
    for text in svg.findall(f"{SVG}text"):  # laid out in pixels: fits 340 px
        longest = max(len(line) for line in text.itertext())
        x = text.get("x") or text.find(f"{SVG}tspan").get("x")
        if x.endswith("%"):  # placed on the bars' axis: its share, then pixels on
            at = 340 * float(x.removesuffix("%")) / 100 + float(text.get("dx"))
            width = {"middle": 3.5, None: 7}[text.get("text-anchor")] * longest
        else:
            at, width = float(x), 7 * longest
        assert at + width <= 340 + 1, text.itertext()
    assert left + 340 * span / 100 <= 340 - Bars.RIGHT + 0.5
    # Each name is on its own line above its bar: no text shares a bar's rows.
    tops = [seg[1] for rects in _segments(svg) for seg in rects]
    names = {float(t.get("y")) for t in svg.findall(f"{SVG}text") if t.get("x") == "8"}
    assert all(not (top <= y <= top + 13) for top in tops for y in names)
    css = (ROOT / "tools" / "plugin" / "static" / "course.css").read_text("utf-8")
    assert ".benchmark-svg svg * {\n  vector-effect: non-scaling-stroke;" in css


# --- statements about time --------------------------------------------------------------------


def _timed(data: dict[str, Any], strategy: str, over_estimate: float, spread: float) -> None:
    """Give the first ``strategy`` row a step ``over_estimate`` seconds above its one-forward
    estimate, and it and no checkpointing a spread (IQR) of ``spread`` seconds."""
    none = data["rows"][0]
    row = next(r for r in data["rows"] if r["strategy"] == strategy)
    for r in data["rows"]:
        if r["strategy"] != "none" and r.get("overhead_bound") is not None:
            # every other row well inside its estimate and spread
            r["step_time_s"] = none["step_time_s"] * (1 + r["overhead_bound"])
            r["overhead"] = r["overhead_bound"]
            r["step_time_spread_s"] = spread
    none["step_time_spread_s"] = spread
    row["step_time_s"] = none["step_time_s"] * (1 + row["overhead_bound"]) + over_estimate
    row["overhead"] = row["step_time_s"] / none["step_time_s"] - 1


def _timed_rows(data: dict[str, Any]) -> int:
    """How many rows have a one-forward estimate (no checkpointing and offload have none)."""
    return sum(
        1 for r in data["rows"] if r["strategy"] != "none" and r["overhead_bound"] is not None
    )


def test_an_overhead_above_its_estimate_by_less_than_the_spread_is_not_counted(root: Path):
    data = committed()
    _timed(data, "selective", over_estimate=0.004, spread=0.010)  # 4 ms against ± 5 ms twice
    write(root, data)
    summary = render(root, "summary")
    n = _timed_rows(data)
    assert f"0 of {n} timed rows; 1 more above it by less than the spread" in summary
    table = render(root, "table")
    selective = table[table.index("Selective (save matmuls)") :].split("</tr>")[0]
    assert ", within</small>" in selective and "above" not in selective


def test_an_overhead_above_its_estimate_by_more_than_the_spread_is_counted(root: Path):
    data = committed()
    _timed(data, "selective", over_estimate=0.012, spread=0.010)
    write(root, data)
    assert f"1 of {_timed_rows(data)} timed rows</td>" in render(root, "summary")
    table = render(root, "table")
    selective = table[table.index("Selective (save matmuls)") :].split("</tr>")[0]
    assert ", above</small>" in selective


def test_a_row_below_its_estimate_says_so_only_beyond_the_spread(root: Path):
    data = committed()
    _timed(data, "groups", over_estimate=-0.004, spread=0.010)
    write(root, data)
    table = render(root, "table")
    row = table[table.index("1 layer per group") :].split("</tr>")[0]
    assert ", within</small>" in row and "below" not in row
    _timed(data, "groups", over_estimate=-0.02, spread=0.010)
    write(root, data)
    table = render(root, "table")
    assert ", below</small>" in table[table.index("1 layer per group") :].split("</tr>")[0]


def test_a_row_without_a_spread_is_never_said_to_differ(root: Path):
    data = committed()
    _timed(data, "selective", over_estimate=0.05, spread=0.010)
    data["rows"][0]["step_time_spread_s"] = None  # one round of no checkpointing
    write(root, data)
    assert f"0 of {_timed_rows(data)} timed rows; 1 more above it" in render(root, "summary")


def test_the_rng_stash_difference_is_called_a_difference_only_beyond_the_spread(root: Path):
    data = committed()
    on = [0.100, 0.101, 0.102, 0.103, 0.104]
    data["rng_stash"]["step_times_s"] = on
    data["rng_stash"]["step_times_no_stash_s"] = [t - 0.001 for t in on]  # 1 ms, IQR ~2.5 ms
    write(root, data)
    assert "<strong>within</strong> the spread of the rounds" in render(root, "rng-stash")
    data["rng_stash"]["step_times_no_stash_s"] = [t - 0.010 for t in on]
    write(root, data)
    out = render(root, "rng-stash")
    assert "larger than the spread of the rounds" in out and "<strong>within" not in out


def test_selective_against_every_layer_is_slower_only_beyond_the_spread(root: Path):
    data = committed()
    selective = next(r for r in data["rows"] if r["strategy"] == "selective")
    full = next(r for r in data["rows"] if r["layers_per_group"] == 1)
    selective["step_time_s"] = full["step_time_s"] + 0.003
    selective["step_time_spread_s"] = full["step_time_spread_s"] = 0.004  # ± 2 ms each
    write(root, data)
    assert "within the spread of the rounds (3 ms apart)" in render(root, "summary")
    selective["step_time_s"] = full["step_time_s"] + 0.005
    write(root, data)
    assert "5 ms slower</td>" in render(root, "summary")


def test_a_row_that_ran_out_of_memory_is_named_not_drawn(root: Path):
    data = committed()
    row = data["runs"][0]["rows"][1]
    measured = ("saved_bytes", "peak_bytes", "step_peak_bytes", "grads_equal", "grad_max_rel_diff")
    row |= {"status": "oom", "error": "out of memory"} | dict.fromkeys(measured)
    write(root, data)
    out = render(ROOT, "plot-breakdown")
    (svg,) = svgs(render(root, "plot-breakdown"))
    bars = [len(rects) for rects in _segments(svg)]
    assert bars == [len(rects) - 1 for rects in _segments(svgs(out)[0])]  # one bar fewer
    assert "OOM: ran out of memory" in [t.text for t in svg.iter(f"{SVG}text")]


# --- fsdp ---------------------------------------------------------------------------------------


def _process(scale: float, peak: int) -> dict[str, int]:
    state = {"parameter_bytes": 400_000, "gradient_bytes": 400_000, "optimizer_bytes": 800_000}
    state = {k: round(v * scale) for k, v in state.items()}
    return {**state, "saved_bytes": 131_072, "peak_bytes": peak,
            "step_peak_bytes": sum(state.values()) + peak}  # fmt: skip


def with_fsdp(extra: int) -> dict[str, Any]:
    """The committed file with an FSDP section: two ranks at half the state, ``extra`` bytes
    above the unsharded run's peak."""
    data = committed()
    data["fsdp"] = {
        "layers": 4, "hidden": 64, "heads": 16, "tokens": 128, "batch": 1,
        "attention": "explicit", "autocast": "bfloat16", "layers_per_group": 1, "world": 2,
        "block_parameter_bytes": 199_936,
        "reference": _process(1, 2_700_000),
        "ranks": [_process(0.5, 2_700_000 + extra), _process(0.5, 2_700_000 + extra)],
    }  # fmt: skip
    return data


def test_fsdp_view_shows_each_rank_beside_the_unsharded_run_from_the_file(root: Path):
    data = with_fsdp(extra=999_680)
    write(root, data)
    out = render(root, "fsdp")
    fsdp = data["fsdp"]
    assert "rank 0 of 2" in out and "rank 1 of 2" in out and "No FSDP" in out
    for key in ("parameter_bytes", "gradient_bytes", "optimizer_bytes"):
        assert fmt_bytes(fsdp["reference"][key]) in out
        assert f"{fmt_bytes(fsdp['ranks'][0][key])} (50%)" in out
    assert "Each rank holds 50% of the unsharded parameters" in out
    assert "exactly the same bytes saved for backward" in out
    # the ranks' extra peak against the model's term for the harness's layout (blocks as roots)
    counted = memory_model.fsdp_bytes("transformer", 64, 4, 4, 2, layout="blocks")
    assert f"{fmt_bytes(999_680)} higher than the unsharded run" in out
    assert f"{999_680 / 199_936:.1f} times one block" in out
    assert f"{fmt_bytes(counted['total'])} in all, {999_680 / counted['total']:.0%}" in out
    rooted = memory_model.fsdp_bytes("transformer", 64, 4, 4, 2)["total"]
    assert f"{fmt_bytes(rooted)} here" in out


def test_fsdp_view_says_how_much_of_the_measurement_the_model_counts(root: Path):
    write(root, with_fsdp(extra=500_000))
    out = render(root, "fsdp")
    counted = memory_model.fsdp_bytes("transformer", 64, 4, 4, 2, layout="blocks")["total"]
    assert f"{500_000 / counted:.0%} of what this run measured" in out


def test_fsdp_view_without_a_measurement_says_so(root: Path):
    data = committed()
    data.pop("fsdp", None)
    write(root, data)
    assert "not measured (FSDP needs two ranks)" in render(root, "fsdp")


def test_fsdp_rank_missing_a_field_is_a_schema_error_at_its_line(root: Path):
    data = with_fsdp(extra=0)
    del data["fsdp"]["ranks"][1]["peak_bytes"]
    text = write(root, data).read_text("utf-8")
    with pytest.raises(benchmarks.BenchmarkError) as caught:
        render(root, "fsdp")
    ranks = text.index('"ranks"')
    second = [m.start() for m in re.finditer(r'"parameter_bytes"', text) if m.start() > ranks][1]
    line = text[:second].count("\n")  # the rank's opening brace is the line above its first key
    assert re.search(
        rf"checkpointing-cpu\.json:{line}: fsdp\.ranks\[1\]: 'peak_bytes' is a required",
        str(caught.value),
    )
