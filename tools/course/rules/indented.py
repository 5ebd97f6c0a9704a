"""Indented text: a code block to CommonMark, but to the site the body of whatever the last line
above it opened (an admonition, a definition, a content tab, a footnote), read there as Markdown.
"""

from __future__ import annotations

import re

from .source import Source

_INDENT = re.compile(r"^(?: {4}|\t)")  # a body's indentation (CommonMark's four columns)
_OPENERS = (
    (re.compile(r"^\s*(?:!!!|\?\?\?\+?)\s*[A-Za-z]"), "an admonition's body"),
    (re.compile(r"^\s*:[ \t]"), "a definition"),
    (re.compile(r"^\s*===\+?\s*[\"']"), "a content tab"),
    (re.compile(r"^\s*\[\^[^\]]+\]:"), "a footnote"),
)


def body_of(src: Source, line0: int) -> str | None:
    """What the indented text starting at ``line0`` is the body of, as the message names it
    ("an admonition's body"), or None for an indented code block: the nearest line above it
    that is not blank and not indented as a body is says (the body may start with a paragraph
    that CommonMark joins to that line)."""
    above = next(
        (line for line in reversed(src.lines[:line0]) if line.strip() and not _INDENT.match(line)),
        None,
    )
    if above is None:
        return None
    return next((name for pattern, name in _OPENERS if pattern.match(above)), None)
