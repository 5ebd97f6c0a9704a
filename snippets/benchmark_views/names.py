"""Strategy names and the measured model's shape as a reader sees them, shared by the tables,
the plots and the traced views, so a table cell, a plot's legend and a caption never disagree.
"""

from __future__ import annotations

from typing import Any

from mkdocs_course.benchmarks.formatting import fmt_bytes
from mkdocs_course.benchmarks.results import Results

STRATEGY_NAMES = {
    "none": "No checkpointing",
    "groups": "checkpoint() per group",
    "segments": "checkpoint_sequential()",
    "selective": "Selective (save matmuls)",
    "selective-attention": "Selective (recompute attention core)",
    "offload": "CPU offload (save_on_cpu)",
}


def strategy_name(row: dict[str, Any]) -> str:
    """The strategy's display name; an unknown strategy shows as recorded."""
    return STRATEGY_NAMES.get(row["strategy"], row["strategy"])


def describe_parameter(row: dict[str, Any]) -> str:
    """Always named: "2 layers per group", "5 segments" (never a bare k)."""
    if row.get("layers_per_group") is not None:
        n = row["layers_per_group"]
        return f"{n} layer{'' if n == 1 else 's'} per group"
    if row.get("segments") is not None:
        return f"{row['segments']} segments"
    return "—"


def strategy_label(row: dict[str, Any]) -> str:
    """Strategy and parameter on one line, for running text: "checkpoint() per group, 2 ..."."""
    name = strategy_name(row)
    param = describe_parameter(row)
    return name if param == "—" else f"{name}, {param}"


def describe_shape(result: Results) -> str:
    """The measured model's size in a sentence, so numbers are never read without their scale."""
    c = result.data["config"]
    return (
        f"{c['layers']} blocks, input [{c['batch']}, {c['tokens']}, {c['hidden']}] {c['dtype']}, "
        f"a = {fmt_bytes(result.data['model']['boundary_bytes'])} per block boundary"
    )
