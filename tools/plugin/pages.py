"""HTML for the course items on a site page: flashcards, quizzes and benchmark embeds.

The site generator hands us a page's Markdown; we swap the source lines of each course block
for a placeholder and leave every other line alone, so the generator renders the rest as usual,
then put the blocks' HTML in place of the placeholders (:func:`render_page`,
:func:`fill_blocks`). The HTML works without JavaScript (native ``<details>`` reveal the
answers); ``tools/plugin/static/course.js`` adds the interactive layer (scored quizzes, a show-all
control) on top of it. Course text only reaches the page through
:func:`tools.render.markdown_html.render_markdown`, which escapes raw HTML; every attribute value is
escaped here, so nothing an author writes becomes markup or script.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from html import escape
from pathlib import Path
from types import MappingProxyType
from typing import Any, NamedTuple

from selectolax.lexbor import LexborHTMLParser, LexborNode

from ..course.model import Card, CardGroup, Embed, Heading, Page, Question, Quiz, script_lang
from ..course.parser import split_lines
from ..render.markdown_html import render_markdown
from .search import without_figures

# Interface text of a quiz, in the quiz's own language. Urdu strings are plain, everyday words.
UI_TEXT: dict[str, dict[str, str]] = {
    "en": {
        "score": "Score",
        "retry": "Try again",
        "correct": "Correct",
        "incorrect": "Incorrect",
        "show_answer": "Show answer",
        "correct_answer": "Correct answer",
        "your_answer": "your answer",
        "right_option": "the correct answer",
    },
    "ur": {
        "score": "اسکور",
        "retry": "دوبارہ کوشش کریں",
        "correct": "درست",
        "incorrect": "غلط",
        "show_answer": "جواب دیکھیں",
        "correct_answer": "درست جواب",
        "your_answer": "آپ کا جواب",
        "right_option": "درست جواب",
    },
}

# The flashcard control belongs to the page, whose interface language is English.
SHOW_ALL = "Show all answers"
HIDE_ALL = "Hide all answers"

_ATTR_LIST = re.compile(r"\{:?([^{}]*)\}$")
_URDU_ATTRS = 'lang="ur" dir="rtl"'
# A raw HTML block that Python-Markdown passes through as it is.
_PLACEHOLDER = '<div data-course-block="{}"></div>'
_PLACEHOLDER_RE = re.compile(r'<div data-course-block="(\d+)"></div>')
_CODE_TAG = re.compile(r"<(code|pre)(?![^>]*\sdir=)(?=[\s>])")


_NONE_DECLARED: Mapping[str, Any] = MappingProxyType({})  # a course that declares no benchmarks


class PageBlock(NamedTuple):
    """A course block's HTML; ``item``: a card group or a quiz, not an embed."""

    item: bool
    html: str


class SiteError(Exception):
    """The Markdown handed to :func:`render_page` cannot be matched to the course model."""


def render_page(
    page: Page,
    markdown: str,
    *,
    root: Path,
    strict_results: bool,
    benchmarks: Mapping[str, Any] = _NONE_DECLARED,
) -> tuple[str, list[PageBlock]]:
    """``markdown`` with each course block's lines replaced by a placeholder, and the blocks.

    The generator converts the Markdown, then :func:`fill_blocks` puts each block's HTML where
    its placeholder came out. Python-Markdown re-reads raw HTML tag by tag, so cards handed to it
    as HTML would be read again, every tag of them; a placeholder is one tag.

    ``page.blocks`` hold line spans of the page *file*; the generator may hand us the file minus
    its front matter. We locate the Markdown inside the file and check that every block's lines
    are the ones the parser saw, so a block never lands on the wrong lines.
    """
    lines = split_lines(markdown)
    source = list(page.lines)
    offset = _line_offset(source, markdown)
    for span, _ in page.blocks:
        start, end = span.start - offset, span.end - offset
        if start < 0 or end > len(lines) or lines[start:end] != source[span.start : span.end]:
            raise SiteError(
                f"{page.path}:{span.start + 1}: the Markdown being rendered does not match the "
                "file at this course block (was the page changed after parsing, or by a plugin?)"
            )
    lines = _headings_with_direction(lines, page.headings, offset)
    out: list[str] = []
    blocks: list[PageBlock] = []
    cursor = 0
    first_cards = True
    for span, block in sorted(page.blocks, key=lambda item: item[0].start):
        start, end = span.start - offset, span.end - offset
        out += lines[cursor:start]
        if isinstance(block, CardGroup):
            html = render_cards(block, with_toggle=first_cards, page=page.docs_path)
            first_cards = False
        elif isinstance(block, Quiz):
            html = render_quiz(block, page=page.docs_path)
        else:
            html = render_embed(
                block, root=root, strict_results=strict_results, benchmarks=benchmarks
            )
        out += ["", _PLACEHOLDER.format(len(blocks)), ""]
        blocks.append(PageBlock(not isinstance(block, Embed), html))
        cursor = end
    out += lines[cursor:]
    return "\n".join(out) + ("\n" if markdown.endswith("\n") else ""), blocks


