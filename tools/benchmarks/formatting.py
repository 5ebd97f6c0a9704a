"""Numbers, units and strategy names as a reader sees them, shared by the tables and the plots.

One place decides how a byte count or a strategy is written, so a table cell, a plot axis and a
chart's aria-label never disagree.
"""

from __future__ import annotations

import html
from typing import Any

from tools.benchmarks.results import Results

_BYTE_UNITS = (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10))

STRATEGY_NAMES = {
    "none": "No checkpointing",
    "groups": "checkpoint() per group",
    "segments": "checkpoint_sequential()",
    "selective": "Selective (save matmuls)",
    "selective-attention": "Selective (recompute attention core)",
    "offload": "CPU offload (save_on_cpu)",
}


def esc(text: object) -> str:
    """Text made safe for HTML and SVG, attribute values included."""
    return html.escape(str(text), quote=True)


def byte_unit(n: float) -> tuple[str, float]:
    """The largest binary unit that ``n`` bytes reach, and its size in bytes."""
    for unit, size in _BYTE_UNITS:
        if n >= size:
            return unit, size
    return "B", 1


def fmt_bytes(n: float | None) -> str:
    """Binary units at about three significant figures; ``None`` (not measured) is a dash."""
    if n is None:
        return "—"
    unit, size = byte_unit(abs(n))
    if size == 1:
        return f"{n:.0f} B"
    value = n / size
    digits = 2 if value < 10 else 1 if value < 100 else 0
    return f"{value:.{digits}f} {unit}"


def fmt_time(seconds: float | None) -> str:
    """Milliseconds for a training step, seconds only where steps get that slow."""
    if seconds is None:
        return "—"
    if seconds >= 10:
        return f"{seconds:.1f} s"
    ms = seconds * 1e3
    return f"{ms:.3g} ms" if ms < 100 else f"{ms:.0f} ms"


def fmt_percent(x: float) -> str:
    """A signed whole percentage: an overhead of 0.31 is "+31%"."""
    return f"{x * 100:+.0f}%"


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
