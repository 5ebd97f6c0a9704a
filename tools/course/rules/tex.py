"""TeX by allow-list: formulas, and any text that Anki's MathJax would read as math, hold only
the TeX commands :func:`tools.course.model.unsafe_tex` allows."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import cache

from markdown_it import MarkdownIt
from markdown_it.token import Token

from ..field_syntax import field_markdown
from ..model import CardGroup, Page, Quiz, unsafe_tex, unsafe_tex_in_text
from .source import PageState
from .tokens import inline_children

_MAKES_BACKSLASH = re.compile(r"[\\&%]")  # a backslash, or what a field decodes to one
Formula = tuple[str, int]  # (TeX, line)
Text = tuple[str, int, bool]  # (text, line, code: only closed formulas count)


def rule(state: PageState) -> None:
    """Refuse TeX commands that carry links, styles, classes, HTML or Unicode escapes anywhere:
    in ``$...$`` math, and in any text Anki's MathJax would read as math once it is HTML
    (``\\\\(`` and ``&#92;(`` become ``\\(``; :func:`tools.course.model.unsafe_tex_in_text`),
    in every paragraph of prose and in code.

    Cards and quizzes are read as what the deck gets: each field (card side, question, option,
    explanation) as the renderer reads it (:mod:`tools.course.field_syntax`), where raw HTML is
    text with its character references decoded; the page's tokens, where it is HTML, would hide
    a formula in a tag's attribute from the check and not from Anki."""
    items = [span for span, block in state.page.blocks if isinstance(block, (CardGroup, Quiz))]
    prose = (
        token
        for token in state.tokens
        if not (token.map and any(s.start <= token.map[0] < s.end for s in items))
    )
    formulas, texts = _scan(prose)
    for text, line0, inline in _fields(state.page):
        if not _MAKES_BACKSLASH.search(text):
            # Every TeX command and MathJax delimiter starts with a backslash, and only a
            # character reference or an autolink's percent-encoding makes one where the source
            # has none: most fields hold none of them, and parsing each field again would cost
            # the parse as much again as the page's own tokens.
            continue
        parsed = _field_parser().parseInline(text) if inline else _field_parser().parse(text)
        found = _scan(parsed, line0)
        formulas += found[0]
        texts += found[1]
    for tex, line0 in formulas:
        command = unsafe_tex(tex)
        if command:
            state.src.error(line0, f"TeX command \\{command} is not allowed in course math")
    for text, line0, code in texts:
        problem = unsafe_tex_in_text(text, unclosed=not code)
        if problem:
            state.src.error(
                line0 + _line_of(text, code),
                f"text that MathJax typesets as math (\\( \\), \\[ \\], \\begin{{}}) holds "
                f"{problem}: write math as $...$, within the allowed TeX commands",
            )


def _line_of(text: str, code: bool) -> int:
    """The line of ``text`` (from 0) where its problem shows: the first whose text so far has
    one (in prose, where the formula opens; in code, where it closes). Only a text with a
    problem is read again, so the check costs nothing more where all is well."""
    lines = text.split("\n")
    return next(
        (
            i
            for i in range(len(lines) - 1)
            if unsafe_tex_in_text("\n".join(lines[: i + 1]), unclosed=not code) is not None
        ),
        len(lines) - 1,
    )


@cache
def _field_parser() -> MarkdownIt:
    return field_markdown()


def _fields(page: Page) -> Iterator[tuple[str, int, bool]]:
    """``(text, first line, inline)`` of every field a card or question renders, as the deck
    renders it (options inline, the rest as blocks)."""
    for _, block in page.blocks:
        if isinstance(block, CardGroup):
            for card in block.cards:
                yield card.front, card.location.line - 1, False
                yield card.back, card.location.line - 1, False
        elif isinstance(block, Quiz):
            for question in block.questions:
                yield question.prompt, question.location.line - 1, False
                for option in question.options:
                    yield option.text, option.location.line - 1, True
                yield question.explanation, question.explanation_location.line - 1, False


def _scan(tokens: Iterable[Token], offset: int = 0) -> tuple[list[Formula], list[Text]]:
    """The formulas and the text of ``tokens`` (their lines moved by ``offset``): each
    paragraph's text as the renderer emits it, and code, where only closed formulas count."""
    formulas: list[Formula] = []
    texts: list[Text] = []
    for token in tokens:
        if not token.map:
            continue
        start = offset + token.map[0]
        if token.type.startswith("math_block"):
            formulas.append((token.content, start))
        elif token.type in ("fence", "code_block"):  # a fence's text starts below its fence
            texts.append((token.content, start + (token.type == "fence"), True))
        elif token.type == "inline":
            text = ""
            for child, line0 in inline_children(token):
                if child.type.startswith("math_inline"):
                    formulas.append((child.content, offset + line0))
                elif child.type == "code_inline":
                    texts.append((child.content, offset + line0, True))
                elif child.type == "image":  # its alt text, as the renderer writes it
                    md = _field_parser()
                    text += md.renderer.renderInlineAsText(child.children, md.options, {})
                else:
                    text += "\n" if child.type in ("softbreak", "hardbreak") else child.content
            texts.append((text, start, False))
    return formulas, texts
