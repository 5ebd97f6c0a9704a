"""The ``summary`` view: the few ratios a lesson's note quotes, per device, each following from
the rows of the file (a best count only where the counts tried bracket it).
"""

from __future__ import annotations

import math
from typing import Any

from mkdocs_course.benchmarks.formatting import esc, fmt_bytes, fmt_time
from mkdocs_course.benchmarks.results import Results

from snippets import memory_model
from snippets.benchmark_views.names import (
    strategy_label,
)
from snippets.benchmark_views.shared import (
    _against_estimate,
    _overhead_text,
    _provenance_line,
    beyond_spread,
)

_SUMMARY_QUANTITIES = (
    "Peak without checkpointing",
    "Lowest peak measured (checkpointing)",
    "Reduction",
    "Its step-time overhead / one-forward estimate",
    "Best segment count (lowest measured peak)",
    "Measured / predicted peak",
    "Overhead above its one-forward estimate, beyond the spread",
    "Selective's step against every layer checkpointed",
    "Gradients equal to no checkpointing",
)


def view_summary(results: list[Results]) -> str:
    columns = [_summary_column(r) for r in results]
    head = "".join(f'<th scope="col">{esc(r.device["name"])}</th>' for r in results)
    lines = [
        '<div class="benchmark benchmark-summary">',
        "<table>",
        "<caption>Gradient checkpointing: the key measured ratios per device</caption>",
        f'<thead><tr><th scope="col">Quantity</th>{head}</tr></thead>',
        "<tbody>",
    ]
    for i, label in enumerate(_SUMMARY_QUANTITIES):
        cells = "".join(f"<td>{col[i]}</td>" for col in columns)
        lines.append(f'<tr><th scope="row">{esc(label)}</th>{cells}</tr>')
    lines += ["</tbody>", "</table>"]
    lines += [_provenance_line(r) for r in results]
    lines.append("</div>")
    return "\n".join(lines)


def _summary_column(result: Results) -> list[str]:
    """One device's cells, in the order of :data:`_SUMMARY_QUANTITIES`."""
    rows = [r for r in result.rows if r["status"] == "ok"]
    none = next((r for r in rows if r["strategy"] == "none"), None)
    # Offload moves memory rather than recomputing it: it has its own row, not a "lowest" here.
    candidates = [r for r in rows if r["saved_on"] == "device" and r["strategy"] != "none"]
    best = min(candidates, key=lambda r: r["peak_bytes"]) if candidates else None
    cells = [fmt_bytes(none["peak_bytes"]) if none else "—"]
    if best is not None:
        cells.append(f"{fmt_bytes(best['peak_bytes'])}: {esc(strategy_label(best))}")
        share = best["peak_bytes"] / none["peak_bytes"] if none else None
        cells.append(f"{1 / share:.1f}× less ({share:.0%} of no checkpointing)" if share else "—")
        cells.append(_overhead_text(best, none) if best.get("overhead") is not None else "—")
    else:
        cells += ["—", "—", "—"]
    cells.append(_best_segments(result, rows))
    # On a CPU offload's copies are measured memory, which its prediction (device only) is not.
    compared = [r for r in rows if result.on_gpu or r["saved_on"] == "device"]
    ratios = [r["peak_bytes"] / r["predicted_peak_bytes"] for r in compared]
    a = result.data["model"]["boundary_bytes"]
    gaps = [(r["peak_bytes"] - r["predicted_peak_bytes"]) / a for r in compared]
    text = "—"
    if ratios:
        text = (
            f"{min(ratios):.2f} to {max(ratios):.2f}; measured minus predicted: "
            f"{min(gaps):.1f}a to {max(gaps):.1f}a"
        )
    if ratios and not result.on_gpu:
        text += " (offload left out: on a CPU its copies stay in the measured memory)"
    cells.append(text)
    bounded = [r for r in rows if r.get("overhead_bound") is not None and r["strategy"] != "none"]
    verdicts = [_against_estimate(r, none) for r in bounded]
    above = verdicts.count("above")
    near = sum(
        1
        for r, v in zip(bounded, verdicts, strict=True)
        if v == "within" and r["overhead"] > r["overhead_bound"]
    )
    text = f"{above} of {len(bounded)} timed rows" if bounded else "—"
    if near:
        text += f"; {near} more above it by less than the spread of the rounds"
    cells.append(text)
    cells.append(_selective_against_full(rows))
    compared = [r for r in rows if r["grads_equal"] is not None]
    equal = sum(1 for r in compared if r["grads_equal"])
    oom = sum(1 for r in result.rows if r["status"] == "oom")
    text = f"{equal} of {len(compared)} strategies"
    if compared:
        worst = max(r["grad_max_rel_diff"] for r in compared)
        text += f"; largest relative difference {worst:.1e}"
    if oom:
        text += f" ({oom} OOM)"
    cells.append(text if compared else "—")
    return cells


def _selective_against_full(rows: list[dict[str, Any]]) -> str:
    """Selective's median step beside checkpointing every layer's: slower or faster only where
    the difference is larger than the spread of the two rows' rounds."""
    selective = next((r for r in rows if r["strategy"] == "selective"), None)
    full = next((r for r in rows if r.get("layers_per_group") == 1), None)
    if selective is None or full is None or None in (selective["step_time_s"], full["step_time_s"]):
        return "—"
    difference = selective["step_time_s"] - full["step_time_s"]
    spreads = (selective["step_time_spread_s"], full["step_time_spread_s"])
    if beyond_spread(difference, *spreads):
        return f"{fmt_time(abs(difference))} {'slower' if difference > 0 else 'faster'}"
    return f"within the spread of the rounds ({fmt_time(difference)} apart)"


def _best_segments(result: Results, rows: list[dict[str, Any]]) -> str:
    """A best count only when the measured minimum lies inside the counts tried."""
    tried = sorted((r for r in rows if r["strategy"] == "segments"), key=lambda r: r["segments"])
    if not tried:
        return "—"
    best = min(tried, key=lambda r: r["peak_bytes"])
    layers = result.data["config"]["layers"]
    c = result.data["model"]["activations_per_layer"]
    model = (
        f"model: {_model_best_segments(layers, c)} segments; √L = {math.sqrt(layers):.1f}; "
        f"√(c·L) = {math.sqrt(c * layers):.1f}"
    )
    if len(tried) >= 3 and best is not tried[0] and best is not tried[-1]:
        return f"{best['segments']} segments ({model})"
    edge = "largest" if best is tried[-1] else "smallest"
    return f"not bracketed: lowest at {best['segments']} segments, the {edge} count tried ({model})"


def _model_best_segments(layers: int, c: float) -> int:
    """The segment count with the lowest predicted peak (``memory_model``), the smallest on ties."""
    counts = range(2, layers + 1)
    return min(counts, key=lambda s: memory_model.predict("segments", layers, 1, c, segments=s)[1])
