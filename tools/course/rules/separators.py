"""Stray ``:::``: card lines and ``:::`` blocks where they would silently not be course items."""

from __future__ import annotations

import re

from . import html
from .source import PageState, Source
from .tokens import separators_by_line

_ADMONITION_START = re.compile(r"^\s*(?:!!!|\?\?\?\+?)\s*[A-Za-z]")
_NESTED_CONTAINER = (
    "a ':::' block inside a list, quote or admonition is not a course item: put it at the top "
    "level, unindented"
)
_IN_ADMONITION = (
    "':::' in an admonition (its indented body is code to the checker): no card or quiz there is "
    "a course item, so it would be missing from the deck and shown as text; put it at the top level"
)


def stray_separators(state: PageState) -> None:
    """Report ``:::`` lines where they would silently not be course items: nested in lists or
    quotes, in an admonition's body (indented text is code to CommonMark), or in a nested HTML
    block; and quiz or benchmark blocks that are not at the top level.

    One error per top-level list or quote, at its first card line: a card in a list makes every
    line after it, up to a blank line, part of the same item, so one mistake holds many lines.
    """
    src = state.src
    quiz_depth = 0
    found: dict[int, tuple[str, list[int]]] = {}  # top-level block's first line -> kind, lines
    block = (0, "list")
    for token in state.tokens:
        if token.level == 0 and token.nesting == 1 and token.map:
            block = (token.map[0], "quote" if token.type == "blockquote_open" else "list")
        if token.type.startswith("container_quiz_"):
            if token.nesting == 1 and token.level > 0 and not quiz_depth and token.map:
                src.error(token.map[0], _NESTED_CONTAINER)
            quiz_depth += 1 if token.nesting == 1 else -1
        elif token.type == "container_benchmark_open" and token.level > 0 and token.map:
            src.error(token.map[0], _NESTED_CONTAINER)
        elif token.type == "inline" and token.level > 1 and token.map and not quiz_depth:
            lines = [token.map[0] + offset for offset in sorted(separators_by_line(token))]
            if lines:
                found.setdefault(block[0], (block[1], []))[1].extend(lines)
        elif token.type == "code_block" and token.map and _admonition_body(src, token.map[0]):
            html.separator_lines(src, token, _IN_ADMONITION)
        elif token.type == "html_block" and token.level > 0:
            html.lost_cards(src, token)
    for kind, lines in found.values():
        message = "flashcards must be top-level paragraphs, not inside lists or quotes"
        if len(lines) > 1:
            message += (
                f" (this {kind} holds {len(lines)} card lines, {lines[0] + 1} to {lines[-1] + 1}:"
                " take them out of it, after a blank line)"
            )
        src.error(lines[0], message)


def _admonition_body(src: Source, line0: int) -> bool:
    """Whether the indented block starting at ``line0`` follows an ``!!!``/``???`` line."""
    above = [line for line in src.lines[:line0] if line.strip()]
    return bool(above) and bool(_ADMONITION_START.match(above[-1]))
