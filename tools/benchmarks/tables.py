"""The ``table`` and ``summary`` views: every measured row, and the few ratios a note quotes.

Each table carries its provenance line (device, versions, commit, code hash, file), because a
number without its source is the thing a reader should not trust.
"""

from __future__ import annotations

import math
from typing import Any

from tools.benchmarks.formatting import (
    describe_parameter,
    describe_shape,
    esc,
    fmt_bytes,
    fmt_percent,
    fmt_time,
    strategy_label,
    strategy_name,
)
from tools.benchmarks.results import Results

_SUMMARY_QUANTITIES = (
    "Memory without checkpointing",
    "Lowest memory measured",
    "Reduction",
    "Its step-time overhead / one-forward bound",
    "Best segment count",
    "Measured / predicted, all rows",
    "Gradients equal to no checkpointing",
)


def view_table(results: list[Results]) -> str:
    return "\n".join(_table(r) for r in results)


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
        cells = "".join(f'<td class="num">{col[i]}</td>' for col in columns)
        lines.append(f'<tr><th scope="row">{esc(label)}</th>{cells}</tr>')
    lines += ["</tbody>", "</table>"]
    lines += [_provenance_line(r) for r in results]
    lines.append("</div>")
    return "\n".join(lines)


def _table(result: Results) -> str:
    gpu = result.on_gpu
    quantity = "peak" if gpu else "saved"
    # The second memory quantity: saved bytes on a GPU; peak memory only where it was measured.
    other_key: str | None = "saved_bytes" if gpu else "peak_bytes"
    if not any(row.get(other_key) is not None for row in result.rows):
        other_key = None
    head = [
        "Strategy",
        f"Predicted {quantity}",
        f"Measured {quantity}",
        "Measured / predicted",
        *(["Saved for backward" if gpu else "Peak memory"] if other_key else []),
        "Step time",
        "Overhead / one-forward bound",
        "Gradients equal",
    ]
    note = f"{esc(describe_shape(result))}. " + (
        "Predicted and measured: peak memory above parameters and gradients."
        if gpu
        else "Predicted and measured: bytes saved for backward (a CPU has no peak-memory "
        "counter; offload’s figure is host memory)."
    )
    lines = [
        '<div class="benchmark benchmark-table">',
        f'<p class="benchmark-note">{note}</p>',
        "<table>",  # no class: Material styles (and scroll-wraps) plain tables only
        f"<caption>Gradient checkpointing on {esc(result.device['name'])}</caption>",
        "<thead><tr>" + "".join(f'<th scope="col">{esc(h)}</th>' for h in head) + "</tr></thead>",
        "<tbody>",
    ]
    for row in result.rows:
        lines.append(_table_row(row, result, other_key))
    lines += ["</tbody>", "</table>", _provenance_line(result), "</div>"]
    return "\n".join(lines)


def _table_row(row: dict[str, Any], result: Results, other_key: str | None) -> str:
    """One strategy; ``other_key`` is the second memory column, ``None`` when it is not shown."""
    key, predicted = result.memory_key, row[result.predicted_key]
    parameter = describe_parameter(row)
    strategy = esc(strategy_name(row))
    if parameter != "—":
        strategy += f"<br><small>{esc(parameter)}</small>"
    cells = [f'<th scope="row">{strategy}</th>', f'<td class="num">{fmt_bytes(predicted)}</td>']
    if row["status"] == "oom":
        cells.append(
            f'<td class="num benchmark-oom" colspan="{5 + (other_key is not None)}">'
            "<strong>OOM</strong>: ran out of memory (a result, not a crash)</td>"
        )
        return '<tr class="benchmark-oom">' + "".join(cells) + "</tr>"
    ratio = _ratio(row[key], predicted)
    other = []
    if other_key:
        other_text = fmt_bytes(row[other_key])
        if result.on_gpu and row["saved_on"] == "host":
            other_text += " (host)"
        other.append(f'<td class="num">{other_text}</td>')
    cells += [
        f'<td class="num">{fmt_bytes(row[key])}</td>',
        f'<td class="num">{"—" if ratio is None else f"{ratio:.2f}"}</td>',
        *other,
        f'<td class="num">{fmt_time(row["step_time_s"])}</td>',
        f'<td class="num">{_overhead_text(row)}</td>',
        f"<td>{_grads_text(row)}</td>",
    ]
    return "<tr>" + "".join(cells) + "</tr>"


