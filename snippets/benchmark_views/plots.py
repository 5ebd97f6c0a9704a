"""The ``plot-memory``, ``plot-tradeoff`` and ``plot-breakdown`` views: SVG figures.

``plot-memory`` shows what the lesson derives (memory against the strategy's parameter, measured
beside predicted); ``plot-tradeoff`` shows what it costs (memory against step time), one figure
per device each; ``plot-breakdown`` shows what a whole training step holds (parameters,
gradients, optimizer state and activations, stacked per strategy), one figure per device with
every run of the ``step`` view, whose tables give the same figures as text. Every chart has an
aria-label that states what a sighted reader takes from it.
"""

from __future__ import annotations

from typing import Any

from mkdocs_course.benchmarks.chart import Bars, Chart, figure
from mkdocs_course.benchmarks.formatting import byte_unit, esc, fmt_bytes, fmt_time
from mkdocs_course.benchmarks.results import Results

from snippets.benchmark_views.names import describe_shape, strategy_label
from snippets.benchmark_views.step import describe_run, run_kind, step_runs

# strategy -> (marker shape, colour class), in legend order; "bm-n" has no colour: the text's own.
_FAMILY = {
    "groups": ("circle", "bm-a"),
    "segments": ("square", "bm-b"),
    "selective": ("triangle", "bm-c"),
    "offload": ("diamond", "bm-d"),
    "none": ("diamond", "bm-n"),
}
# The strategies that sweep a parameter, and the row field holding it.
_SWEPT = {"groups": "layers_per_group", "segments": "segments"}

Row = dict[str, Any]


def view_plot_memory(results: list[Results]) -> str:
    return "\n".join(_plot_memory(r) for r in results)


def view_plot_tradeoff(results: list[Results]) -> str:
    return "\n".join(_plot_tradeoff(r) for r in results)


def view_plot_breakdown(results: list[Results]) -> str:
    return "\n".join(_plot_breakdown(r) for r in results)


QUANTITY = "Peak memory above parameters"


def _ok(rows: list[Row], strategy: str) -> list[Row]:
    return [r for r in rows if r["strategy"] == strategy and r["status"] == "ok"]


def _plot_memory(result: Results) -> str:
    key, pred_key, quantity = "peak_bytes", "predicted_peak_bytes", QUANTITY
    measured = {
        strategy: sorted(_ok(result.rows, strategy), key=lambda r, p=param: r[p])
        for strategy, param in _SWEPT.items()
    }
    none = _ok(result.rows, "none")
    all_rows = [r for r in result.rows if r["strategy"] in _SWEPT]
    values = [r[pred_key] for r in all_rows] + [
        r[key] for r in [*measured["groups"], *measured["segments"], *none]
    ]
    unit, scale = byte_unit(max(values, default=1))
    params = [r["layers_per_group"] or r["segments"] for r in all_rows] or [1]
    chart = Chart((0, max(params)), (0, max(values, default=1) / scale))
    chart.axes("Layers per checkpointed group / number of segments", f"{quantity} ({unit})")
    legend = []
    for strategy, param in _SWEPT.items():
        shape, cls = _FAMILY[strategy]
        pred_rows = sorted(
            (r for r in all_rows if r.get(param) is not None), key=lambda r: r[param]
        )
        if pred_rows:
            chart.polyline(
                f"{cls} bm-line bm-pred", [(r[param], r[pred_key] / scale) for r in pred_rows]
            )
            for r in pred_rows:
                chart.marker(shape, cls, chart.x(r[param]), chart.y(r[pred_key] / scale), True)
        rows = measured[strategy]
        if rows:
            chart.polyline(f"{cls} bm-line", [(r[param], r[key] / scale) for r in rows])
            for r in rows:
                chart.marker(shape, cls, chart.x(r[param]), chart.y(r[key] / scale))
        legend += [(shape, cls, f"{strategy}: measured", False), (shape, cls, "predicted", True)]
    if none:
        chart.reference("no checkpointing", y=none[0][key] / scale)
    chart.legend(legend)
    label = _memory_summary(result, measured, none, quantity.lower())
    title = f"{quantity} against strategy parameter, {result.device['name']}"
    oom = sum(1 for r in all_rows if r["status"] == "oom")
    caption = (
        f"{esc(quantity)} for checkpointing every group of N layers (circles) and for "
        f"<code>checkpoint_sequential</code> with N segments (squares), measured (solid) and "
        f"predicted from per-layer sizes (dashed), on {esc(result.device['name'])}; "
        f"{esc(describe_shape(result))}."
        + (f" {oom} configuration(s) ran out of memory and are not drawn." if oom else "")
    )
    return figure(chart.svg(label, title), caption)


