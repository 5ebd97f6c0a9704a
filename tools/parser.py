"""Find the course items in Markdown: one markdown-it-py token stream, one small rule per item kind.

The parser never renders. It reads CommonMark tokens (so a ``:::`` inside a code block, inline
code or math is never mistaken for a card), keeps the raw Markdown source of every side, option
and explanation, and records where each item came from. Problems are collected, not raised, so
one run reports all of them; each is a :class:`~tools.model.CourseError` naming file and line.
"""

from __future__ import annotations

import re
import shlex
import textwrap
from collections.abc import Iterable, Iterator
from functools import cache
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.container import container_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin

from tools.model import (
    LANGUAGES,
    Card,
    CardGroup,
    ConsoleExample,
    Course,
    CourseError,
    Embed,
    Location,
    Option,
    Page,
    Question,
    Quiz,
    Span,
    normalize,
)

SEPARATOR = ":::"
CONTAINERS = ("quiz", "benchmark")
MIN_OPTIONS = 2

_EXPLICIT_ID = re.compile(r"\s*\{#([A-Za-z][\w-]*)\}\s*$")
_OPTION_MARK = re.compile(r"^[-*+]\s+\[([ xX])\]\s*")
_LIST_MARKER = re.compile(r"^\s*\d+[.)]\s+")


@cache
def markdown() -> MarkdownIt:
    """The CommonMark parser with the two extensions whose tokens matter to course items.

    Built once per process and shared (the site reads headings with it too): building one costs
    more than parsing a page, and parsing leaves it unchanged.
    """
    md = MarkdownIt("commonmark").use(dollarmath_plugin)
    for name in CONTAINERS:
        container_plugin(md, name)
    return md


def split_lines(text: str) -> list[str]:
    """Source lines as markdown-it numbers them (anything that maps lines must use this).

    Only CR, LF and CRLF end a line: ``str.splitlines()`` also splits at U+2028, form feeds and
    the like, which would shift every line number after them.
    """
    lines = re.split(r"\r\n|\r|\n", text)
    return lines[:-1] if lines and lines[-1] == "" else lines


