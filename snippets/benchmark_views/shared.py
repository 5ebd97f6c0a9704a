"""What the tables share: a cell row, ratios, the rule for when rounds can show a difference,
the overhead against its one-forward estimate, and the provenance line under every table.

A step time is a median of rounds that scatter: regenerating a file on the same kind of machine
moves them. So a view says that one time is above or below another (an overhead against its
one-forward estimate, the RNG stash on against off) only where :func:`beyond_spread` says the
rounds can show it; elsewhere it says the difference is within the spread.
"""

from __future__ import annotations

import statistics
from typing import Any

from mkdocs_course.benchmarks.formatting import esc, fmt_percent
from mkdocs_course.benchmarks.results import Results


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
    tds = "".join(f"<td>{cell}</td>" for cell in cells)
    return f'<tr><th scope="row">{label}</th>{tds}</tr>'


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
        return f"{overhead} <small>{small}{f', {verdict}' if verdict else ''}</small>"
    if bound is None:
        return f"{overhead} / none (no recompute)"
    return f"{overhead} / {fmt_percent(bound)}" + (f": {_VERDICTS[verdict]}" if verdict else "")


def _provenance_line(result: Results) -> str:
    prov = result.data["provenance"]
    device = esc(result.device["name"])
    if result.kind == "traced":  # a trace is never a measurement, whoever made it
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
