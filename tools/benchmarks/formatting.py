"""Numbers and units as a reader sees them, for every course's views: HTML escaping, byte counts,
step times and percentages.

One place decides how a byte count or a time is written, so a table cell, a plot axis and a
chart's aria-label never disagree.
"""

from __future__ import annotations

import html

_BYTE_UNITS = (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10))


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
