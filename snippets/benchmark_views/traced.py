"""The traced views: peaks traced with fake tensors at full size, and the tracer's own check.

A traced file (``checkpointing-traced.json``, written by ``tests/perf/trace_checkpointing.py``)
holds no measurement: every table here says so in its caption, names beside a run how a CUDA
run would keep other tensors (the file's ``cuda_differs``), and lists what could not be traced
instead of showing it as zero. ``traced-check`` sets the traced CPU-size rows beside the CPU
measurement of the same configurations, so a reader sees how far the tracer can be trusted, and
each GPU-measured row beside the full-size trace of its configuration, with the CUDA
differences the trace names under it.
"""

from __future__ import annotations

from typing import Any

from mkdocs_course.benchmarks.errors import BenchmarkError
from mkdocs_course.benchmarks.formatting import esc, fmt_bytes
from mkdocs_course.benchmarks.results import Results

from snippets import memory_model
from snippets.benchmark_views.names import describe_parameter, strategy_name
from snippets.benchmark_views.shared import _provenance_line
from snippets.benchmark_views.step import describe_run, step_runs

LABEL = "traced at full size on CPU kernels, not measured on a GPU"
# Config keys that say what ran (not how it was timed or where): a traced and a measured run
# are the same configuration when these agree.
SAME_RUN = (
    "block",
    "attention",
    "dropout",
    "dtype",
    "autocast",
    "layers",
    "batch",
    "tokens",
    "hidden",
    "heads",
    "layers_per_group",
    "segments",
)


# How far the model's activation peak may be from a traced or measured one before the page must
# name what the model leaves out (tests/test_benchmarks_traced.py holds every row to it).
MODEL_TOLERANCE = 0.05


def _score_bytes(config: dict[str, Any], itemsize: int) -> int:
    """One [batch, heads, T, T] attention-score tensor."""
    return config["batch"] * config["heads"] * config["tokens"] ** 2 * itemsize


def over_count(config: dict[str, Any], row: dict[str, Any]) -> tuple[str, int] | None:
    """A term the memory model counts in ``row``'s activation peak that the run does not hold,
    found by tracing the peak's live tensors and counted from the code, and its bytes; or None.

    - SDPA's CPU math fallback (fused attention with dropout) scales q and k before q·kᵀ, so
      when selective checkpointing recomputes it, it makes no scaled score tensor; the model
      counts the explicit ops (q·kᵀ, then · d^-½: one score-sized tensor), less the fallback's
      two scaled copies of q and k ([B, T, H] each).
    - Under CPU bfloat16 autocast, the float32 score-sized tensor that recomputing an explicit
      block adds (``recompute_extra``) is gone before backward reaches the group's last block,
      where a group of several blocks peaks; the model adds it to that peak anyway. Where
      the heads' scores weigh less against the rest of the block (GPT-2 XL's and the 7B
      shape's traced rows) the group peaks while the tensor is alive and the model holds, so
      a page names the term only beside a row the model misses (:func:`gap_note`).
    """
    if config.get("block") != "transformer":
        return None
    compute = memory_model.ITEMSIZE[config.get("autocast") or config["dtype"]]
    fallback = config.get("attention") == "fused" and config.get("dropout")
    if fallback and config["dtype"] == "float32" and row["strategy"] == "selective":
        boundary = config["batch"] * config["tokens"] * config["hidden"] * compute
        return (
            "the scaled scores q·kᵀ·d^-½ of the explicit ops, which SDPA's CPU math fallback "
            "(dropout on) never makes: it scales q and k before the matmul",
            _score_bytes(config, compute) - 2 * boundary,
        )
    grouped = row["strategy"] == "groups" and row["layers_per_group"] > 1
    if config.get("autocast") and config.get("attention") == "explicit" and grouped:
        return (
            "the float32 score-sized tensor of recomputing a block under CPU bfloat16 "
            "autocast: freed before the group's last block runs backward, where the group peaks",
            _score_bytes(config, memory_model.ITEMSIZE[config["dtype"]]),
        )
    return None


