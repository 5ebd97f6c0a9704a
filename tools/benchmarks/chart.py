"""A small hand-written SVG plotting surface for the plot views: :class:`Chart` (linear axes, for
points and lines) and :class:`Bars` (horizontal stacked bars, one row per strategy).

Hand-written rather than matplotlib: importing matplotlib would cost the build seconds, and its
SVG carries random ids, so the same results would not give the same bytes. Colours work on light
and on Material's dark "slate" pages, text follows the page colour (``currentColor``), and series
also differ by marker shape and dash pattern, so colour is never the only cue.

A bar chart's segments are drawn as one path per colour, not one rect each: every element a page
holds costs its parsing and style, and the figures they stand for are in the view's tables and
in the chart's label and text.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Callable

from .formatting import esc

# The canvas: the text column's width at 12 px text.
_W, _H = 680, 400
# The canvas's classes (colours, strokes) are styled by the site's stylesheet, once a page
# (``tools/plugin/static/course.css``, "Charts"), not by a copy in every figure.
# The margins around the plot area that hold ticks, axis titles and the legend.
_LEFT, _RIGHT, _TOP, _BOTTOM = 72, 20, 44, 56
_CHAR_WIDTH = 7.0  # rough width of one character of 12px sans-serif, for laying out text
# Where a point's label may go, nearest first: right, left, above, below, then the diagonals,
# each tried again further out.
_LABEL_SPOTS = [
    (dx, dy, anchor)
    for reach in (0, 12, 24)
    for dx, dy, anchor in (
        (8, 4, "start"),
        (-8, 4, "end"),
        (0, -10 - reach, "middle"),
        (0, 18 + reach, "middle"),
        (8, -8 - reach, "start"),
        (8, 16 + reach, "start"),
        (-8, -8 - reach, "end"),
        (-8, 16 + reach, "end"),
    )
]

Box = tuple[float, float, float, float]  # left, top, right, bottom


def _ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """'Nice' tick values covering [lo, hi]."""
    if hi <= lo:
        hi = lo + 1
    raw = (hi - lo) / count
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    start = math.floor(lo / step) * step
    ticks, value = [], start
    while value <= hi + step * 1e-9:
        ticks.append(round(value, 10))
        value += step
    if ticks[-1] < hi:
        ticks.append(round(value, 10))
    return ticks


def _num(x: float) -> str:
    """A tick label: whole numbers without a decimal point, others to one decimal."""
    return f"{x:.1f}".rstrip("0").rstrip(".") if abs(x - round(x)) > 1e-9 else f"{round(x)}"


def _at(v: float) -> str:
    """An SVG coordinate: layout constants (ints) as they are, computed positions to 0.1 px."""
    return str(v) if isinstance(v, int) else f"{v:.1f}"


def _overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _inside(box: Box) -> bool:
    return _LEFT < box[0] < box[2] < _W - _RIGHT and _TOP < box[1] < box[3] < _H - _BOTTOM


class _Placed:
    """Boxes already on the plot, filed by the grid cells they touch, so a new box is compared
    only with its neighbours: placing n labels costs O(n), not O(n^2)."""

    CELL = 48.0
    CROWDED = 32

    def __init__(self, boxes: list[Box]) -> None:
        self._cells: dict[tuple[int, int], list[Box]] = {}
        for box in boxes:
            self.add(box)

    def _keys(self, box: Box) -> list[tuple[int, int]]:
        x0, y0 = int(box[0] // self.CELL), int(box[1] // self.CELL)
        x1, y1 = int(box[2] // self.CELL), int(box[3] // self.CELL)
        return [(cx, cy) for cx in range(x0, x1 + 1) for cy in range(y0, y1 + 1)]

    def add(self, box: Box) -> None:
        for key in self._keys(box):
            self._cells.setdefault(key, []).append(box)

    def free(self, box: Box) -> bool:
        """No overlap; a cell holding :data:`CROWDED` boxes (more than fit in it side by side)
        counts as taken without comparing, so each look costs at most a constant."""
        cells = [self._cells.get(key, []) for key in self._keys(box)]
        if any(len(cell) >= self.CROWDED for cell in cells):
            return False
        return not any(_overlaps(box, other) for cell in cells for other in cell)


def _place_label(x: float, y: float, width: float, placed: _Placed) -> tuple[float, float, str]:
    """First spot near (x, y) whose text box is free and inside the plot; records the box.
    Crowded everywhere: the nearest inside spot, not recorded (later labels still look for
    free room, and a pile of overlapping boxes never grows)."""
    fallback = None
    for dx, dy, anchor in _LABEL_SPOTS:
        left = x + dx - {"start": 0, "end": width, "middle": width / 2}[anchor]
        box = (left, y + dy - 11, left + width, y + dy + 3)
        if not _inside(box):
            continue
        fallback = fallback or (dx, dy, anchor)
        if placed.free(box):
            placed.add(box)
            return dx, dy, anchor
    return fallback or (8.0, 4.0, "start")


class Chart:
    """A plot area with linear axes; methods take data values or pixel positions as named."""

    def __init__(self, x_range: tuple[float, float], y_range: tuple[float, float]) -> None:
        self.xt = _ticks(*x_range)
        self.yt = _ticks(*y_range)
        self.parts: list[str] = []

    def x(self, v: float) -> float:
        """Pixel position of data value ``v`` on the x axis."""
        lo, hi = self.xt[0], self.xt[-1]
        return _LEFT + (v - lo) / (hi - lo) * (_W - _LEFT - _RIGHT)

    def y(self, v: float) -> float:
        """Pixel position of data value ``v`` on the y axis."""
        lo, hi = self.yt[0], self.yt[-1]
        return _H - _BOTTOM - (v - lo) / (hi - lo) * (_H - _TOP - _BOTTOM)

    def line(self, cls: str, x1: float, x2: float, y1: float, y2: float) -> None:
        self.parts.append(
            f'<line class="{cls}" x1="{_at(x1)}" x2="{_at(x2)}" y1="{_at(y1)}" y2="{_at(y2)}"/>'
        )

    def text(self, x: float, y: float, content: str, anchor: str | None = None) -> None:
        self.parts.append(_text(x, y, content, anchor))

    def axes(self, x_label: str, y_label: str) -> None:
        """Grid lines, ticks and their labels, both axes and their titles."""
        for v in self.yt:
            y = self.y(v)
            self.line("bm-grid", _LEFT, _W - _RIGHT, y, y)
            self.text(_LEFT - 8, y + 4, _num(v), "end")
        for v in self.xt:
            x = self.x(v)
            self.line("bm-axis", x, x, _H - _BOTTOM, _H - _BOTTOM + 5)
            self.text(x, _H - _BOTTOM + 19, _num(v), "middle")
        self.line("bm-axis", _LEFT, _W - _RIGHT, _H - _BOTTOM, _H - _BOTTOM)
        self.line("bm-axis", _LEFT, _LEFT, _TOP, _H - _BOTTOM)
        self.text((_LEFT + _W - _RIGHT) / 2, _H - 12, x_label, "middle")
        self.parts.append(
            f'<text transform="translate(16 {(_TOP + _H - _BOTTOM) / 2:.1f}) rotate(-90)" '
            f'text-anchor="middle">{esc(y_label)}</text>'
        )

    def reference(self, label: str, *, x: float | None = None, y: float | None = None) -> None:
        """A dotted line across the plot at data value ``x`` (vertical) or ``y`` (horizontal)."""
        if y is not None:
            py = self.y(y)
            self.line("bm-ref", _LEFT, _W - _RIGHT, py, py)
            self.text(_W - _RIGHT - 4, py - 6, label, "end")
        elif x is not None:
            px = self.x(x)
            self.line("bm-ref", px, px, _TOP, _H - _BOTTOM)
            self.text(px - 4, _TOP + 12, label, "end")

    def marker(self, shape: str, cls: str, x: float, y: float, hollow: bool = False) -> None:
        """A marker centred on pixel (x, y); hollow marks a prediction."""
        c = f"{cls} bm-hollow" if hollow else f"{cls} bm-mark"
        if shape == "square":
            self.parts.append(
                f'<rect class="{c}" x="{x - 4:.1f}" y="{y - 4:.1f}" width="8" height="8"/>'
            )
        elif shape == "triangle":
            pts = f"{x:.1f},{y - 5:.1f} {x + 5:.1f},{y + 4:.1f} {x - 5:.1f},{y + 4:.1f}"
            self.parts.append(f'<polygon class="{c}" points="{pts}"/>')
        elif shape == "diamond":
            pts = f"{x:.1f},{y - 5:.1f} {x + 5:.1f},{y:.1f} {x:.1f},{y + 5:.1f} {x - 5:.1f},{y:.1f}"
            self.parts.append(f'<polygon class="{c}" points="{pts}"/>')
        else:
            self.parts.append(f'<circle class="{c}" cx="{x:.1f}" cy="{y:.1f}" r="4"/>')

    def polyline(self, cls: str, points: list[tuple[float, float]]) -> None:
        """A line through data points."""
        pts = " ".join(f"{self.x(a):.1f},{self.y(b):.1f}" for a, b in points)
        self.parts.append(f'<polyline class="{cls}" points="{pts}"/>')

    def label_points(self, points: list[tuple[float, float, str]]) -> None:
        """Label markers at pixel (x, y) where a label covers neither a marker nor a label."""
        placed = _Placed([(x - 6, y - 6, x + 6, y + 6) for x, y, _ in points])
        for x, y, content in points:
            dx, dy, anchor = _place_label(x, y, _CHAR_WIDTH * len(content), placed)
            self.text(x + dx, y + dy, content, anchor)

    def legend(self, items: list[tuple[str, str, str, bool]], lines: bool = True) -> None:
        """(shape, colour class, text, dashed) entries in one row above the plot area."""
        x: float = _LEFT
        for shape, cls, content, dashed in items:
            if lines:
                self.line(f"{cls} bm-line" + (" bm-pred" if dashed else ""), x, x + 22, 18, 18)
            self.marker(shape, cls, x + 11, 18, hollow=dashed)
            self.text(x + 28, 22, content)
            x += 44 + _CHAR_WIDTH * len(content)

    def svg(self, label: str, title: str) -> str:
        """The finished chart; ``label`` is its aria-label, what a sighted reader sees in it."""
        return _svg(_H, label, title, self.parts)


class Bars:
    """Horizontal bars from zero, every bar a stack of coloured segments in the order the legend
    names them (so the order is a cue besides the colour), each name on its own line above its
    bar and the bar's figure after it; the canvas grows with the rows instead of squeezing them.

    One drawing serves every width. Its text is placed in pixels on a canvas with no viewBox, so
    it keeps its 12 px on a phone as on a desktop; its bars, grid and ticks are placed in
    percentages of the canvas's width (the segments and lines in a nested canvas stretched
    sideways only), so the bars fill whatever column they are in. What cannot stretch, the
    legend's lines and a long heading's, is laid out for the narrowest column,
    :data:`MIN_WIDTH`. The page then holds, parses and lays out the figure once, not a wide and a
    stacked drawing of which it shows one."""

    MIN_WIDTH, LEFT, RIGHT, LINE, BOTTOM = 340, 8, 64, 18, 46
    # The bars' share of the canvas's width: all of it at MIN_WIDTH but the left margin and the
    # room after the longest bar for its figure.
    SPAN = 100 * (MIN_WIDTH - LEFT - RIGHT) / MIN_WIDTH
    UNITS = 1000  # the nested canvas's width in its own units: the bars' positions, to 0.1 unit

    def __init__(self, maximum: float) -> None:
        self.xt = _ticks(0, maximum)
        self.parts: list[str] = []
        self.segments = _Segments()
        self.title = ""
        self.top = self.y = 0.0  # where the bars start (under the legend); the next row's top

    def _units(self, v: float) -> float:
        """Data value ``v`` on the nested canvas's axis."""
        return v / self.xt[-1] * self.UNITS

    def _at_value(self, v: float, dx: float, anchor: str | None = None) -> str:
        """A text's x for data value ``v``: its percentage of the canvas, then ``dx`` pixels on
        from the left margin."""
        align = f' text-anchor="{anchor}"' if anchor else ""
        return f'x="{v / self.xt[-1] * self.SPAN:.2f}%" dx="{_at(self.LEFT + dx)}"{align}'

    def heading(self, text: str) -> None:
        """A line that names the group of bars under it, wrapped at word breaks (bold text is
        wider)."""
        lines = textwrap.wrap(text, int((self.MIN_WIDTH - 2 * self.LEFT) / 7.5))
        spans = "".join(
            f'<tspan x="{self.LEFT}" dy="{0 if i == 0 else self.LINE}">{esc(line)}</tspan>'
            for i, line in enumerate(lines)
        )
        self.parts.append(f'<text y="{_at(self.y + 14)}" font-weight="bold">{spans}</text>')
        self.y += self.LINE * len(lines) + 4

    def bar(self, name: str, segments: list[tuple[str, float]], end: str) -> None:
        """A bar: its name, then ``(colour class, value)`` segments stacked left to right, and
        ``end`` written after the bar."""
        self.parts.append(_text(self.LEFT, self.y + 12, name))
        self.segments.bar(segments, self._units, self.y + 17)
        total = sum(value for _, value in segments)
        self.parts.append(
            f'<text {self._at_value(total, 6)} y="{_at(self.y + 28)}">{esc(end)}</text>'
        )
        self.y += 2 * self.LINE + 2

    def note(self, name: str, text: str) -> None:
        """A row without a bar (a configuration that ran out of memory): its name, a text."""
        self.parts += [
            _text(self.LEFT, self.y + 12, name),
            _text(self.LEFT, self.y + 12 + self.LINE, text),
        ]
        self.y += 2 * self.LINE + 2

    def axis(self, title: str) -> None:
        """The axis's title, written under its ticks once the rows are drawn."""
        self.title = title

    def legend(self, items: list[tuple[str, str]]) -> None:
        """(colour class, text) entries above the bars, in stacking order, wrapped at the
        narrowest canvas's edge; drawn first, the rows go under it."""
        x, y = float(self.LEFT), 12.0
        for cls, content in items:
            width = 32 + _CHAR_WIDTH * len(content)
            if x > self.LEFT and x + width - 12 > self.MIN_WIDTH:
                x, y = float(self.LEFT), y + self.LINE
            self.parts += _swatch(cls, content, x, y)
            x += width
        self.top = self.y = y + self.LINE + 8

    def svg(self, label: str, title: str) -> str:
        """The finished chart; ``label`` is its aria-label, what a sighted reader sees in it."""
        top, bottom = self.top, self.y + 4
        height = round(bottom + self.BOTTOM)
        lines = [
            f'<line class="bm-grid" x1="{self._units(v):.1f}" x2="{self._units(v):.1f}" '
            f'y1="{top:.1f}" y2="{bottom:.1f}"/>'
            for v in self.xt
        ]
        lines.append(
            f'<line class="bm-axis" x1="0" x2="{self.UNITS}" y1="{bottom:.1f}" y2="{bottom:.1f}"/>'
        )
        ticks = [
            f'<text {self._at_value(v, 0, "middle")} y="{_at(bottom + 18)}">{_num(v)}</text>'
            for v in self.xt
        ]
        axis_title = (
            f'<text {self._at_value(self.xt[-1] / 2, 0, "middle")} y="{height - 8}">'
            f"{esc(self.title)}</text>"
        )
        # Stretched sideways only: its lines and the segments' edges keep their pixel width.
        bars = (
            f'<svg x="{self.LEFT}" width="{self.SPAN:.2f}%" height="{height}" '
            f'viewBox="0 0 {self.UNITS} {height}" preserveAspectRatio="none">'
            + "".join(lines + self.segments.paths())
            + "</svg>"
        )
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="100%" height="{height}" role="img" '
            f'aria-label="{esc(label)}" class="benchmark-svg" '
            'style="font:12px sans-serif;fill:currentColor">'
            f"<title>{esc(title)}</title>"
            + "".join([*self.parts, *ticks, axis_title, bars])
            + "</svg>"
        )