class _Source:
    """One file's lines plus helpers to name a place in it."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.lines = split_lines(text)
        self.errors: list[CourseError] = []

    def at(self, line0: int) -> Location:
        return Location(self.path, line0 + 1)

    def error(self, line0: int, message: str) -> None:
        self.errors.append(CourseError(self.at(line0), message))


def parse_course(root: Path, docs_dir: str = "docs") -> Course:
    """Parse every Markdown page under ``root/docs_dir`` and check the course-wide rules."""
    pages: list[Page] = []
    errors: list[CourseError] = []
    for file in sorted((root / docs_dir).rglob("*.md")):
        rel = file.relative_to(root).as_posix()
        page, page_errors = parse_page(
            rel, file.relative_to(root / docs_dir).as_posix(), file.read_text("utf-8")
        )
        pages.append(page)
        errors.extend(page_errors)
    errors.extend(_duplicate_ids(pages))
    return Course(pages=pages, errors=sorted(errors, key=lambda e: e.location))


def parse_page(path: str, docs_path: str, text: str) -> tuple[Page, list[CourseError]]:
    """Parse one page. ``path`` names the file in messages; ``docs_path`` is its site path."""
    src = _Source(path, text)
    tokens = markdown().parse(text)
    page = Page(path=path, docs_path=docs_path, title=_title(tokens) or docs_path)
    for index, token in _top_level(tokens):
        if token.type == "paragraph_open":
            group = _card_group(src, tokens[index + 1])
            if group:
                page.blocks.append((Span(*token.map), group))
        elif token.type == "container_quiz_open":
            span = _container_span(src, token)
            quiz = _quiz(src, tokens, index, page.title)
            if quiz:
                page.blocks.append((span, quiz))
        elif token.type == "container_benchmark_open":
            page.blocks.append((_container_span(src, token), _embed(src, tokens, index)))
        elif token.type == "fence" and token.info.strip() == "console":
            example = _console_example(src, token)
            if example:
                page.examples.append(example)
    _stray_separators(src, tokens)
    return page, sorted(src.errors, key=lambda e: e.location)


def _top_level(tokens: list[Token]) -> Iterator[tuple[int, Token]]:
    """Block tokens at nesting level 0: cards in list items or quotes are not course items."""
    for index, token in enumerate(tokens):
        if token.level == 0 and token.map is not None:
            yield index, token


def _title(tokens: list[Token]) -> str | None:
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and token.tag == "h1":
            return _EXPLICIT_ID.sub("", tokens[index + 1].content).strip()
    return None


# --- flashcards -------------------------------------------------------------------------------


def _card_group(src: _Source, inline: Token) -> CardGroup | None:
    """A paragraph whose lines are all ``Question ::: Answer`` cards, else None.

    A paragraph that mixes card lines with other text is an error: Markdown would join them into
    one paragraph on GitHub, and the site would have to drop the other text.
    """
    lines = _inline_lines(inline)
    first = inline.map[0] if inline.map else 0
    separators = [_separator_columns(raw, children) for raw, children in lines]
    if not any(separators):
        return None
    cards: list[Card] = []
    for offset, ((raw, _), columns) in enumerate(zip(lines, separators, strict=True)):
        line0 = first + offset
        if columns is None:
            src.error(line0, "cannot locate ':::' in the source line; simplify the line")
        elif not columns:
            src.error(
                line0,
                "a paragraph of flashcards holds a line without ':::' "
                "(put a blank line between cards and other text)",
            )
        elif len(columns) > 1:
            src.error(line0, f"a flashcard has one ':::' separator, this line has {len(columns)}")
        else:
            card = _card(src, line0, raw, columns[0])
            if card:
                cards.append(card)
    return CardGroup(tuple(cards), src.at(first)) if cards else None


def _inline_lines(inline: Token) -> list[tuple[str, list[Token]]]:
    """Split an inline token into source lines, each with the child tokens on that line."""
    raw_lines = inline.content.split("\n")
    grouped: list[list[Token]] = [[]]
    for child in inline.children or []:
        if child.type in ("softbreak", "hardbreak"):
            grouped.append([])
        else:
            grouped[-1].append(child)
    grouped += [[] for _ in range(len(raw_lines) - len(grouped))]
    return list(zip(raw_lines, grouped, strict=False))


def _separator_columns(raw: str, children: list[Token]) -> list[int] | None:
    """Columns in ``raw`` of the ``:::`` that separate sides, skipping those in code or math.

    Tokens say which occurrences are plain text; the raw line says where they are. The n-th
    occurrence in the tokens is the n-th in the raw line; None if the two disagree.
    """
    flags: list[bool] = []  # one per occurrence in token order: True if it separates
    for child in children:
        flags += [child.type == "text"] * child.content.count(SEPARATOR)
    columns = [m.start() for m in re.finditer(re.escape(SEPARATOR), raw)]
    if len(columns) != len(flags):
        return None if any(flags) else []
    return [col for col, is_separator in zip(columns, flags, strict=True) if is_separator]


def _card(src: _Source, line0: int, raw: str, column: int) -> Card | None:
    front, back = raw[:column].strip(), raw[column + len(SEPARATOR) :].strip()
    explicit = _EXPLICIT_ID.search(back)
    if explicit:
        back = back[: explicit.start()].strip()
    if not front or not back:
        src.error(line0, f"flashcard has an empty {'question' if not front else 'answer'}")
        return None
    return Card(front, back, src.at(line0), explicit.group(1) if explicit else None)


def _stray_separators(src: _Source, tokens: list[Token]) -> None:
    """Report ``:::`` lines nested in lists or quotes, where they would silently not be cards."""
    quiz_depth = 0
    for token in tokens:
        if token.type.startswith("container_quiz_"):
            quiz_depth += 1 if token.nesting == 1 else -1
        elif token.type == "inline" and token.level > 1 and token.map and not quiz_depth:
            for offset, (raw, children) in enumerate(_inline_lines(token)):
                if _separator_columns(raw, children):
                    src.error(
                        token.map[0] + offset,
                        "flashcards must be top-level paragraphs, not inside lists or quotes",
                    )


# --- quizzes ----------------------------------------------------------------------------------


def _attributes(src: _Source, token: Token) -> dict[str, str]:
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


def _quiz(src: _Source, tokens: list[Token], index: int, page_title: str) -> Quiz | None:
    opening = tokens[index]
    assert opening.map is not None
    attrs = _attributes(src, opening)
    unknown = set(attrs) - {"id", "lang", "title"}
    if unknown:
        src.error(opening.map[0], f"unknown quiz attribute(s): {', '.join(sorted(unknown))}")
    lang = attrs.get("lang", "en")
    if lang not in LANGUAGES:
        src.error(opening.map[0], f"unknown language {lang!r} (known: {', '.join(LANGUAGES)})")
    quiz_id = attrs.get("id")
    if not quiz_id:
        src.error(opening.map[0], "a quiz needs an id (::: quiz id=some-name)")
    inner = _children(tokens, index)
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
    _duplicate_questions(src, questions)
    if not quiz_id or lang not in LANGUAGES or not questions:
        return None
    return Quiz(
        quiz_id, attrs.get("title", page_title), lang, tuple(questions), src.at(opening.map[0])
    )


def _children(tokens: list[Token], index: int) -> list[tuple[int, Token]]:
    """Tokens between an opening token and its matching close, with their indices."""
    level = tokens[index].level
    out = []
    for i in range(index + 1, len(tokens)):
        if tokens[i].level == level:
            break
        out.append((i, tokens[i]))
    return out


def _question(src: _Source, tokens: list[Token], index: int) -> Question | None:
    item = tokens[index]
    assert item.map is not None
    blocks = [(i, t) for i, t in _children(tokens, index) if t.level == 3 and t.map]
    if not blocks or blocks[0][1].type != "paragraph_open":
        src.error(item.map[0], "a question starts with its text")
        return None
    prompt_raw = _LIST_MARKER.sub("", tokens[blocks[0][0] + 1].content).strip()
    explicit = _EXPLICIT_ID.search(prompt_raw)
    prompt = prompt_raw[: explicit.start()].strip() if explicit else prompt_raw
    if len(blocks) < 2 or blocks[1][1].type != "bullet_list_open":
        src.error(item.map[0], "a question needs a list of options ('- [x] right', '- [ ] wrong')")
        return None
    options = _options(src, tokens, blocks[1][0])
    explanation = _explanation(src, blocks[2:], item)
    line0 = item.map[0]
    if not prompt:
        src.error(line0, "a question has empty text")
    if len(options) < MIN_OPTIONS:
        src.error(line0, f"a question needs at least {MIN_OPTIONS} options, found {len(options)}")
    correct = sum(option.correct for option in options)
    if correct != 1:
        src.error(line0, f"a single-choice question needs exactly one [x] option, found {correct}")
    if not explanation:
        src.error(line0, "a question needs an explanation (paragraphs after its options)")
    if not prompt or len(options) < MIN_OPTIONS or correct != 1 or not explanation:
        return None
    return Question(
        prompt, tuple(options), explanation, src.at(line0), explicit.group(1) if explicit else None
    )


def _options(src: _Source, tokens: list[Token], index: int) -> list[Option]:
    options = []
    for i, token in _children(tokens, index):
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
        options.append(Option(text, mark.group(1) in "xX", src.at(line0)))
    return options


def _explanation(src: _Source, blocks: list[tuple[int, Token]], item: Token) -> str:
    """The Markdown after the options, dedented: everything up to the end of the list item."""
    if not blocks or item.map is None:
        return ""
    start = blocks[0][1].map[0]  # type: ignore[index]
    return textwrap.dedent("\n".join(src.lines[start : item.map[1]])).strip()


def _duplicate_questions(src: _Source, questions: list[Question]) -> None:
    # By text, as for flashcards: an explicit id does not make a repeated question new.
    for _, location, first in _repeats((normalize(q.prompt), q.location) for q in questions):
        src.errors.append(CourseError(location, f"duplicate question (first at line {first.line})"))


# --- other blocks -----------------------------------------------------------------------------


def _container_span(src: _Source, opening: Token) -> Span:
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


def _embed(src: _Source, tokens: list[Token], index: int) -> Embed:
    opening = tokens[index]
    assert opening.map is not None
    words = opening.info.split()
    if _children(tokens, index):
        src.error(opening.map[0], f"'::: {words[0]}' takes no content; close it on the next line")
    return Embed(words[0], tuple(words[1:]), src.at(opening.map[0]))


def _console_example(src: _Source, fence: Token) -> ConsoleExample | None:
    assert fence.map is not None
    command, _, output = fence.content.partition("\n")
    if not command.startswith("$ "):
        return None
    return ConsoleExample(command[2:].strip(), output.rstrip("\n"), src.at(fence.map[0] + 1))


# --- course-wide rules ------------------------------------------------------------------------


def _duplicate_ids(pages: list[Page]) -> list[CourseError]:
    """Explicit ids are course-wide (they make GUIDs); questions are unique within a page."""
    ids: list[tuple[str | None, Location]] = []
    for page in pages:
        ids += [(q.explicit_id, q.location) for quiz in page.quizzes for q in quiz.questions]
        ids += [(c.explicit_id, c.location) for c in page.cards]
        ids += [(quiz.quiz_id, quiz.location) for quiz in page.quizzes]
    errors = [
        CourseError(location, f"duplicate id {item_id!r} (first at {first})")
        for item_id, location, first in _repeats((i, at) for i, at in ids if i is not None)
    ]
    for page in pages:
        cards = ((normalize(card.front), card.location) for card in page.cards)
        errors += [
            CourseError(location, f"duplicate flashcard question (first at {first})")
            for _, location, first in _repeats(cards)
        ]
    return errors


def _repeats(items: Iterable[tuple[str, Location]]) -> Iterator[tuple[str, Location, Location]]:
    """``(key, location, first location)`` for every item whose key an earlier item had."""
    first_at: dict[str, Location] = {}
    for key, location in items:
        if key in first_at:
            yield key, location, first_at[key]
        else:
            first_at[key] = location