def model_gap(config: dict[str, Any], row: dict[str, Any]) -> str | None:
    """The term the memory model is known to leave out of ``row``'s activation peak (or count
    in it without the run holding it), with its size, or None."""
    if row["strategy"] == "offload":
        return "the host copies: on a CPU, and in a trace of CPU kernels, the host is the device"
    fallback = config.get("attention") == "fused" and config.get("dropout")
    if config.get("block") == "transformer" and fallback and config["dtype"] != "float32":
        return (
            "SDPA's math fallback on CPU (dropout on) computes bfloat16 attention in float32: "
            "float32 score-sized tensors the model does not count"
        )
    counted = over_count(config, row)
    if counted:
        term, size = counted
        return f"over-counted: {term}, {fmt_bytes(size)}"
    return None


def gap_note(config: dict[str, Any], row: dict[str, Any], peak: float) -> str:
    """Beside a ratio beyond the tolerance: by how much, and the term the model leaves out."""
    predicted = row["predicted_peak_bytes"]
    if not predicted or abs(peak / predicted - 1) <= MODEL_TOLERANCE:
        return ""
    term = model_gap(config, row) or "not explained"
    return f" <small>beyond the model: {fmt_bytes(peak - predicted)}, {esc(term)}</small>"


def traced_file(results: list[Results]) -> Results:
    """The traced file among ``results`` (the traced views need one: without it the engine
    refuses the embed, naming the command that makes it)."""
    return next(result for result in results if result.kind == "traced")


def view_traced(results: list[Results]) -> str:
    """The GPU configuration at full size, every strategy and precision, traced."""
    return _runs_view(traced_file(results), "gpu", "GPU configuration")


def view_traced_presets(results: list[Results]) -> str:
    """The planner's presets, every strategy, traced."""
    return _runs_view(traced_file(results), "presets", "Planner preset")


# The rows of the FSDP table: (label, the traced row's keys summed, the model's key or None).
_FSDP_CATEGORIES = (
    ("Sharded parameters", ("sharded_parameter_bytes",), "parameter_bytes"),
    ("Sharded gradients", ("sharded_gradient_bytes", "unsharded_gradient_bytes"), "gradient_bytes"),
    ("Optimizer state", ("optimizer_bytes",), "optimizer_bytes"),
    ("Unsharded (gathered) parameters", ("unsharded_parameter_bytes",),
     "unsharded_parameter_bytes"),
    ("All-gather buffer", ("all_gather_bytes",), "all_gather_bytes"),
    ("Reduce-scatter buffer", ("reduce_scatter_bytes",), "reduce_scatter_bytes"),
    ("Activations and backward's temporaries",
     ("activation_bytes", "temporary_bytes", "input_bytes", "buffer_bytes"), None),
    ("Rank's peak", ("total_bytes",), None),
)  # fmt: skip
_LAYOUTS = {
    "root": "the loop calls the sharded model",
    "blocks": "the blocks called one by one, each its own FSDP root",
}


