"""The ``step`` view: the whole training step of every run a results file holds (the MLP rows,
then each transformer run), and the names of a run that the plots and traced views share.
"""

from __future__ import annotations

from typing import Any

from mkdocs_course.benchmarks.formatting import esc, fmt_bytes, fmt_time
from mkdocs_course.benchmarks.results import Results

from snippets.benchmark_views.names import (
    describe_parameter,
    strategy_name,
)
from snippets.benchmark_views.shared import (
    _provenance_line,
    _ratio,
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
            label += f" <small>{esc(describe_parameter(row))}</small>"
        if row["status"] != "ok":
            lines.append(f'<tr><th scope="row">{label}</th><td colspan="5">OOM</td></tr>')
            continue
        ratio = _ratio(row["step_peak_bytes"], row["predicted_step_peak_bytes"])
        act = _ratio(row["peak_bytes"], row["predicted_peak_bytes"])
        share = row["step_peak_bytes"] / none["step_peak_bytes"] if none else None
        spread = row.get("step_time_spread_s")
        timing = fmt_time(row["step_time_s"])
        if spread is not None:
            timing += f" <small>± {fmt_time(spread / 2)} (half the IQR of "
            timing += f"{len(row['step_times_s'])} rounds)</small>"
        lines.append(
            f'<tr><th scope="row">{label}</th>'
            f"<td>{fmt_bytes(row['peak_bytes'])} <small>model "
            f"{fmt_bytes(row['predicted_peak_bytes'])}, "
            f"{'—' if act is None else f'× {act:.2f}'}</small></td>"
            f"<td>{fmt_bytes(row['step_peak_bytes'])}"
            f" <small>{'—' if ratio is None else f'× {ratio:.2f}'}</small></td>"
            f"<td>{fmt_bytes(row['predicted_step_peak_bytes'])}</td>"
            f"<td>{'—' if share is None else f'{share:.0%}'}</td>"
            f"<td>{timing}</td></tr>"
        )
    lines += ["</tbody>", "</table>"]
    return "\n".join(lines)
