"""Stray ``:::``: card lines and ``:::`` blocks where they would silently not be course items."""

from __future__ import annotations

from markdown_it.token import Token

from . import html, indented
from .source import PageState, Source
from .tokens import SEPARATOR, separators_by_line, tokenizer

_NESTED_CONTAINER = (
    "a ':::' block inside a list, quote or admonition is not a course item: put it at the top "
    "level, unindented"
)
_HEADING = {
    "atx": (
        "a heading is never a card, so this one would be missing from the deck; write cards as "
        "a paragraph of their own (no '#'), or put the ':::' in inline code"
    ),
    "setext": (
        "a '---' or '===' line right under card lines makes them a heading to the checker (a "
        "paragraph and a rule, or a heading, on the site), never cards; put a blank line before it"
    ),
}


def stray_separators(state: PageState) -> None:
    """Report ``:::`` lines where they would silently not be course items: in a heading, nested
    in lists or quotes, in indented text (code to CommonMark, whatever opened it), or in a nested
    HTML block; and quiz or benchmark blocks that are not at the top level.

    One error per top-level list or quote, at its first card line: a card in a list makes every
    line after it, up to a blank line, part of the same item, so one mistake holds many lines.
    """
    src = state.src
    quiz_depth = 0
    found: dict[int, tuple[str, list[int]]] = {}  # top-level block's first line -> kind, lines
    block = (0, "list")
    for index, token in enumerate(state.tokens):
        if token.level == 0 and token.nesting == 1 and token.map:
            block = (token.map[0], "quote" if token.type == "blockquote_open" else "list")
        if token.type.startswith("container_quiz_"):
            if token.nesting == 1 and token.level > 0 and not quiz_depth and token.map:
                src.error(token.map[0], _NESTED_CONTAINER)
            quiz_depth += 1 if token.nesting == 1 else -1
        elif token.type == "container_benchmark_open" and token.level > 0 and token.map:
            src.error(token.map[0], _NESTED_CONTAINER)
        elif token.map is None:
            continue
        elif token.type == "inline" and quiz_depth:
            continue  # the quiz's own rule reads its text
        elif token.type == "inline" and state.tokens[index - 1].type == "heading_open":
            _in_heading(src, token.map[0], state.tokens[index - 1].markup, token)
        elif token.type == "inline" and token.level > 1:
            lines = [token.map[0] + offset for offset in sorted(separators_by_line(token))]
            if lines:
                found.setdefault(block[0], (block[1], []))[1].extend(lines)
        elif token.type == "code_block" and SEPARATOR in token.content:
            _in_indented_text(src, token.map[0], token.content)
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


def _in_heading(src: Source, line0: int, markup: str, inline: Token) -> None:
    """A heading holding ``:::`` is never a card. markdown-it reads card lines followed by
    ``---`` as one heading, Python-Markdown as a paragraph and a rule: either way, no card."""
    lines = sorted(separators_by_line(inline))
    if lines:
        kind = "atx" if markup.startswith("#") else "setext"
        src.error(line0 + lines[0], f"':::' in a heading: {_HEADING[kind]}")


def _in_indented_text(src: Source, line0: int, content: str) -> None:
    """Indented text is a code block to CommonMark, but the body of an admonition, definition,
    content tab or footnote to the site: no ``:::`` line there is a course item. Its text is read
    as the site would, so card syntax the author shows in a fenced block or inline code passes."""
    lost = _item_lines(content)
    if not lost:
        return
    where = indented.body_of(src, line0) or "an indented code block"
    src.error(
        line0 + lost[0],
        f"':::' in indented text ({where}): CommonMark reads it as code, so no card or quiz "
        "there is a course item and it would be missing from the deck; put it at the top level, "
        "unindented, or show card syntax in a fenced code block (```)",
    )


def _item_lines(text: str) -> list[int]:
    """Lines (from 0) of ``text``, read as Markdown, where a card or a ``:::`` block would be."""
    found: list[int] = []
    for token in tokenizer().parse(text):
        if token.map is None:
            continue
        if token.type == "inline":
            found += [token.map[0] + offset for offset in separators_by_line(token)]
        elif token.type.startswith("container_") and token.nesting == 1:
            found.append(token.map[0])
        elif token.type == "code_block" and SEPARATOR in token.content:
            found += [token.map[0] + offset for offset in _item_lines(token.content)]
        elif token.type == "html_block":
            found += html.separator_lines(token)
    return sorted(found)
