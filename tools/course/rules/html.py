"""Raw HTML: an HTML block that would swallow card lines, and raw HTML or addresses in prose that
the sanitiser of built pages (:mod:`tools.course.sanitize`) would change."""

from __future__ import annotations

from collections.abc import Iterator

from markdown_it.token import Token

from .. import sanitize
from .source import PageState, Source
from .tokens import SEPARATOR, inline_children, separators_by_line


def block(state: PageState, index: int) -> None:
    lost_cards(state.src, state.tokens[index])


def lost_cards(src: Source, token: Token) -> None:
    """An HTML block swallows the lines after it up to a blank line: cards there would vanish.

    A line starting with a tag starts such a block, so a card written that way, or a card line
    right after one, is an error instead of raw HTML on the page and a card missing from both.
    """
    lines = separator_lines(token)
    if lines:
        src.error(
            lines[0],
            "':::' in an HTML block: a line starting with a tag makes the lines up to the next "
            "blank line raw HTML, so no card is found there (put a blank line before cards; put a "
            "tag in a card inside inline code)",
        )


def separator_lines(token: Token) -> list[int]:
    """The lines of an HTML block that hold a ':::' (lost items), from 0."""
    assert token.map is not None
    lines = token.content.split("\n")
    return [token.map[0] + offset for offset, line in enumerate(lines) if SEPARATOR in line]


def raw_html(state: PageState) -> None:
    """Raw HTML and link or image addresses in prose are errors, with their line, wherever the
    sanitiser of built pages would change them: the author hears of it, nothing is dropped
    quietly. Cards and quizzes escape raw HTML, so theirs is text and not checked here."""
    quiz_depth = 0
    for token in state.tokens:
        if token.type.startswith("container_quiz_"):
            quiz_depth += 1 if token.nesting == 1 else -1
        if quiz_depth or token.map is None:
            continue
        pieces: list[tuple[str, int]] = []
        if token.type == "html_block":
            pieces += [(p, token.map[0] + k) for p, k in _html_block_problems(token.content)]
        elif token.type == "inline" and not separators_by_line(token):
            pieces += _inline_problems(token)
        for problem, line0 in pieces:
            state.src.error(line0, f"raw HTML or address: {problem} (write it as text or in code)")


def _inline_problems(inline: Token) -> list[tuple[str, int]]:
    """Each problem of the raw HTML and addresses in a paragraph, with its line (from 0)."""
    pieces: list[tuple[str, int]] = []
    for child, line0 in inline_children(inline):
        if child.type == "html_inline":
            pieces += [(problem, line0) for problem in sanitize.problems(child.content)]
        elif child.type in ("link_open", "image"):
            name = "href" if child.type == "link_open" else "src"
            url = str(child.attrGet(name) or "")
            if not sanitize.url_allowed(name, url):
                pieces.append((f"the address {url!r} is not allowed", line0))
    return pieces


def _html_block_problems(html: str) -> Iterator[tuple[str, int]]:
    """Each problem of an HTML block with the line (from 0) where it first appears: the block
    read up to each line in turn, as a tag may span lines."""
    lines = html.split("\n")
    if not sanitize.problems(html):  # the usual case: one parse
        return
    seen = 0
    for offset in range(len(lines)):
        found = sanitize.problems("\n".join(lines[: offset + 1]))
        for problem in found[seen:]:
            yield problem, offset
        seen = max(seen, len(found))