def fill_blocks(
    html: str, blocks: list[PageBlock], *, items: bool, page: Page | None = None
) -> str:
    """Put the HTML of each embed (``items=False``) or of each card group and quiz
    (``items=True``, after the embeds) where its placeholder is; each must be there exactly once.

    One pass, so a block's own HTML is never searched for placeholders. The checks of built
    pages run on the result, so a placeholder an author copied into raw HTML gains nothing.
    """
    found = sorted(int(number) for number in _PLACEHOLDER_RE.findall(html))
    expected = [n for n, block in enumerate(blocks) if block.item or not items]
    if found != expected:
        if page is None:
            raise SiteError(
                f"{len(blocks)} course block(s) rendered but placeholders {found} came back from "
                "the Markdown converter (did a plugin or extension drop or repeat one?)"
            )
        raise SiteError("\n".join(_placeholder_problems(page, found, expected)))

    def fill(match: re.Match[str]) -> str:
        block = blocks[int(match.group(1))]
        return block.html if block.item == items else match.group()

    return _PLACEHOLDER_RE.sub(fill, html)


def _placeholder_problems(page: Page, found: list[int], expected: list[int]) -> list[str]:
    """``path:line`` messages for placeholders that did not come back once, or came back more
    often, or were never the engine's (an author or an included file wrote one)."""
    spans = sorted((span for span, _ in page.blocks), key=lambda span: span.start)
    problems = [
        f"{page.path}:{spans[n].start + 1}: this course block is missing from the built page: "
        "raw HTML before it (an unclosed <!-- or <textarea>, perhaps from an included file) "
        "swallowed it"
        for n in expected
        if n not in found
    ]
    stray = [n for n in sorted(set(found)) if found.count(n) > expected.count(n)]
    if stray:
        lines = [i for i, line in enumerate(page.lines, 1) if "data-course-block" in line]
        where = f"{page.path}:{lines[0] if lines else 1}"
        problems.append(
            f"{where}: a '<div data-course-block=...>' in the page's text (or an included file) "
            "is the engine's placeholder, not content: remove it"
        )
    return problems or [f"{page.path}:1: the course blocks of this page came back out of order"]


def item_anchors(page: Page) -> list[tuple[str, str]]:
    """The id on the built page of each card, quiz and question of ``page``, and its place."""
    items = [(card.anchor, str(card.location)) for card in page.cards]
    for quiz in page.quizzes:
        items.append((f"quiz-{quiz.quiz_id}", str(quiz.location)))
        items += [(question.anchor, str(question.location)) for question in quiz.questions]
    return items


def lost_items(html: str, items: list[tuple[str, str]]) -> list[str]:
    """``path:line: message`` for each of a page's ``items`` (:func:`item_anchors`) whose anchor
    is not an element of the built content ``html`` (raw HTML around it, an unclosed ``<!--``
    from an included file, a ``<textarea>``, turned it into text, so the site would lack an item
    the deck has), or is the id of another element too (a heading MkDocs named so, raw HTML).
    A job for a worker: it reads the whole page, and only the anchors travel with it."""
    ids = Counter(node.attributes.get("id") for node in LexborHTMLParser(html).css("[id]"))
    problems = []
    for anchor, location in items:
        if not ids[anchor]:
            problems.append(
                f"{location}: this item is missing from the built page (raw HTML before it, such "
                "as an unclosed <!-- or <textarea>, perhaps from an included file, swallowed it)"
            )
        elif ids[anchor] > 1:
            problems.append(
                f"{location}: the built page has {ids[anchor]} elements with this item's id "
                f"{anchor!r} (a heading, raw HTML or another item): links would find the first"
            )
    return problems


def search_entries(blocks: list[PageBlock]) -> list[dict[str, str]]:
    """What a site search should find in the cards and quiz questions of ``blocks``, each item
    on its own, read back from the HTML the page shows: ``{"anchor", "title", "text"}`` with a
    card's question and answer, or a question's prompt, then its options and explanation.

    Math counts as its TeX, as in the page's prose. Title and text are escaped text, the text
    in the few tags a search index keeps (``<p>``, ``<ol>``, ``<li>``).
    """
    tree = LexborHTMLParser("\n".join(block.html for block in blocks if block.item))
    for math in tree.css("math"):
        math.replace_with(math.attributes.get("alttext") or "")
    entries = []
    for card in tree.css("details.flashcard"):
        answer = _text(card.css_first(".flashcard-answer"))
        entries.append(_entry(card, card.css_first(".flashcard-question"), f"<p>{answer}</p>"))
    for question in tree.css("fieldset.quiz-question"):
        options = "".join(f"<li>{_text(node)}</li>" for node in question.css(".quiz-option-text"))
        explanation = _text(question.css_first(".quiz-explanation-text"))
        text = f"<ol>{options}</ol><p>{explanation}</p>"
        entries.append(_entry(question, question.css_first(".quiz-prompt-text"), text))
    return entries