def _ratio(measured: float | None, predicted: float | None) -> float | None:
    if measured is None or not predicted:
        return None
    return measured / predicted


def _overhead_text(row: dict[str, Any]) -> str:
    if row["strategy"] == "none":
        return "baseline"
    if row.get("overhead") is None:
        return "—"
    bound = row.get("overhead_bound")
    if bound is None:
        return f"{fmt_percent(row['overhead'])} / none (no recompute)"
    return f"{fmt_percent(row['overhead'])} / {fmt_percent(bound)}"


def _grads_text(row: dict[str, Any]) -> str:
    if row["strategy"] == "none":
        return "reference"
    if row["grads_equal"] is None:
        return "—"
    return "yes" if row["grads_equal"] else "<strong>NO: a bug</strong>"


def _provenance_line(result: Results) -> str:
    prov = result.data["provenance"]
    parts = [f"Measured on {esc(result.device['name'])}"]
    versions = f"torch {esc(prov['torch'])}"
    if prov.get("cuda"):
        versions += f", CUDA {esc(prov['cuda'])}"
    parts.append(versions)
    parts.append(esc(prov["date"].replace("T", " ").replace("Z", " UTC")))
    commit = prov.get("git_commit")
    if commit:
        text = f"commit <code>{esc(commit[:10])}</code>"
        if prov.get("code_modified_since_commit"):
            text += " plus uncommitted changes to the measuring code"
        parts.append(text)
    else:
        parts.append("commit unknown")
    parts.append(f"code hash <code>{esc(prov['code']['sha256'][:12])}</code>")
    parts.append(f"file <code>{esc(result.path.as_posix())}</code>")
    return '<p class="benchmark-provenance">' + " · ".join(parts) + "</p>"


def _summary_column(result: Results) -> list[str]:
    """One device's cells, in the order of :data:`_SUMMARY_QUANTITIES`."""
    key = result.memory_key
    rows = [r for r in result.rows if r["status"] == "ok"]
    measured = "peak" if result.on_gpu else "saved for backward"
    none = next((r for r in rows if r["strategy"] == "none"), None)
    candidates = [r for r in rows if r[key] is not None and r["saved_on"] == "device"]
    best = min(candidates, key=lambda r: r[key]) if candidates else None
    cells = [fmt_bytes(none[key]) + f" ({measured})" if none else "—"]
    if best is not None:
        cells.append(f"{fmt_bytes(best[key])}: {esc(strategy_label(best))}")
        cells.append(f"{none[key] / best[key]:.1f}× less" if none and best[key] else "—")
        cells.append(_overhead_text(best) if best.get("overhead") is not None else "—")
    else:
        cells += ["—", "—", "—"]
    segs = [r for r in rows if r["strategy"] == "segments"]
    config, model = result.data["config"], result.data["model"]
    layers, c = config["layers"], model["activations_per_layer"]
    if segs:
        best_seg = min(segs, key=lambda r: r[key])
        cells.append(
            f"{best_seg['segments']} segments (√L = {math.sqrt(layers):.1f}; √(c·L) = "
            f"{math.sqrt(c * layers):.1f})"
        )
    else:
        cells.append("—")
    ratios = [_ratio(r[key], r[result.predicted_key]) for r in rows]
    ratios = [x for x in ratios if x is not None]
    cells.append(f"{min(ratios):.2f} to {max(ratios):.2f}" if ratios else "—")
    compared = [r for r in rows if r["grads_equal"] is not None]
    equal = sum(1 for r in compared if r["grads_equal"])
    oom = sum(1 for r in result.rows if r["status"] == "oom")
    text = f"{equal} of {len(compared)} strategies"
    if oom:
        text += f" ({oom} OOM)"
    cells.append(text if compared else "—")
    return cells
