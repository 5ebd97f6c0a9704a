"""Links and images: every address on the page, prose and course items alike, with its line (the
link check, :mod:`tools.course.links`, reads them)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from markdown_it.token import Token

from ..model import Reference
from .source import PageState, Source
from .tokens import inline_children, tokenizer

_ADMONITION_OPENER = re.compile(r"^( *)(?:!!!|\?\?\?\+?)[ \t]")


def rule(state: PageState) -> None:
    state.page.references = page_references(state.src, state.tokens, state.src.lines, 0)


def page_references(
    src: Source, tokens: list[Token], lines: list[str], offset: int
) -> list[Reference]:
    """Every link and image address in ``tokens``, with its page line.

    ``lines`` are the page's (or an admonition body's) lines, starting at page line ``offset``.
    An admonition's or collapsible block's body (``!!! note``, ``??? success``, indented four
    spaces) is an indented code block to CommonMark, but Python-Markdown renders it as Markdown
    and MkDocs checks its links: each body is parsed again, dedented, for its own links.
    """
    bodies = list(_admonition_bodies(lines))
    out = [
        ref
        for ref in _references(src, tokens, offset)
        if not any(start <= ref.location.line - 1 - offset < end for start, end, _ in bodies)
    ]
    for start, end, indent in bodies:
        body = [line[indent:] for line in lines[start:end]]
        body_tokens = tokenizer().parse("\n".join(body))
        out.extend(page_references(src, body_tokens, body, offset + start))
    return sorted(out, key=lambda ref: ref.location)


def _admonition_bodies(lines: list[str]) -> Iterator[tuple[int, int, int]]:
    """``(first, end, indent)`` of each admonition body in ``lines`` (0-based, end exclusive)."""
    index = 0
    while index < len(lines):
        opener = _ADMONITION_OPENER.match(lines[index])
        index += 1
        if not opener:
            continue
        indent = " " * (len(opener.group(1)) + 4)
        start = end = index
        while index < len(lines) and (lines[index].startswith(indent) or not lines[index].strip()):
            index += 1
            if lines[index - 1].strip():
                end = index
        if end > start:
            yield start, end, len(indent)
        index = end


def _references(src: Source, tokens: Iterable[Token], offset: int = 0) -> list[Reference]:
    """Every link and image address in ``tokens``' inline tokens, with its page line."""
    out = []
    for token in tokens:
        if token.type != "inline" or token.map is None:
            continue
        for child, line0 in inline_children(token):
            if child.type in ("link_open", "image"):
                url = str(child.attrGet("href" if child.type == "link_open" else "src") or "")
                out.append(Reference(url, src.at(offset + line0), image=child.type == "image"))
    return out
