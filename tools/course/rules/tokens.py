"""The CommonMark token stream the rules read, and the helpers to walk it.

Tokens, not text: a ``:::`` inside a code block, inline code or math is never mistaken for a
card, because other inline rules consume that text before the separator rule sees it.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from mdit_py_plugins.container import container_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin

from ..model import MATH_OPTIONS

SEPARATOR = ":::"
CONTAINERS = ("quiz", "benchmark")


@cache
def tokenizer() -> MarkdownIt:
    """The CommonMark parser with the extensions whose tokens matter to course items.

    Built once per process and shared: building one costs more than parsing a page, and
    parsing leaves it unchanged.
    """
    md = MarkdownIt("commonmark").use(dollarmath_plugin, **MATH_OPTIONS)
    for name in CONTAINERS:
        container_plugin(md, name)
    md.inline.ruler.after("text", "card_separator", _separator_rule)
    return md


def _separator_rule(state: StateInline, silent: bool) -> bool:
    """``:::`` in running text is a ``card_separator`` token that records where it starts.

    Code spans, math and escapes are other inline rules that consume their text first, so a
    ``:::`` inside them never reaches this rule. ``meta["pos"]`` is the offset in the inline
    token's content, which keeps the Markdown source of each side exact.
    """
    if not state.src.startswith(SEPARATOR, state.pos):
        return False
    if not silent:
        token = state.push("card_separator", "", 0)
        token.markup = SEPARATOR
        token.meta = {"pos": state.pos}
    state.pos += len(SEPARATOR)
    return True


def top_level(tokens: list[Token]) -> Iterator[tuple[int, Token]]:
    """Block tokens at nesting level 0: cards in list items or quotes are not course items."""
    for index, token in enumerate(tokens):
        if token.level == 0 and token.map is not None:
            yield index, token


def children(tokens: list[Token], index: int) -> list[tuple[int, Token]]:
    """Tokens between an opening token and its matching close, with their indices."""
    level = tokens[index].level
    out = []
    for i in range(index + 1, len(tokens)):
        if tokens[i].level == level:
            break
        out.append((i, tokens[i]))
    return out


def inline_children(inline: Token) -> Iterator[tuple[Token, int]]:
    """The children of an inline token with the source line (0-based) each starts on."""
    assert inline.map is not None
    line0 = inline.map[0]
    for child in inline.children or []:
        yield child, line0
        if child.type in ("softbreak", "hardbreak"):
            line0 += 1
        else:
            line0 += child.content.count("\n")


def separators_by_line(inline: Token) -> dict[int, list[int]]:
    """Line offset in the paragraph -> columns of its ``card_separator`` tokens."""
    content = inline.content
    out: dict[int, list[int]] = {}
    for child in inline.children or []:
        if child.type == "card_separator":
            pos = child.meta["pos"]
            line_start = content.rfind("\n", 0, pos) + 1
            out.setdefault(content.count("\n", 0, pos), []).append(pos - line_start)
    return out
