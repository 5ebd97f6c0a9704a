"""Fewer elements for the same formula: latex2mathml wraps every formula, and every square
root's content, in an ``<mrow>`` of its own. ``<math>`` and ``<msqrt>`` already treat their
children as one row (MathML's inferred mrow), so an ``<mrow>`` that is their only child renders
the same without its tags. A lesson page shows over a hundred formulas; each element a page
holds costs style and layout before the first paint.
"""

from __future__ import annotations

import re

_TAG = re.compile(r"<(/?)([a-zA-Z][\w:-]*)[^>]*?(/?)>")
_ROWS = frozenset({"math", "msqrt"})  # elements whose children form an inferred mrow


def without_inferred_rows(mathml: str) -> str:
    """``mathml`` (well formed, as :func:`tools.render.safe_html.safe_mathml` writes it) without
    the ``<mrow>`` tags of each mrow that is the only content of a ``<math>`` or ``<msqrt>``."""
    # Each open element: [name, start of its open tag, end of it, children, text seen, mrow child]
    stack: list[list] = []
    drop: list[tuple[int, int]] = []  # spans of tags to remove
    last = 0
    for match in _TAG.finditer(mathml):
        if stack and mathml[last : match.start()].strip():
            stack[-1][4] = True
        last = match.end()
        closing, name, empty = match.group(1), match.group(2), match.group(3)
        if empty:
            if stack:
                stack[-1][3] += 1
            continue
        if not closing:
            if stack:
                stack[-1][3] += 1
            stack.append([name, match.start(), match.end(), 0, False, None])
            continue
        element = stack.pop()
        if stack and name == "mrow":
            parent = stack[-1]
            parent[5] = (element[1], element[2], match.start(), match.end())
        if name in _ROWS and element[3] == 1 and not element[4] and element[5]:
            open_start, open_end, close_start, close_end = element[5]
            drop += [(open_start, open_end), (close_start, close_end)]
    if not drop:
        return mathml
    out, at = [], 0
    for start, end in sorted(drop):
        out.append(mathml[at:start])
        at = end
    out.append(mathml[at:])
    return "".join(out)