def view_traced_fsdp(results: list[Results]) -> str:
    """One FSDP rank by category at the step's peak, traced on fake ranks, beside the memory
    model's count of each category; rows that could not be traced are named, not zeroed."""
    result = traced_file(results)
    runs = result.data.get("fsdp")
    if not runs:
        raise BenchmarkError(f"{result.path}: no fsdp part; run {result.regenerate}")
    traced = [r for r in runs if "error" not in r]
    heads = [f"{r['name']}, rank 0 of {r['world']}: {_LAYOUTS[r['layout']]}" for r in traced]
    lines = [
        '<div class="benchmark benchmark-traced-fsdp">',
        *_open_table(
            "FSDP, every block checkpointed, whole step with Adam: one rank's bytes by "
            f"category at its peak, <strong>{LABEL}</strong> (fake process group); each cell "
            "traced, then the memory model's count",
            ("Per rank", *heads),
        ),
    ]
    for label, keys, model_key in _FSDP_CATEGORIES:
        cells = []
        for row in traced:
            cell = fmt_bytes(sum(row[k] for k in keys))
            if model_key:
                cell += f" <small>model {fmt_bytes(fsdp_model(row)[model_key])}</small>"
            cells.append(f"<td>{cell}</td>")
        lines.append(f'<tr><th scope="row">{esc(label)}</th>{"".join(cells)}</tr>')
    lines += ["</tbody>", "</table>"]
    for row in runs:
        if "error" in row:
            lines.append(
                f'<p class="benchmark-note">Not traced: {esc(row["name"])} on {row["world"]} '
                f"ranks, {esc(_LAYOUTS[row['layout']])} ({esc(row['error'])}).</p>"
            )
    lines += [_provenance_line(result), "</div>"]
    return "\n".join(lines)


def fsdp_model(row: dict[str, Any]) -> dict[str, float]:
    """The memory model's shards and FSDP buffers for a traced FSDP row's configuration."""
    config, world = row["config"], row["world"]
    size = memory_model.ITEMSIZE[config["dtype"]]
    params, tensors = memory_model.block_parameters(config["block"], config["hidden"])
    layers = config["layers"]
    return {
        **memory_model.state_bytes(layers * params, layers * tensors, size, world),
        **memory_model.fsdp_bytes(
            config["block"], config["hidden"], layers, size, world, row["layout"]
        ),
    }


def _runs_view(result: Results, part: str, what: str) -> str:
    parts = ['<div class="benchmark benchmark-traced">']
    for run in result.data[part]:
        parts += _run_table(run, f"{what} {run['name']}")
    parts += [_provenance_line(result), "</div>"]
    return "\n".join(parts)


def _label(row: dict[str, Any]) -> str:
    label = esc(strategy_name(row))
    if describe_parameter(row) != "—":
        label += f" <small>{esc(describe_parameter(row))}</small>"
    return label


def _ratio(value: float, reference: float) -> str:
    return f"× {value / reference:.3f}" if reference else "—"


def _run_table(run: dict[str, Any], title: str) -> list[str]:
    state = run["state"]
    resident = state["parameter_bytes"] + state["gradient_bytes"] + state["optimizer_bytes"]
    head = (
        "Strategy",
        "Activation peak",
        "Model's activation peak (traced / model)",
        "Whole-step peak",
        "Model's whole step (traced / model)",
    )
    lines = _open_table(
        f"{esc(title)}: {esc(describe_run(run['config']))}, whole step with Adam, "
        f"<strong>{LABEL}</strong>. Resident: {fmt_bytes(resident)}",
        head,
    )
    for row in run["rows"]:
        lines.append(
            f'<tr><th scope="row">{_label(row)}</th>'
            f"<td>{fmt_bytes(row['peak_bytes'])}</td>"
            f"<td>{fmt_bytes(row['predicted_peak_bytes'])} <small>"
            f"{_ratio(row['peak_bytes'], row['predicted_peak_bytes'])}</small>"
            f"{gap_note(run['config'], row, row['peak_bytes'])}</td>"
            f"<td>{fmt_bytes(row['step_peak_bytes'])}</td>"
            f"<td>{fmt_bytes(row['predicted_step_peak_bytes'])} <small>"
            f"{_ratio(row['step_peak_bytes'], row['predicted_step_peak_bytes'])}</small></td></tr>"
        )
    lines += ["</tbody>", "</table>"]
    if run["cuda_differs"]:
        lines.append(f'<p class="benchmark-note">On CUDA: {esc(run["cuda_differs"])}.</p>')
    for missing in run["untraced"]:
        param = describe_parameter(missing)
        what = strategy_name(missing) + (f", {param}" if param != "—" else "")
        lines.append(
            f'<p class="benchmark-note">Not traced: {esc(what)} ({esc(missing["error"])}).</p>'
        )
    return lines