def _memory_summary(
    result: Results, measured: dict[str, list[Row]], none: list[Row], quantity: str
) -> str:
    """The aria-label: what a sighted reader takes from the chart, in one sentence."""
    key = "peak_bytes"
    parts = [f"Line chart of {quantity} on {result.device['name']}."]
    if none:
        parts.append(f"Without checkpointing: {fmt_bytes(none[0][key])}.")
    for strategy, param in _SWEPT.items():
        rows = measured[strategy]
        if rows:
            best = min(rows, key=lambda r: r[key])
            parts.append(
                f"{strategy.capitalize()}: from {fmt_bytes(rows[0][key])} at {rows[0][param]} "
                f"to {fmt_bytes(rows[-1][key])} at {rows[-1][param]}; lowest "
                f"{fmt_bytes(best[key])} at {best[param]}."
            )
    return " ".join(parts)


def _short(row: Row) -> str:
    """A point's label in the trade-off plot: the parameter where there is one."""
    if row["strategy"] == "groups":
        return f"{row['layers_per_group']}/group"
    if row["strategy"] == "segments":
        return f"{row['segments']} seg"
    return row["strategy"]


def _plot_tradeoff(result: Results) -> str:
    gpu, key, quantity = result.on_gpu, "peak_bytes", QUANTITY
    rows = [
        r
        for r in result.rows
        if r["status"] == "ok"
        and r["step_time_s"] is not None
        and r[key] is not None
        and (gpu or r["saved_on"] == "device")
    ]
    if not rows:
        return figure(
            '<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="no timed '
            'results" viewBox="0 0 10 10" width="10" height="10"></svg>',
            f"No timed results for {esc(result.device['name'])}.",
        )
    unit, scale = byte_unit(max(r[key] for r in rows))
    times = [r["step_time_s"] * 1e3 for r in rows]
    base = next((r for r in rows if r["strategy"] == "none"), None)
    bound_ms = None
    if base is not None and base.get("forward_time_s") is not None:
        bound_ms = (base["step_time_s"] + base["forward_time_s"]) * 1e3
        times.append(bound_ms)
    # Time axis from just below the fastest step: points spread out, and the axis is labelled.
    chart = Chart((min(times) * 0.9, max(times)), (0, max(r[key] for r in rows) / scale))
    chart.axes("Median step time (ms)", f"{quantity} ({unit})")
    if bound_ms is not None:
        chart.reference("one extra forward", x=bound_ms)
    points = []
    for r in sorted(rows, key=lambda r: (r["step_time_s"], r[key])):
        shape, cls = _FAMILY.get(r["strategy"], _FAMILY["groups"])
        x, y = chart.x(r["step_time_s"] * 1e3), chart.y(r[key] / scale)
        chart.marker(shape, cls, x, y)
        points.append((x, y, _short(r)))
    chart.label_points(points)
    chart.legend([(shape, cls, name, False) for name, (shape, cls) in _FAMILY.items()], lines=False)
    fastest_low = min(rows, key=lambda r: (r[key], r["step_time_s"]))
    label = (
        f"Scatter chart of {quantity.lower()} against median step time on "
        f"{result.device['name']}, one point per strategy. "
        + (
            f"No checkpointing: {fmt_bytes(base[key])} at {fmt_time(base['step_time_s'])}. "
            if base
            else ""
        )
        + f"Least memory: {strategy_label(fastest_low)}, {fmt_bytes(fastest_low[key])} at "
        f"{fmt_time(fastest_low['step_time_s'])}."
    )
    title = f"Memory against step time, {result.device['name']}"
    caption = (
        f"Trade-off: {esc(quantity.lower())} against median step time, one point per strategy, "
        f"on {esc(result.device['name'])}. The dotted vertical line marks one extra forward pass "
        "on top of a step without checkpointing, the estimate for recomputing everything once."
        + (
            ""
            if gpu
            else " CPU offload is not drawn: on a CPU the host is the device, so its "
            "copies stay in the memory that is measured."
        )
    )
    return figure(chart.svg(label, title), caption)