class _Segments:
    """A bar chart's segments, gathered by colour class: each class is one ``<path>`` of a
    rectangle per segment, in the order the bars were added."""

    def __init__(self) -> None:
        self._by_class: dict[str, list[str]] = {}

    def bar(
        self, segments: list[tuple[str, float]], x: Callable[[float], float], top: float
    ) -> float:
        """One bar's ``(colour class, value)`` segments, stacked from zero on the axis that
        ``x`` maps values onto, 13 px tall from ``top``; returns where the bar ends."""
        start = 0.0
        for cls, value in segments:
            x0, x1 = x(start), x(start + value)
            width = f"{x1 - x0:.1f}"
            self._by_class.setdefault(cls, []).append(f"M{x0:.1f} {top:.1f}h{width}v13h-{width}z")
            start += value
        return x(start)

    def paths(self) -> list[str]:
        return [
            f'<path class="{cls} bm-mark bm-seg" d="{"".join(rects)}"/>'
            for cls, rects in self._by_class.items()
        ]


def _swatch(cls: str, content: str, x: float, y: float) -> list[str]:
    """A legend entry: a colour swatch whose top is at ``y``, its text after it."""
    return [
        f'<rect class="{cls} bm-mark bm-seg" x="{x:.1f}" y="{_at(y)}" width="14" height="10"/>',
        _text(x + 19, y + 9, content),
    ]


def _text(x: float, y: float, content: str, anchor: str | None = None) -> str:
    align = f' text-anchor="{anchor}"' if anchor else ""
    return f'<text x="{_at(x)}" y="{_at(y)}"{align}>{esc(content)}</text>'


def _svg(height: int, label: str, title: str, parts: list[str]) -> str:
    """An inline SVG of the page's width and ``height``: scales down, never overflows its column;
    text and lines follow the page's colour, light or dark."""
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_W} {height}" width="{_W}" '
        f'height="{height}" role="img" aria-label="{esc(label)}" class="benchmark-svg" '
        'style="max-width:100%;height:auto;font:12px sans-serif;fill:currentColor">'
        f"<title>{esc(title)}</title>" + "".join(parts) + "</svg>"
    )


def figure(svg: str, caption: str) -> str:
    """A chart with its caption (already HTML) in the site's benchmark wrapper."""
    return (
        f'<div class="benchmark benchmark-plot">\n<figure>\n{svg}\n'
        f"<figcaption>{caption}</figcaption>\n</figure>\n</div>"
    )
