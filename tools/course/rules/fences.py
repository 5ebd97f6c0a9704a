"""Code fences that are never closed, reported at their opening line.

CommonMark runs such a fence to the end of the page (or of the list, quote or quiz holding it),
and a line like ``` end (text after the backticks) does not close it; Python-Markdown shows
those lines as prose instead. Cards there would be code to the parser, text on the site, and
missing from the deck without a word. A fence in the indented body of an admonition (a
definition, a content tab, a footnote) is read by the site as Markdown in that body, and never
closed there shows as text: it is reported too, where the site's reading of the body says.
"""

from __future__ import annotations

import re

from markdown_it.token import Token

from . import indented
from .source import PageState, Source
from .tokens import tokenizer

_FENCE = re.compile(r"^ {0,3}(?:`{3,}|~{3,})", re.M)  # a line that may open a fence


def rule(state: PageState) -> None:
    for token in state.tokens:
        if token.type == "fence" and token.map and not _closed(token):
            state.src.error(
                token.map[0],
                f"this {token.markup} code fence is never closed: everything after it, to the end "
                "of the page or block, is code to the checker and text on the site; end it with a "
                f"line holding only {token.markup} (no text after it)",
            )
        elif token.type == "code_block" and token.map and _FENCE.search(token.content):
            _in_body(state.src, token)


def _in_body(src: Source, block: Token) -> None:
    """A fence in the body of an admonition (definition, content tab, footnote), which the site
    reads as Markdown, that is never closed in it: the site shows its lines as a paragraph, the
    backticks and all. In an indented code block it is code, as it shows."""
    assert block.map is not None
    where = indented.body_of(src, block.map[0])
    if where is None:
        return
    for fence in tokenizer().parse(block.content):
        if fence.type == "fence" and fence.map and not _closed(fence):
            src.error(
                block.map[0] + fence.map[0],
                f"this {fence.markup} code fence in {where} is never closed there: the site shows "
                f"its lines as text, {fence.markup} and all; end it with a line holding only "
                f"{fence.markup}, indented as the body is",
            )


def _closed(fence: Token) -> bool:
    """A closing line ends markdown-it's fence one line after its content; without one the
    fence ends with its content (each content line ends in a newline)."""
    assert fence.map is not None
    return fence.map[1] - fence.map[0] == fence.content.count("\n") + 2
