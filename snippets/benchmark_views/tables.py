"""The ``table``, ``rng-stash``, ``autocast`` and ``fsdp`` views: every measured row, and the
sections a results file may add.

Each table carries its provenance line (device, versions, commit, code hash, file), because a
number without its source is the thing a reader should not trust.

A step time is a median of rounds that scatter: regenerating a file on the same kind of machine
moves them. So a view says that one time is above or below another (an overhead against its
one-forward estimate, the RNG stash on against off) only where :func:`beyond_spread` says the
rounds can show it; elsewhere it says the difference is within the spread.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import Any

from mkdocs_course.benchmarks.formatting import esc, fmt_bytes, fmt_time
from mkdocs_course.benchmarks.results import Results

from snippets import memory_model
from snippets.benchmark_views.names import (
    describe_parameter,
    describe_shape,
    strategy_name,
)
from snippets.benchmark_views.shared import (
    _cell_row,
    _iqr,
    _overhead_text,
    _provenance_line,
    _ratio,
    beyond_spread,
)


def view_table(results: list[Results]) -> str:
    return "\n".join(_table(r) for r in results)


def _table(result: Results) -> str:
    head = [
        "Strategy",
        "Predicted peak",
        "Measured peak (× predicted)",
        "Saved for backward",
        "Step time",
        "Overhead / one-forward estimate",
        "Gradients equal (largest relative difference)",
    ]
    note = (
        f"{esc(describe_shape(result))}. Under each overhead: its one-forward estimate, and "
        "whether the step lies above or below that by more than the spread of the rounds, or "
        "within it. Predicted and measured: peak memory above parameters and gradients, "
        "recompute included"
        + (
            "."
            if result.on_gpu
            else " (a CPU has no peak counter: the harness adds up the allocator’s events "
            "recorded by <code>torch.profiler</code>). On a CPU the host is the device: "
            "offload’s copies stay in the measured memory, so its peak is no checkpointing’s, "
            "not its predicted device peak."
        )
    )
    lines = [
        '<div class="benchmark benchmark-table">',
        f'<p class="benchmark-note">{note}</p>',
        "<table>",  # no class: Material styles (and scroll-wraps) plain tables only
        f"<caption>Gradient checkpointing on {esc(result.device['name'])}</caption>",
        "<thead><tr>" + "".join(f'<th scope="col">{esc(h)}</th>' for h in head) + "</tr></thead>",
        "<tbody>",
    ]
    none = next((r for r in result.rows if r["strategy"] == "none" and r["status"] == "ok"), None)
    for row in result.rows:
        lines.append(_table_row(row, none))
    lines += ["</tbody>", "</table>", _provenance_line(result), "</div>"]
    return "\n".join(lines)


def _table_row(row: dict[str, Any], none: dict[str, Any] | None) -> str:
    """One strategy: predicted and measured peak, then what else was measured."""
    predicted = row["predicted_peak_bytes"]
    parameter = describe_parameter(row)
    strategy = esc(strategy_name(row))
    if parameter != "—":
        strategy += f" <small>{esc(parameter)}</small>"
    cells = [f'<th scope="row">{strategy}</th>', f"<td>{fmt_bytes(predicted)}</td>"]
    if row["status"] == "oom":
        cells.append(
            '<td colspan="5"><strong>OOM</strong>: ran out of memory (a result, not a crash)</td>'
        )
        return '<tr class="benchmark-oom">' + "".join(cells) + "</tr>"
    ratio = _ratio(row["peak_bytes"], predicted)
    measured = fmt_bytes(row["peak_bytes"])
    if ratio is not None:  # under the peak, so the column is as narrow as its figures
        measured += f" <small>{ratio:.2f} ×</small>"
    saved = fmt_bytes(row["saved_bytes"]) + (
        " <small>on the host</small>" if row["saved_on"] == "host" else ""
    )
    cells += [
        f"<td>{measured}</td>",
        f"<td>{saved}</td>",
        f"<td>{fmt_time(row['step_time_s'])}</td>",
        f"<td>{_overhead_text(row, none, in_table=True)}</td>",
        f"<td>{_grads_text(row)}</td>",
    ]
    return "<tr>" + "".join(cells) + "</tr>"


def _grads_text(row: dict[str, Any]) -> str:
    if row["strategy"] == "none":
        return "reference"
    if row["grads_equal"] is None:
        return "—"
    verdict = "yes" if row["grads_equal"] else "<strong>NO: a bug</strong>"
    # The header names the figure: under the verdict, the number alone.
    return f"{verdict} <small>{row['grad_max_rel_diff']:.1e}</small>"


def _sections(
    results: list[Results],
    key: str,
    missing: str,
    render: Callable[[Results, dict[str, Any]], list[str]],
) -> str:
    """A view of one section of each results file: the section rendered, or why it is absent."""
    parts = [f'<div class="benchmark benchmark-{key.replace("_", "-")}">']
    for result in results:
        section = result.data.get(key)
        if section is None:
            parts.append(f"<p>{esc(result.device['name'])}: not measured ({missing}).</p>")
        else:
            parts += render(result, section)
    parts.append("</div>")
    return "\n".join(parts)


def view_rng_stash(results: list[Results]) -> str:
    """Checkpointing every layer with the RNG-state stash on (default) and off, per device."""
    return _sections(results, "rng_stash", "this results file was not timed", _rng_stash_table)


def _rng_stash_table(result: Results, stash: dict[str, Any]) -> list[str]:
    name = esc(result.device["name"])
    on, off = stash["step_times_s"], stash["step_times_no_stash_s"]
    median_on, median_off = statistics.median(on), statistics.median(off)
    pairs = [a - b for a, b in zip(on, off, strict=True)]
    spreads = (_iqr(on), _iqr(off))
    shown = beyond_spread(median_on - median_off, *spreads)
    spread_text = (
        "no spread: one round"
        if None in spreads
        else f"IQR {fmt_time(spreads[0])} with the stash, {fmt_time(spreads[1])} without"
    )
    return [
        "<table>",
        f"<caption>Checkpointing every layer on {name}: the random-number-state stash</caption>",
        '<thead><tr><th scope="col">Quantity</th><th scope="col">Measured</th></tr></thead>',
        "<tbody>",
        _cell_row(
            "Median step, <code>preserve_rng_state=True</code> (default)", fmt_time(median_on)
        ),
        _cell_row("Median step, <code>preserve_rng_state=False</code>", fmt_time(median_off)),
        _cell_row(
            "Difference of the medians",
            f"{fmt_time(median_on - median_off)} ({(median_on - median_off) / median_on:+.1%}"
            " of the default step) <small>"
            + ("larger than" if shown else "<strong>within</strong>")
            + f" the spread of the rounds ({spread_text})</small>",
        ),
        _cell_row(
            f"Per round, default minus stash off ({len(pairs)} rounds)",
            f"{fmt_time(min(pairs))} to {fmt_time(max(pairs))}",
        ),
        _cell_row(
            "Gradients equal without the stash (no dropout)",
            "yes" if stash["grads_equal"] else "<strong>no</strong>",
        ),
        "</tbody>",
        "</table>",
        _provenance_line(result),
    ]


def view_autocast(results: list[Results]) -> str:
    """Bytes saved for backward without checkpointing: float32 beside bfloat16 autocast."""
    return _sections(results, "autocast", "its model is not float32", _autocast_table)


def _autocast_table(result: Results, amp: dict[str, Any]) -> list[str]:
    name = esc(result.device["name"])
    none = next(r for r in result.rows if r["strategy"] == "none")
    a = result.data["model"]["boundary_bytes"]
    layers = result.data["config"]["layers"]
    low = esc(amp["dtype"])
    per_layer = amp["saved_bytes"] / (a * layers)
    lines = [
        "<table>",
        f"<caption>No checkpointing on {name}: saved for backward, float32 and {low} "
        "autocast</caption>",
        f'<thead><tr><th scope="col">Quantity</th><th scope="col">float32</th>'
        f'<th scope="col">{low} autocast</th></tr></thead>',
        "<tbody>",
        _cell_row(
            "Saved for backward", fmt_bytes(none["saved_bytes"]), fmt_bytes(amp["saved_bytes"])
        ),
        _cell_row(
            "Per layer, in float32 boundary tensors <i>a</i>",
            f"{none['saved_bytes'] / (a * layers):.2f}",
            f"{per_layer:.2f} ({amp['saved_bytes'] / none['saved_bytes']:.0%} of float32)",
        ),
    ]
    for dtype, nbytes in amp["saved_bytes_by_dtype"].items():
        lines.append(_cell_row(f"of which saved in {esc(dtype)}", "—", fmt_bytes(nbytes)))
    for dtype, ops in amp["ops_by_dtype"].items():
        names = ", ".join(f"<code>{esc(op)}</code>" for op in ops)
        lines.append(_cell_row(f"aten ops that computed in {esc(dtype)}", "—", names))
    lines += ["</tbody>", "</table>", _provenance_line(result)]
    return lines


_FSDP_ROWS = (
    ("Parameters", "parameter_bytes"),
    ("Gradients", "gradient_bytes"),
    ("Optimizer state (Adam)", "optimizer_bytes"),
    ("Saved for backward", "saved_bytes"),
    ("Peak above the state", "peak_bytes"),
    ("Whole-step peak", "step_peak_bytes"),
)


def view_fsdp(results: list[Results]) -> str:
    """One process without FSDP beside each rank of the sharded run, and what the ranks hold
    beyond the model's count (the planner's FSDP term), read from the same file."""
    return _sections(results, "fsdp", "FSDP needs two ranks", _fsdp_table)


def _fsdp_table(result: Results, fsdp: dict[str, Any]) -> list[str]:
    name = esc(result.device["name"])
    reference, ranks = fsdp["reference"], fsdp["ranks"]
    heads = "".join(f'<th scope="col">rank {i} of {len(ranks)}</th>' for i in range(len(ranks)))
    lines = [
        "<table>",
        f"<caption>FSDP over {len(ranks)} processes on {name} (gloo): {fsdp['layers']} "
        f"transformer blocks, every block checkpointed, {esc(fsdp['autocast'])} autocast; "
        "each rank beside the same stack without FSDP</caption>",
        f'<thead><tr><th scope="col">Per process</th><th scope="col">No FSDP</th>{heads}'
        "</tr></thead>",
        "<tbody>",
    ]
    for label, key in _FSDP_ROWS:
        cells = [
            f"{fmt_bytes(rank[key])} ({rank[key] / reference[key]:.0%})"
            if reference[key]
            else fmt_bytes(rank[key])
            for rank in ranks
        ]
        lines.append(_cell_row(label, fmt_bytes(reference[key]), *cells))
    lines += ["</tbody>", "</table>", _fsdp_note(fsdp), _provenance_line(result)]
    return lines


def _fsdp_note(fsdp: dict[str, Any]) -> str:
    """What sharding changed, and the ranks' extra peak against the model's FSDP term for the
    way the harness calls the stack (``memory_model.fsdp_bytes``, layout ``blocks``)."""
    reference, ranks = fsdp["reference"], fsdp["ranks"]
    state = ("parameter_bytes", "gradient_bytes", "optimizer_bytes")
    shares = [rank[k] / reference[k] for rank in ranks for k in state]
    low, high = f"{min(shares):.0%}", f"{max(shares):.0%}"
    held = low if low == high else f"{low} to {high}"
    same = all(rank["saved_bytes"] == reference["saved_bytes"] for rank in ranks)
    extra = max(rank["peak_bytes"] for rank in ranks) - reference["peak_bytes"]
    block = fsdp["block_parameter_bytes"]
    itemsize = block // memory_model.block_parameters("transformer", fsdp["hidden"])[0]
    layers, world = fsdp["layers"], len(ranks)
    harness = memory_model.fsdp_bytes("transformer", fsdp["hidden"], layers, itemsize, world,
                                      layout="blocks")  # fmt: skip
    rooted = memory_model.fsdp_bytes("transformer", fsdp["hidden"], layers, itemsize, world)
    return (
        f'<p class="benchmark-note">Each rank holds {held}'
        + " of the unsharded parameters, gradients and optimizer state, and "
        + (
            "exactly the same bytes saved for backward. "
            if same
            else "other bytes saved for backward than the unsharded run. "
        )
        + f"Its peak above the state is {fmt_bytes(extra)} higher than the unsharded run's: "
        f"{extra / block:.1f} times one block's parameters ({fmt_bytes(block)}). The harness "
        "calls the blocks one by one, never the sharded stack, so FSDP makes each block a root "
        "of its own, and a root keeps its parameters gathered from its forward to its backward. "
        f"The memory model counts what that holds at the forward's end: every block's unsharded "
        f"parameters ({fmt_bytes(harness['unsharded_parameter_bytes'])}) and the next block's "
        f"all-gather buffer ({fmt_bytes(harness['all_gather_bytes'])}), "
        f"{fmt_bytes(harness['total'])} in all, {extra / harness['total']:.0%} of what this run "
        "measured. A training loop that calls the sharded model frees each block's gathered "
        "parameters after its forward; for it the model, and the planner, count one gathered "
        f"block, one all-gather and one reduce-scatter buffer: {fmt_bytes(rooted['total'])} "
        "here (the traced file's FSDP part checks both layouts).</p>"
    )
