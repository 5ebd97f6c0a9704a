"""Quizzes: a ``::: quiz`` container around one numbered list of single-choice questions, each
its text, a task list of options with one ``[x]``, and an explanation."""

from __future__ import annotations

import re
import shlex
import textwrap
from collections.abc import Iterable
from dataclasses import replace

from markdown_it.token import Token

from .. import option_order
from ..model import (
    CourseError,
    Location,
    Option,
    Question,
    Quiz,
    Span,
    normalize,
    script_lang,
    source_hash,
)
from . import containers
from .ids import ID, ID_RULE, TRAILING_ATTRIBUTES, repeats
from .source import PageState, Source
from .tokens import children

MIN_OPTIONS = 2

# A question's attributes at the end of its text: its explicit id, the order to show its options
# in, or both ("{#q-id order=CADB}").
_QUESTION_ATTR = r"(?:#" + ID.pattern + r"|order=[^\s{}]*)"
_QUESTION_ATTRS = re.compile(r"\s*\{(" + _QUESTION_ATTR + r"(?:\s+" + _QUESTION_ATTR + r")*)\}\s*$")
_OPTION_MARK = re.compile(r"^[-*+]\s+\[([ xX])\]\s*")
_LIST_MARKER = re.compile(r"^\s*\d+[.)]\s+")


def block(state: PageState, index: int) -> None:
    """A top-level quiz becomes a block of the page, each question with its source lines."""
    src = state.src
    span = containers.span(src, state.tokens[index])
    quiz = _quiz(src, state.tokens, index, state.page.title)
    if quiz:
        state.page.blocks.append((span, _question_spans(src, quiz, span)))


def _question_spans(src: Source, quiz: Quiz, span: Span) -> Quiz:
    """Each question's lines: from its first line to the next question (the last: to ':::')."""
    starts = [q.location.line - 1 for q in quiz.questions] + [max(span.end - 1, span.start)]
    questions = tuple(
        replace(q, span=Span(start, end), digest=source_hash(src.lines[start:end]))
        for q, start, end in zip(quiz.questions, starts, starts[1:], strict=False)
    )
    return replace(quiz, questions=questions)


def _attributes(src: Source, token: Token) -> dict[str, str]:
    """``key=value`` words after the container name; values may be quoted."""
    assert token.map is not None
    try:
        words = shlex.split(token.info)[1:]
    except ValueError as exc:
        src.error(token.map[0], f"cannot read the attributes: {exc}")
        return {}
    attrs: dict[str, str] = {}
    for word in words:
        key, eq, value = word.partition("=")
        if not eq or not value:
            src.error(token.map[0], f"attribute {word!r} is not of the form key=value")
        attrs[key] = value
    return attrs


def _quiz(src: Source, tokens: list[Token], index: int, page_title: str) -> Quiz | None:
    opening = tokens[index]
    assert opening.map is not None
    attrs = _attributes(src, opening)
    lang, quiz_id = _check_attributes(src, opening.map[0], attrs)
    inner = children(tokens, index)
    lists = [i for i, t in inner if t.type == "ordered_list_open" and t.level == 1]
    if len(lists) != 1 or any(
        t.level == 1 and t.type.endswith("_open") and t.type != "ordered_list_open"
        for _, t in inner
    ):
        src.error(opening.map[0], "a quiz holds exactly one numbered list of questions")
        return None
    questions = [
        q
        for q in (
            _question(src, tokens, i)
            for i, t in inner
            if t.type == "list_item_open" and t.level == 2
        )
        if q
    ]
    _duplicates(src, "question", ((q.prompt, q.location) for q in questions))
    if not quiz_id or lang not in src.languages or not questions:
        return None
    return Quiz(
        quiz_id, attrs.get("title", page_title), lang, tuple(questions), src.at(opening.map[0])
    )


def _check_attributes(src: Source, line0: int, attrs: dict[str, str]) -> tuple[str, str | None]:
    """The quiz's language and id, each problem with them reported at its opening line."""
    unknown = set(attrs) - {"id", "lang", "title"}
    if unknown:
        src.error(line0, f"unknown quiz attribute(s): {', '.join(sorted(unknown))}")
    lang = attrs.get("lang", "en")
    if lang not in src.languages:
        src.error(line0, f"unknown language {lang!r} (this course has: {', '.join(src.languages)})")
    quiz_id = attrs.get("id")
    if not quiz_id:
        src.error(line0, "a quiz needs an id (::: quiz id=some-name)")
    elif not ID.fullmatch(quiz_id):
        src.error(line0, f"quiz id {quiz_id!r}: use {ID_RULE} (the rule for explicit ids)")
    return lang, quiz_id


