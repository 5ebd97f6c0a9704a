"""Code fences that are never closed, reported at their opening line.

CommonMark runs such a fence to the end of the page (or of the list, quote or quiz holding it),
and a line like ``` end (text after the backticks) does not close it; Python-Markdown shows
those lines as prose instead. Cards there would be code to the parser, text on the site, and
missing from the deck without a word.
"""

from __future__ import annotations

from markdown_it.token import Token

from .source import PageState


def rule(state: PageState) -> None:
    for token in state.tokens:
        if token.type == "fence" and token.map and not _closed(token):
            state.src.error(
                token.map[0],
                f"this {token.markup} code fence is never closed: everything after it, to the end "
                "of the page or block, is code to the checker and text on the site; end it with a "
                f"line holding only {token.markup} (no text after it)",
            )


def _closed(fence: Token) -> bool:
    """A closing line ends markdown-it's fence one line after its content; without one the
    fence ends with its content (each content line ends in a newline)."""
    assert fence.map is not None
    return fence.map[1] - fence.map[0] == fence.content.count("\n") + 2
