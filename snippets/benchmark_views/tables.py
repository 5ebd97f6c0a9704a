"""The ``table`` and ``summary`` views: every measured row, and the few ratios a note quotes.

Each table carries its provenance line (device, versions, commit, code hash, file), because a
number without its source is the thing a reader should not trust.

A step time is a median of rounds that scatter: regenerating a file on the same kind of machine
moves them. So a view says that one time is above or below another (an overhead against its
one-forward estimate, the RNG stash on against off) only where :func:`beyond_spread` says the
rounds can show it; elsewhere it says the difference is within the spread.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable
from typing import Any

from snippets import memory_model
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
            " of the default step)<br><small>"
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


def view_step(results: list[Results]) -> str:
    """The whole training step per run (the MLP rows, then each transformer run): what the
    model's state takes, the activation peak above it, the step's peak against the memory
    model, each strategy's share of no checkpointing's, and the step time with its spread."""
    parts = ['<div class="benchmark benchmark-step">']
    for result in results:
        for run in step_runs(result):
            parts.append(_step_table(result, run))
        parts.append(_provenance_line(result))
    parts.append("</div>")
    return "\n".join(parts)


def step_runs(result: Results) -> list[dict[str, Any]]:
    """The runs whose whole step a results file measured: its own (the MLP rows), then each of
    ``runs`` (the transformer block's), each with its config, state and rows."""
    return [result.data, *result.data.get("runs", [])]


def describe_run(config: dict[str, Any]) -> str:
    """ "transformer, explicit attention, float32 under bfloat16 autocast", and the sizes."""
    heads = f", {config['heads']} heads" if config.get("block", "mlp") == "transformer" else ""
    return (
        f"{run_kind(config)}: {config['layers']} blocks, input [{config['batch']}, "
        f"{config['tokens']}, {config['hidden']}]{heads}"
    )


def run_kind(config: dict[str, Any]) -> str:
    """ "transformer, explicit attention, float32 under bfloat16 autocast": a run without its
    sizes, short enough for a plot's line."""
    block = config.get("block", "mlp")
    what = "MLP block" if block == "mlp" else f"transformer, {config['attention']} attention"
    dropout = config.get("dropout")
    if block == "transformer" and dropout is not None:
        what += f", dropout {dropout:g}" if dropout else ", no dropout"
    precision = config["dtype"]
    if config.get("autocast"):
        precision += f" under {config['autocast']} autocast"
    return f"{what}, {precision}"


def _step_table(result: Results, run: dict[str, Any]) -> str:
    state = run["state"]
    resident = state["parameter_bytes"] + state["gradient_bytes"] + state["optimizer_bytes"]
    none = next((r for r in run["rows"] if r["strategy"] == "none"), None)
    head = [
        "Strategy",
        "Activation peak (model, × model)",
        "Whole-step peak (× predicted)",
        "Predicted",
        "Share of no checkpointing",
        "Step time (median, spread)",
    ]
    lines = [
        "<table>",
        f"<caption>Whole training step on {esc(result.device['name'])}: "
        f"{esc(describe_run(run['config']))}. Resident before each step: parameters "
        f"{fmt_bytes(state['parameter_bytes'])}, gradients {fmt_bytes(state['gradient_bytes'])}, "
        f"Adam state {fmt_bytes(state['optimizer_bytes'])} (model: "
        f"{fmt_bytes(state['predicted']['total'])} in all, measured {fmt_bytes(resident)})"
        "</caption>",
        "<thead><tr>" + "".join(f'<th scope="col">{esc(h)}</th>' for h in head) + "</tr></thead>",
        "<tbody>",
    ]
    for row in run["rows"]:
        label = esc(strategy_name(row))
        if describe_parameter(row) != "—":
            label += f"<br><small>{esc(describe_parameter(row))}</small>"
        if row["status"] != "ok":
            lines.append(f'<tr><th scope="row">{label}</th><td colspan="5">OOM</td></tr>')
            continue
        ratio = _ratio(row["step_peak_bytes"], row["predicted_step_peak_bytes"])
        act = _ratio(row["peak_bytes"], row["predicted_peak_bytes"])
        share = row["step_peak_bytes"] / none["step_peak_bytes"] if none else None
        spread = row.get("step_time_spread_s")
        timing = fmt_time(row["step_time_s"])
        if spread is not None:
            timing += f"<br><small>± {fmt_time(spread / 2)} (half the IQR of "
            timing += f"{len(row['step_times_s'])} rounds)</small>"
        lines.append(
            f'<tr><th scope="row">{label}</th>'
            f'<td class="num">{fmt_bytes(row["peak_bytes"])}<br><small>model '
            f"{fmt_bytes(row['predicted_peak_bytes'])}, "
            f"{'—' if act is None else f'× {act:.2f}'}</small></td>"
            f'<td class="num">{fmt_bytes(row["step_peak_bytes"])}'
            f"<br><small>{'—' if ratio is None else f'× {ratio:.2f}'}</small></td>"
            f'<td class="num">{fmt_bytes(row["predicted_step_peak_bytes"])}</td>'
            f'<td class="num">{"—" if share is None else f"{share:.0%}"}</td>'
            f'<td class="num">{timing}</td></tr>'
        )
    lines += ["</tbody>", "</table>"]
    return "\n".join(lines)


def beyond_spread(difference_s: float, *spreads_s: float | None) -> bool:
    """Whether a difference between median times is one the rounds can show: larger than half
    the interquartile ranges of the times compared, added, so that their "± half the IQR"
    ranges (as the step table shows them) do not overlap. Without a spread (one round) no
    difference is shown."""
    if any(spread is None for spread in spreads_s):
        return False
    return abs(difference_s) > sum(spreads_s) / 2


def _iqr(times: list[float]) -> float | None:
    """The interquartile range of rounds, computed as the harness computes a row's spread."""
    if len(times) < 2:
        return None
    quartiles = statistics.quantiles(times, n=4)
    return quartiles[2] - quartiles[0]


def _against_estimate(row: dict[str, Any], none: dict[str, Any] | None) -> str | None:
    """Where a row's step time lies against its one-forward estimate (no checkpointing's step
    plus the estimated recomputation): ``"above"`` or ``"below"`` only beyond the spread of
    the row's and no checkpointing's rounds, else ``"within"``; ``None`` with no estimate."""
    bound = row.get("overhead_bound")
    if bound is None or row.get("overhead") is None or none is None or row is none:
        return None
    difference = row["step_time_s"] - none["step_time_s"] * (1 + bound)
    if not beyond_spread(difference, row["step_time_spread_s"], none["step_time_spread_s"]):
        return "within"
    return "above" if difference > 0 else "below"


# A verdict in running text; under a table's figure it stands alone (the table's note says it).
_VERDICTS = {"above": "above it", "below": "below it", "within": "within the spread"}


def _cell_row(label: str, *cells: str) -> str:
    """A table row: a header cell (trusted markup) and its value cells."""
    tds = "".join(f'<td class="num">{cell}</td>' for cell in cells)
    return f'<tr><th scope="row">{label}</th>{tds}</tr>'


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
        strategy += f"<br><small>{esc(parameter)}</small>"
    cells = [f'<th scope="row">{strategy}</th>', f'<td class="num">{fmt_bytes(predicted)}</td>']
    if row["status"] == "oom":
        cells.append(
            '<td class="num benchmark-oom" colspan="5">'
            "<strong>OOM</strong>: ran out of memory (a result, not a crash)</td>"
        )
        return '<tr class="benchmark-oom">' + "".join(cells) + "</tr>"
    ratio = _ratio(row["peak_bytes"], predicted)
    measured = fmt_bytes(row["peak_bytes"])
    if ratio is not None:  # under the peak, so the column is as narrow as its figures
        measured += f"<br><small>{ratio:.2f} ×</small>"
    saved = fmt_bytes(row["saved_bytes"]) + (
        "<br><small>on the host</small>" if row["saved_on"] == "host" else ""
    )
    cells += [
        f'<td class="num">{measured}</td>',
        f'<td class="num">{saved}</td>',
        f'<td class="num">{fmt_time(row["step_time_s"])}</td>',
        f'<td class="num">{_overhead_text(row, none, in_table=True)}</td>',
        f"<td>{_grads_text(row)}</td>",
    ]
    return "<tr>" + "".join(cells) + "</tr>"


def _ratio(measured: float | None, predicted: float | None) -> float | None:
    if measured is None or not predicted:
        return None
    return measured / predicted


def _overhead_text(
    row: dict[str, Any], none: dict[str, Any] | None, *, in_table: bool = False
) -> str:
    """The overhead and its one-forward bound, and whether the step lies above or below the
    bound beyond the spread of the rounds: one line in the summary; in the table the bound and
    the verdict go under the overhead, so that column is as narrow as its figures."""
    if row["strategy"] == "none":
        return "baseline"
    if row.get("overhead") is None:
        return "—"
    overhead, bound = fmt_percent(row["overhead"]), row.get("overhead_bound")
    verdict = _against_estimate(row, none)
    if in_table:  # the header names the bound; offload recomputes nothing, so it has none
        small = "none" if bound is None else fmt_percent(bound)
        return f"{overhead}<br><small>{small}{f', {verdict}' if verdict else ''}</small>"
    if bound is None:
        return f"{overhead} / none (no recompute)"
    return f"{overhead} / {fmt_percent(bound)}" + (f": {_VERDICTS[verdict]}" if verdict else "")


def _grads_text(row: dict[str, Any]) -> str:
    if row["strategy"] == "none":
        return "reference"
    if row["grads_equal"] is None:
        return "—"
    verdict = "yes" if row["grads_equal"] else "<strong>NO: a bug</strong>"
    # The header names the figure: under the verdict, the number alone.
    return f"{verdict}<br><small>{row['grad_max_rel_diff']:.1e}</small>"


def _provenance_line(result: Results) -> str:
    prov = result.data["provenance"]
    device = esc(result.device["name"])
    if result.traced:  # a trace is never a measurement, whoever made it
        host = esc(result.device.get("host", "a CPU"))
        parts = [f"Traced at full size on CPU kernels ({host}), not measured on a GPU: "
                 f"{esc(prov['method'])}"]  # fmt: skip
    elif result.measured_here:
        parts = [f"Measured on {device} by the job that published this site"]
    else:  # committed by someone: its device and numbers are what the file says
        parts = [f"Submitted: measured on {device}, as the file says"]
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