def _entry(node: LexborNode, title: LexborNode | None, text: str) -> dict[str, str]:
    return {"anchor": node.attributes.get("id") or "", "title": _text(title), "text": text}


def _text(node: LexborNode | None) -> str:
    """The text of ``node``, its white space collapsed, escaped."""
    text = " ".join(node.text(separator=" ").split()) if node is not None else ""
    return escape(text, quote=False)


def _headings_with_direction(
    lines: list[str], headings: tuple[Heading, ...], offset: int
) -> list[str]:
    """Give Urdu headings ``lang``/``dir`` and a readable anchor (attr_list syntax).

    A heading's direction and font follow its script, as for quiz and card text: without this an
    Urdu title on an English page runs left-to-right in the wrong font and clips. The default
    slug of an Urdu heading is empty (the anchor becomes ``#_1``), so it gets the parser's slug.
    """
    out = list(lines)
    for heading in headings:
        index = heading.line - offset
        if not (heading.top_level and heading.atx and heading.lang == "ur") or index < 0:
            continue
        line = out[index].rstrip()
        if line.endswith("#"):
            continue
        attrs = _ATTR_LIST.search(line)
        existing = attrs.group(1) if attrs else ""
        if re.search(r"\b(lang|dir)=", existing):
            continue
        added = [_URDU_ATTRS] if heading.given else ["#" + heading.anchor, _URDU_ATTRS]
        if attrs is None:
            out[index] = f"{line} {{ {' '.join(added)} }}"
        else:
            out[index] = f"{line[: attrs.end(1)].rstrip()} {' '.join(added)} }}"
    return out


def _line_offset(source: list[str], markdown: str) -> int:
    """Lines of the file that precede ``markdown`` (front matter the generator stripped)."""
    body = split_lines(markdown.removeprefix("\ufeff"))
    if body == source or not body:
        return 0
    offset = len(source) - len(body)
    if offset > 0 and source[offset:] == body:
        return offset
    return 0  # mismatches are reported per block by the caller, with their line


# --- rendering course text --------------------------------------------------------------------


def _item_html(text: str, *, inline: bool, page: str, site_url: str = "") -> str:
    """Course Markdown to safe HTML; code stays left-to-right inside right-to-left text.

    ``page`` (the docs path of the page) resolves relative links, as MkDocs would.
    """
    html = render_markdown(text, target="site", inline=inline, page=page, site_url=site_url)
    return _CODE_TAG.sub(r'<\1 dir="ltr"', html)


def course_html(text: str, *, inline: bool, page: str) -> str:
    """Course Markdown of page ``page`` as shown away from it, on a page at the site root.

    The review page uses it: its links are resolved against the item's own page.
    """
    return _item_html(text, inline=inline, page=page, site_url="./")


def _lang_attrs(lang: str) -> str:
    return f' lang="{lang}" dir="{"rtl" if lang == "ur" else "ltr"}"'


# --- flashcards -------------------------------------------------------------------------------


def render_cards(group: CardGroup, *, with_toggle: bool = False, page: str = "") -> str:
    """A block of cards: each a ``<details>`` whose summary is the question.

    ``<details>`` opens on click, Enter and Space with no script. The page's one show-all
    control ships hidden; the script shows it, since it does nothing without the script.
    """
    parts = ['<div class="flashcards">']
    if with_toggle:
        parts.append(
            '<button type="button" class="flashcards-toggle md-button" aria-expanded="false" '
            f'data-show="{escape(SHOW_ALL)}" data-hide="{escape(HIDE_ALL)}" hidden>'
            f"{escape(SHOW_ALL)}</button>"
        )
    parts += [_card(card, page) for card in group.cards]
    parts.append("</div>")
    return "\n".join(parts)


def _card(card: Card, page: str) -> str:
    return (
        f'<details class="flashcard" id="{escape(card.anchor)}"{_lang_attrs(card.lang)}>\n'
        f'<summary><span class="flashcard-question"{_lang_attrs(script_lang(card.front))}>'
        f"{_item_html(card.front, inline=True, page=page)}</span></summary>\n"
        f'<div class="flashcard-answer"{_lang_attrs(script_lang(card.back))}>'
        f"{_item_html(card.back, inline=True, page=page)}</div>\n"
        "</details>"
    )


# --- quizzes ----------------------------------------------------------------------------------