# The whole step's terms, in stacking order: (the state's field, or None for the row's activation
# peak; legend text; colour class). The resident state comes first: it is the same in every row.
_TERMS = (
    ("parameter_bytes", "parameters", "bm-a"),
    ("gradient_bytes", "gradients", "bm-b"),
    ("optimizer_bytes", "optimizer state", "bm-d"),
    (None, "activations", "bm-c"),
)
# A bar's name: short enough for the label column.
_BAR_NAMES = {
    "none": "no checkpointing",
    "selective": "selective (matmuls)",
    "selective-attention": "selective (attention)",
    "offload": "CPU offload",
}


def _bar_name(row: Row) -> str:
    if row["strategy"] == "groups":
        return f"groups of {row['layers_per_group']}"
    if row["strategy"] == "segments":
        return f"{row['segments']} segments"
    return _BAR_NAMES.get(row["strategy"], row["strategy"])


def _plot_breakdown(result: Results) -> str:
    """One figure per results file: a heading per run, then a bar per strategy, on one axis, so
    runs compare with each other (explicit attention's scores beside fused attention's)."""
    runs = step_runs(result)
    ok = [r for run in runs for r in run["rows"] if r["status"] == "ok"]
    peak = max((r["step_peak_bytes"] for r in ok), default=1)
    unit, scale = byte_unit(peak)
    bars = Bars(peak / scale)
    bars.axis(f"Whole-step peak ({unit})")
    bars.legend([(cls, name) for _, name, cls in _TERMS])
    device = result.device["name"]
    label = [f"Stacked bar chart of the whole-step peak per strategy on {device}."]
    for run in runs:
        what = describe_run(run["config"])
        bars.heading(f"{run_kind(run['config'])}, {run['config']['layers']} blocks")
        for row in run["rows"]:
            if row["status"] == "ok":
                values = [run["state"][k] if k else row["peak_bytes"] for k, _, _ in _TERMS]
                segments = [(cls, v / scale) for (_, _, cls), v in zip(_TERMS, values, strict=True)]
                bars.bar(_bar_name(row), segments, fmt_bytes(row["step_peak_bytes"]))
            else:
                bars.note(_bar_name(row), "OOM: ran out of memory")
        label.append(_breakdown_summary(run, what))
    caption = (
        f"What the whole training step holds on {esc(device)}, per run and strategy. Each bar is "
        "one strategy's whole-step peak: the parameters, gradients and Adam state resident "
        "before the step, the same in every bar of a run, and the activation peak above them. "
        "The whole-step tables give the same figures beside the memory model's, and each "
        "run's input sizes."
        + (
            ""
            if result.on_gpu
            else " On a CPU offload's copies stay in the measured memory, so its bar is no "
            "checkpointing's."
        )
    )
    return figure(bars.svg(" ".join(label), f"Whole-step memory per strategy, {device}"), caption)


def _breakdown_summary(run: dict[str, Any], what: str) -> str:
    """One run's part of the aria-label: its resident state, and its lowest and highest bars."""
    state = run["state"]
    text = (
        f"{what}: parameters {fmt_bytes(state['parameter_bytes'])}, gradients "
        f"{fmt_bytes(state['gradient_bytes'])} and optimizer state "
        f"{fmt_bytes(state['optimizer_bytes'])} in every bar"
    )
    ok = [r for r in run["rows"] if r["status"] == "ok"]
    if not ok:
        return text + "; every strategy ran out of memory."
    low = min(ok, key=lambda r: r["step_peak_bytes"])
    high = max(ok, key=lambda r: r["step_peak_bytes"])
    return text + (
        f"; activations from {fmt_bytes(low['peak_bytes'])} ({_bar_name(low)}) to "
        f"{fmt_bytes(high['peak_bytes'])} ({_bar_name(high)}), whole-step peak from "
        f"{fmt_bytes(low['step_peak_bytes'])} to {fmt_bytes(high['step_peak_bytes'])}."
    )
