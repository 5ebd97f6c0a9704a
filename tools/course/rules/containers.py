"""``:::`` containers: where one ends (it must be closed), and benchmark embeds
(``::: benchmark name args``), which take no content."""

from __future__ import annotations

from markdown_it.token import Token

from ..model import Embed, Span
from .source import PageState, Source
from .tokens import SEPARATOR, children


def span(src: Source, opening: Token) -> Span:
    """Lines of a ``:::`` container including its closing marker line, which it must have.

    Unclosed, CommonMark's container swallows the rest of the page, so that is an error.
    """
    assert opening.map is not None
    start, end = opening.map
    if end < len(src.lines) and src.lines[end].strip().startswith(SEPARATOR):
        return Span(start, end + 1)
    name = opening.info.split()[0]
    src.error(start, f"'::: {name}' is never closed: end it with a line holding only ':::'")
    return Span(start, end)


def embed_block(state: PageState, index: int) -> None:
    """A top-level ``::: benchmark`` becomes an embed block of the page."""
    lines = span(state.src, state.tokens[index])
    state.page.blocks.append((lines, _embed(state.src, state.tokens, index)))


def _embed(src: Source, tokens: list[Token], index: int) -> Embed:
    opening = tokens[index]
    assert opening.map is not None
    words = opening.info.split()
    if children(tokens, index):
        src.error(opening.map[0], f"'::: {words[0]}' takes no content; close it on the next line")
    return Embed(words[0], tuple(words[1:]), src.at(opening.map[0]))