def render_quiz(quiz: Quiz, *, page: str = "") -> str:
    """A quiz: one ``<fieldset>`` per question, options as buttons, the answer in a ``<details>``.

    The correct index sits in ``data-answer`` for the script; without the script, "Show answer"
    reveals the correct option and the explanation. Interface strings travel as data attributes,
    the quiz's own in its language and each question's in the question's, so the script holds no
    text of its own.
    """
    text = UI_TEXT[quiz.lang]
    title_id = f"quiz-{quiz.quiz_id}-title"
    data = _ui_data(text)
    parts = [
        f'<section class="quiz" id="quiz-{escape(quiz.quiz_id)}" '
        f'data-quiz-id="{escape(quiz.quiz_id)}"{_lang_attrs(quiz.lang)} '
        f'aria-labelledby="{escape(title_id)}"{data}>',
        f'<p class="quiz-title" id="{escape(title_id)}"{_lang_attrs(script_lang(quiz.title))}>'
        f"{escape(quiz.title)}</p>",
    ]
    total = len(quiz.questions)
    for number, question in enumerate(quiz.questions, 1):
        parts.append(_question(question, number, page))
    parts.append(
        '<div class="quiz-footer" hidden>\n'
        f'<p class="quiz-score" aria-live="polite" aria-atomic="true">{escape(text["score"])}: '
        f'<span class="quiz-score-value" dir="ltr">0 / {total}</span></p>\n'
        f'<button type="button" class="quiz-retry md-button">{escape(text["retry"])}</button>\n'
        "</div>"
    )
    parts.append("</section>")
    return "\n".join(parts)


def _ui_data(text: dict[str, str]) -> str:
    """The strings the script shows after an answer, as ``data-text-*`` attributes."""
    return "".join(
        f' data-text-{key.replace("_", "-")}="{escape(text[key])}"'
        for key in ("correct", "incorrect", "your_answer", "right_option")
    )


def _question(question: Question, number: int, page: str) -> str:
    """One question, laid out in its prompt's direction (number, options, marks).

    Each piece of text inside carries its own language and direction, and its interface strings
    ("Show answer", "Correct", ...) are in the prompt's language: an English question of an Urdu
    quiz says "Show answer" in English, beside the text a reader of it reads.
    """
    anchor = escape(question.anchor)
    prompt_lang = script_lang(question.prompt)
    text = UI_TEXT[prompt_lang]
    ui = _lang_attrs(prompt_lang)
    parts = [
        f'<fieldset class="quiz-question" id="{anchor}" data-answer="{question.answer}"'
        f"{_lang_attrs(prompt_lang)}{_ui_data(text)}>",
        f'<legend class="quiz-prompt"><span class="quiz-number">{number}.</span> '
        f'<span class="quiz-prompt-text"{_lang_attrs(prompt_lang)}>'
        f"{_item_html(question.prompt, inline=True, page=page)}</span></legend>",
        '<ol class="quiz-options">',
    ]
    for index, option in enumerate(question.options):
        # The label the explanation and the deck name this option by (the model's order).
        parts.append(
            f'<li><button type="button" class="quiz-option" data-index="{index}">'
            f'<span class="quiz-option-label"{_lang_attrs(prompt_lang)}>'
            f"{escape(question.label(index))}</span> "
            f'<span class="quiz-option-text"{_lang_attrs(option.lang)}>'
            f"{_item_html(option.text, inline=True, page=page)}</span></button></li>"
        )
    right = question.options[question.answer]
    right_html = _item_html(right.text, inline=True, page=page)
    explanation_lang = script_lang(question.explanation)
    parts += [
        "</ol>",
        '<p class="quiz-feedback" aria-live="polite"></p>',
        '<details class="quiz-explanation">',
        f"<summary><span{ui}>{escape(text['show_answer'])}</span></summary>",
        f'<p class="quiz-answer"><strong{ui}>{escape(text["correct_answer"])}:</strong> '
        f"<span{_lang_attrs(right.lang)}>{right_html}</span></p>",
        f'<div class="quiz-explanation-text"{_lang_attrs(explanation_lang)}>',
        _item_html(question.explanation, inline=False, page=page),
        "</div>",
        "</details>",
        "</fieldset>",
    ]
    return "\n".join(parts)


# --- embeds -----------------------------------------------------------------------------------


def render_embed(
    embed: Embed,
    *,
    root: Path,
    strict_results: bool,
    benchmarks: Mapping[str, Any] = _NONE_DECLARED,
) -> str:
    """The HTML an embed stands for; only ``benchmark`` embeds exist so far, of the benchmarks
    the course declares (``benchmarks``: its setting, name -> ``tools.benchmarks.Declared``)."""
    if embed.name != "benchmark":
        raise SiteError(f"{embed.location}: unknown embed '::: {embed.name}'")
    from .. import benchmarks as engine

    html = engine.render_embed(list(embed.args), root, benchmarks, strict=strict_results)
    return without_figures(html)