def _question(src: Source, tokens: list[Token], index: int) -> Question | None:
    item = tokens[index]
    assert item.map is not None
    blocks = [(i, t) for i, t in children(tokens, index) if t.level == 3 and t.map]
    if not blocks or blocks[0][1].type != "paragraph_open":
        src.error(item.map[0], "a question starts with its text")
        return None
    prompt_raw = _LIST_MARKER.sub("", tokens[blocks[0][0] + 1].content).strip()
    attrs = _QUESTION_ATTRS.search(prompt_raw)
    prompt = prompt_raw[: attrs.start()].strip() if attrs else prompt_raw
    if meant := TRAILING_ATTRIBUTES.search(prompt):  # malformed, or a second one
        src.error(
            item.map[0] + prompt.count("\n", 0, meant.start()),
            f"{meant.group().strip()} ends the question but is not its attribute list: a "
            f"question takes one, {{#some-id}} (an explicit id, of {ID_RULE}), {{order=CADB}} "
            "or both, {#some-id order=CADB}",
        )
    words = attrs.group(1).split() if attrs else []
    explicit = next((w[1:] for w in words if w.startswith("#")), None)
    order = next((w.removeprefix("order=") for w in words if w.startswith("order=")), None)
    if len(blocks) < 2 or blocks[1][1].type != "bullet_list_open":
        src.error(item.map[0], "a question needs a list of options ('- [x] right', '- [ ] wrong')")
        return None
    line0 = item.map[0]
    options = _options(src, tokens, blocks[1][0])
    if order is not None and (problem := option_order.order_error(order, len(options))):
        src.error(line0, problem)
        order = None
    options = option_order.shown(options, order)
    written, explained_at = _explanation(src, blocks[2:], item)
    explanation, unknown = option_order.resolve_references(written, options, script_lang(prompt))
    for reference, offset in unknown:
        src.error(
            explained_at + offset,
            f"{reference} names no option of this question (use its source letter)",
        )
    if not _complete(src, line0, prompt, options, explanation):
        return None
    return Question(
        prompt,
        tuple(options),
        explanation,
        src.at(line0),
        explicit,
        explanation_location=src.at(explained_at),
    )


def _complete(
    src: Source, line0: int, prompt: str, options: list[Option], explanation: str
) -> bool:
    """Whether a question has all its parts; each one missing is reported at its first line."""
    if not prompt:
        src.error(line0, "a question has empty text")
    if len(options) < MIN_OPTIONS:
        src.error(line0, f"a question needs at least {MIN_OPTIONS} options, found {len(options)}")
    correct = sum(option.correct for option in options)
    if correct != 1:
        src.error(line0, f"a single-choice question needs exactly one [x] option, found {correct}")
    if not explanation:
        src.error(line0, "a question needs an explanation (paragraphs after its options)")
    return bool(prompt) and len(options) >= MIN_OPTIONS and correct == 1 and bool(explanation)


def _options(src: Source, tokens: list[Token], index: int) -> list[Option]:
    options = []
    for i, token in children(tokens, index):
        if token.type != "list_item_open" or token.level != 4 or not token.map:
            continue
        line0 = token.map[0]
        raw = src.lines[line0].strip()
        mark = _OPTION_MARK.match(raw)
        inline = tokens[i + 2] if tokens[i + 1].type == "paragraph_open" else None
        if not mark or inline is None:
            src.error(line0, "an option starts with '[x] ' (correct) or '[ ] ' (wrong)")
            continue
        text = _OPTION_MARK.sub("", "- " + inline.content, count=1).strip()
        if not text:
            src.error(line0, "an option has empty text")
            continue
        if meant := TRAILING_ATTRIBUTES.search(text):  # shown as text, with nothing applied
            src.error(
                line0,
                f"{meant.group().strip()} ends an option: options take no attributes "
                "(a question's go after its text: '1. Which? {#some-id order=CADB}')",
            )
        if len(options) == len(option_order.LETTERS):
            src.error(line0, f"a question has at most {len(option_order.LETTERS)} options")
            break
        letter = option_order.LETTERS[len(options)]
        options.append(Option(text, mark.group(1) in "xX", src.at(line0), letter))
    _duplicates(src, "option", ((option.text, option.location) for option in options))
    return options


def _explanation(src: Source, blocks: list[tuple[int, Token]], item: Token) -> tuple[str, int]:
    """The Markdown after the options, dedented: everything up to the end of the list item, and
    the line it starts on (its lines are the source's, one for one)."""
    if not blocks or item.map is None:
        return "", 0
    start = blocks[0][1].map[0]  # type: ignore[index]
    return textwrap.dedent("\n".join(src.lines[start : item.map[1]])).strip(), start


def _duplicates(src: Source, what: str, texts: Iterable[tuple[str, Location]]) -> None:
    """Each text that repeats an earlier one, case and spacing aside, is an error at its line:
    a repeated question (an explicit id does not make it new, as for flashcards), or an option
    a learner could not tell from another of its question."""
    for _, location, first in repeats((normalize(text), at) for text, at in texts):
        src.errors.append(CourseError(location, f"duplicate {what} (first at line {first.line})"))