def same_run(traced: dict[str, Any], measured: dict[str, Any]) -> bool:
    return all(traced.get(k) == measured.get(k) for k in SAME_RUN)


def pairs(traced: Results, measured: Results) -> list[tuple[dict, dict]]:
    """(traced run, measured run) for every measured run the traced file holds: a CPU file's
    runs in its check, a GPU file's among its full-size GPU configurations."""
    found = []
    part = traced.data["gpu" if measured.on_gpu else "cpu_check"]
    for run in step_runs(measured):
        match = [t for t in part if same_run(t["config"], run["config"])]
        if match:
            found.append((match[0], run))
    return found


def view_traced_check(results: list[Results]) -> str:
    """Each measured row beside the same configuration traced, and the model beside both: the
    CPU rows first (the tracer's check), then any GPU file's (where CUDA's kernels differ from
    the CPU kernels traced, the note under the run names how)."""
    traced = traced_file(results)
    parts = ['<div class="benchmark benchmark-traced-check">']
    measured_files = [r for r in results if r.kind != "traced"]
    for measured in sorted(measured_files, key=lambda r: r.on_gpu):
        for run, reference in pairs(traced, measured):
            parts += _check_table(run, reference, measured)
            if measured.on_gpu and run["cuda_differs"]:
                parts.append(
                    f'<p class="benchmark-note">Traced on CPU kernels; on CUDA: '
                    f"{esc(run['cuda_differs'])}.</p>"
                )
        parts.append(_provenance_line(measured))
    parts += [_provenance_line(traced), "</div>"]
    return "\n".join(parts)


def _check_table(run: dict[str, Any], reference: dict[str, Any], measured: Results) -> list[str]:
    head = (
        "Strategy",
        "Activation peak, measured",
        "Traced (traced / measured)",
        "Model (measured / model)",
        "Whole-step peak, measured",
        "Traced (traced / measured)",
    )
    lines = _open_table(
        f"The tracer against the measurement on {esc(measured.device['name'])}: "
        f"{esc(describe_run(reference['config']))}",
        head,
    )
    traced_rows = {_key(r): r for r in run["rows"]}
    for row in reference["rows"]:
        got = traced_rows.get(_key(row))
        if row["status"] != "ok" or got is None:
            why = "not traced" if got is None else "not measured"
            lines.append(f'<tr><th scope="row">{_label(row)}</th><td colspan="5">{why}</td></tr>')
            continue
        lines.append(
            f'<tr><th scope="row">{_label(row)}</th>'
            f"<td>{fmt_bytes(row['peak_bytes'])}</td>"
            f"<td>{fmt_bytes(got['peak_bytes'])} <small>"
            f"{_ratio(got['peak_bytes'], row['peak_bytes'])}</small></td>"
            f"<td>{fmt_bytes(row['predicted_peak_bytes'])} <small>"
            f"{_ratio(row['peak_bytes'], row['predicted_peak_bytes'])}</small>"
            f"{gap_note(reference['config'], row, row['peak_bytes'])}</td>"
            f"<td>{fmt_bytes(row['step_peak_bytes'])}</td>"
            f"<td>{fmt_bytes(got['step_peak_bytes'])} <small>"
            f"{_ratio(got['step_peak_bytes'], row['step_peak_bytes'])}</small></td></tr>"
        )
    lines += ["</tbody>", "</table>"]
    return lines


def _key(row: dict[str, Any]) -> tuple:
    return row["strategy"], row["layers_per_group"], row["segments"]


def _open_table(caption: str, head: tuple[str, ...]) -> list[str]:
    """A table's opening lines: ``caption`` (already escaped HTML) and a header row."""
    return [
        "<table>",
        f"<caption>{caption}</caption>",
        "<thead><tr>" + "".join(f'<th scope="col">{esc(h)}</th>' for h in head) + "</tr></thead>",
        "<tbody>",
    ]
