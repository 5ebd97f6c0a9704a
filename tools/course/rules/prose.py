"""Running text: what a learner reads on the page, for the check's cues (reading time, fragments,
:mod:`tools.course.cues`)."""

from __future__ import annotations

import re

from markdown_it.token import Token

from ..model import Prose
from .source import PageState

_ADMONITION_HEAD = re.compile(r"^(!!!|\?\?\?\+?)\s+\S+(?:\s+\"[^\"]*\")?\s*")
_FENCE = re.compile(r"^\s*(```|~~~)")


def rule(state: PageState) -> None:
    """Every paragraph, list item, table cell and heading, and the text of ``!!!`` admonitions;
    not code, math, cards, quizzes, embeds, or what a ``???`` block collapses (solutions and
    examples, read when opened). A ``!!!``/``???`` line and its indented first paragraph are
    one paragraph to CommonMark, and the rest of the block is indented code."""
    src, tokens = state.src, state.tokens
    out: list[Prose] = []
    depth = 0  # inside a quiz or an embed
    previous = preceding = ""  # the last top-level block, and the one before it
    admonition = ""  # "!!!" or "???" while its indented blocks go on
    for index, token in enumerate(tokens):
        if token.type.startswith("container_"):
            depth += 1 if token.nesting == 1 else -1
            continue
        if depth or token.map is None:
            continue
        if token.level == 0 and token.nesting != -1:
            preceding, previous = previous, token.type
            if token.type != "code_block":
                admonition = ""
        if token.type == "code_block" and token.level == 0:
            if admonition == "!!!":
                text = "\n".join(_unfenced(token.content.splitlines()))
                out.append(Prose(text, src.at(token.map[0])))
        elif token.type == "inline" and not _is_card_text(token):
            opening = tokens[index - 1]
            top = opening.type == "paragraph_open" and opening.level == 0
            text = token.content.strip()
            head = _ADMONITION_HEAD.match(text) if top else None
            if head:
                admonition = head.group(1)[:3]
                if admonition == "!!!":
                    out.append(Prose(text[head.end() :].strip(), src.at(token.map[0])))
            else:
                after_math = top and preceding == "math_block"
                out.append(Prose(text, src.at(token.map[0]), top, after_math))
    state.page.prose = tuple(out)


def _is_card_text(inline: Token) -> bool:
    return any(child.type == "card_separator" for child in inline.children or [])


def _unfenced(lines: list[str]) -> list[str]:
    """``lines`` without their fenced code blocks (an admonition may hold one)."""
    kept, fenced = [], False
    for line in lines:
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            kept.append(line)
    return kept
