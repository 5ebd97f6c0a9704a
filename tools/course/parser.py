"""Find the course items in Markdown: one markdown-it-py token stream, one small rule per item kind.

The parser never renders. It reads CommonMark tokens (so a ``:::`` inside a code block, inline
code or math is never mistaken for a card), keeps the raw Markdown source of every side, option
and explanation, and records where each item came from. Problems are collected, not raised, so
one run reports all of them; each is a :class:`~tools.course.model.CourseError` naming file
and line.
"""

from __future__ import annotations

import re
import shlex
import textwrap
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from mdit_py_plugins.container import container_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin

from tools.course import option_order, sanitize
from tools.course.model import (
    LANGUAGES,
    Card,
    CardGroup,
    ConsoleExample,
    Course,
    CourseConfig,
    CourseError,
    Embed,
    Heading,
    Location,
    Option,
    Page,
    Prose,
    Question,
    Quiz,
    Reference,
    SiteSyntax,
    Span,
    normalize,
    script_lang,
    source_hash,
    unsafe_tex,
    unsafe_tex_in_text,
)

SEPARATOR = ":::"
CONTAINERS = ("quiz", "benchmark")
MIN_OPTIONS = 2

_ID = re.compile(r"[A-Za-z][\w-]*")  # explicit ids and quiz ids
_EXPLICIT_ID = re.compile(r"\s*\{#(" + _ID.pattern + r")\}\s*$")
# A question's attributes at the end of its text: its explicit id, the order to show its options
# in, or both ("{#q-id order=CADB}").
_QUESTION_ATTR = r"(?:#" + _ID.pattern + r"|order=[^\s{}]*)"
_QUESTION_ATTRS = re.compile(r"\s*\{(" + _QUESTION_ATTR + r"(?:\s+" + _QUESTION_ATTR + r")*)\}\s*$")
_HEADING_ATTRS = re.compile(r"\s*\{:?([^{}]*)\}\s*$")
_OPTION_MARK = re.compile(r"^[-*+]\s+\[([ xX])\]\s*")
_LIST_MARKER = re.compile(r"^\s*\d+[.)]\s+")

# Invisible characters that reorder or hide text: bidi embeddings, overrides, isolates and marks,
# and zero-width characters. In course items they make look-alike duplicates and ids, so they
# are refused; the one exception is a ZWNJ between two Arabic-script letters, where Urdu uses it
# to keep two letters of one word from joining (see CONTRIBUTING.md).
_INVISIBLE = re.compile("[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]")
_ZWNJ = "\u200c"


@cache
def tokenizer() -> MarkdownIt:
    """The CommonMark parser with the extensions whose tokens matter to course items.

    Built once per process and shared (the site reads headings with it too): building one costs
    more than parsing a page, and parsing leaves it unchanged.
    """
    md = MarkdownIt("commonmark").use(dollarmath_plugin)
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


def split_lines(text: str) -> list[str]:
    """Source lines as markdown-it numbers them (anything that maps lines must use this).

    Only CR, LF and CRLF end a line: ``str.splitlines()`` also splits at U+2028, form feeds and
    the like, which would shift every line number after them.
    """
    lines = re.split(r"\r\n|\r|\n", text)
    return lines[:-1] if lines and lines[-1] == "" else lines


def decode(path: str, data: bytes) -> tuple[str, CourseError | None]:
    """A source file's text: UTF-8, with or without a byte-order mark; else an error naming it."""
    try:
        return data.decode("utf-8").removeprefix("\ufeff"), None
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return "", CourseError(
            Location(path, line), f"not UTF-8 (byte 0x{data[exc.start]:02x}); save it as UTF-8"
        )


class _Source:
    """One file's lines plus helpers to name a place in it."""

    def __init__(self, path: str, text: str, languages: Iterable[str]) -> None:
        self.path = path
        self.lines = split_lines(text)
        self.languages = tuple(languages)  # those a quiz of this course may be written in
        self.errors: list[CourseError] = []

    def at(self, line0: int) -> Location:
        return Location(self.path, line0 + 1)

    def error(self, line0: int, message: str) -> None:
        self.errors.append(CourseError(self.at(line0), message))


def parse_course(root: Path, docs_dir: str = "docs", *, syntax: SiteSyntax) -> Course:
    """Parse every Markdown page under ``root/docs_dir`` and check the course-wide rules.

    ``root`` holds the course: its ``mkdocs.yml`` (settings, :mod:`tools.course.config`) and docs.
    A build that parses in worker processes calls the three steps itself
    (:func:`tools.course.check.start_checking`): pages parse independently.
    """
    sources = course_sources(root, docs_dir)
    parsed = parse_files(root, docs_dir, list(sources.files), sources.languages, syntax)
    return assemble(root, docs_dir, sources, parsed)


@dataclass(frozen=True)
class Sources:
    """What a parse starts from: the course's settings (None when they have errors, which are
    in ``errors``), its Markdown files (paths from the root) and its quizzes' languages."""

    config: CourseConfig | None
    errors: tuple[CourseError, ...]
    files: tuple[str, ...]
    languages: tuple[str, ...]


def course_sources(root: Path, docs_dir: str = "docs") -> Sources:
    from tools.course import config as course_config  # they read other files
    from tools.course import published

    errors: tuple[CourseError, ...] = ()
    try:
        config: CourseConfig | None = course_config.load(root)
    except CourseError as exc:
        config, errors = None, (exc,)
    languages = tuple(config.languages if config else LANGUAGES)
    skipped = published.ignored(root, docs_dir)  # never published, so never part of the course
    files = tuple(
        f.relative_to(root).as_posix()
        for f in sorted((root / docs_dir).rglob("*.md"))
        if f.relative_to(root / docs_dir).as_posix() not in skipped
    )
    return Sources(config, errors, files, languages)


def generated_files(config: CourseConfig | None) -> frozenset[str]:
    """The files a build of this course makes on the site: pages may link to them."""
    if config is None:
        return frozenset()
    return frozenset(f for f in (config.deck_file, config.practice_download) if f)


def assemble(
    root: Path,
    docs_dir: str,
    sources: Sources,
    parsed: Iterable[tuple[str, Page | None, list[CourseError]]],
) -> Course:
    """The course from its parsed files (:func:`parse_files`, in any order and any number of
    parts), with the course-wide rules checked: unique ids, links that resolve."""
    from tools.course import config as course_config  # they read other files
    from tools.course import identity, links, published

    found = {path: rest for path, *rest in parsed}
    errors = list(sources.errors)
    pages: list[Page] = []
    for path in sources.files:
        page, page_errors = found[path]
        if page is not None:
            pages.append(page)
        errors.extend(page_errors)
    errors.extend(_duplicate_ids(pages))
    errors.extend(links.check(pages, root / docs_dir, generated=generated_files(sources.config)))
    active = sources.config.active_files if sources.config else ()
    errors.extend(published.check(root, docs_dir, active))
    errors.extend(course_config.theme_problems(root))
    errors.extend(identity.check(root))
    return Course(
        pages=pages, errors=sorted(errors, key=lambda e: e.location), config=sources.config
    )


def parse_files(
    root: Path, docs_dir: str, files: list[str], languages: tuple[str, ...], syntax: SiteSyntax
) -> list[tuple[str, Page | None, list[CourseError]]]:
    """Each of ``files`` (paths from ``root``) read, parsed and its includes checked."""
    from tools.course import includes  # it reads other files

    out: list[tuple[str, Page | None, list[CourseError]]] = []
    for rel in files:
        text, error = decode(rel, (root / rel).read_bytes())
        if error:
            out.append((rel, None, [error]))
            continue
        docs_path = (root / rel).relative_to(root / docs_dir).as_posix()
        page, page_errors = parse_page(rel, docs_path, text, languages=languages, syntax=syntax)
        page_errors.extend(includes.check(root, rel, list(page.lines), syntax=syntax))
        out.append((rel, page, page_errors))
    return out


def parse_page(
    path: str,
    docs_path: str,
    text: str,
    *,
    syntax: SiteSyntax,
    languages: Iterable[str] = tuple(LANGUAGES),
) -> tuple[Page, list[CourseError]]:
    """Parse one page. ``path`` names the file in messages; ``docs_path`` is its site path;
    ``syntax`` gives headings the ids the site will give them.

    The page records all that its renderers need (blocks with their lines, headings with their
    ids and script, its source lines), so nothing parses or reads it again.
    """
    text = text.removeprefix("\ufeff")
    src = _Source(path, text, languages)
    tokens = tokenizer().parse(text)
    page = Page(path=path, docs_path=docs_path, title=_title(tokens) or docs_path)
    page.lines = tuple(src.lines)
    for index, token in _top_level(tokens):
        if token.type == "paragraph_open":
            group = _card_group(src, tokens[index + 1])
            if group:
                page.blocks.append((Span(*token.map), group))
        elif token.type == "container_quiz_open":
            span = _container_span(src, token)
            quiz = _quiz(src, tokens, index, page.title)
            if quiz:
                page.blocks.append((span, _question_spans(src, quiz, span)))
        elif token.type == "container_benchmark_open":
            page.blocks.append((_container_span(src, token), _embed(src, tokens, index)))
        elif token.type == "fence" and token.info.strip() == "console":
            example = _console_example(src, token)
            if example:
                page.examples.append(example)
        elif token.type == "html_block":
            _html_block(src, token)
    page.references = _page_references(src, tokens, src.lines, 0)
    page.prose = _prose(src, tokens)
    _stray_separators(src, tokens)
    _raw_html(src, tokens)
    _unsafe_math(src, tokens)
    _invisible_characters(src, page)
    page.headings = tuple(_headings(tokens, syntax))
    page.anchors = frozenset(h.anchor for h in page.headings) | _item_anchors(page)
    _anchor_collisions(src, page)
    return page, sorted(src.errors, key=lambda e: e.location)


def _question_spans(src: _Source, quiz: Quiz, span: Span) -> Quiz:
    """Each question's lines: from its first line to the next question (the last: to ':::')."""
    starts = [q.location.line - 1 for q in quiz.questions] + [max(span.end - 1, span.start)]
    questions = tuple(
        replace(q, span=Span(start, end), digest=source_hash(src.lines[start:end]))
        for q, start, end in zip(quiz.questions, starts, starts[1:], strict=False)
    )
    return replace(quiz, questions=questions)


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
    separators = _separators_by_line(inline)
    if not separators:
        return None
    assert inline.map is not None
    first = inline.map[0]
    cards: list[Card] = []
    for offset, raw in enumerate(inline.content.split("\n")):
        line0 = first + offset
        columns = separators.get(offset, [])
        if not columns:
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
    if not cards:
        return None
    return CardGroup(tuple(cards), src.at(first))


def _separators_by_line(inline: Token) -> dict[int, list[int]]:
    """Line offset in the paragraph -> columns of its ``card_separator`` tokens."""
    content = inline.content
    out: dict[int, list[int]] = {}
    for child in inline.children or []:
        if child.type == "card_separator":
            pos = child.meta["pos"]
            line_start = content.rfind("\n", 0, pos) + 1
            out.setdefault(content.count("\n", 0, pos), []).append(pos - line_start)
    return out


def _card(src: _Source, line0: int, raw: str, column: int) -> Card | None:
    front, back = raw[:column].strip(), raw[column + len(SEPARATOR) :].strip()
    explicit = _EXPLICIT_ID.search(back)
    if explicit:
        back = back[: explicit.start()].strip()
    if not front or not back:
        src.error(line0, f"flashcard has an empty {'question' if not front else 'answer'}")
        return None
    return Card(
        front,
        back,
        src.at(line0),
        explicit.group(1) if explicit else None,
        span=Span(line0, line0 + 1),
        digest=source_hash(src.lines[line0 : line0 + 1]),
    )


def _stray_separators(src: _Source, tokens: list[Token]) -> None:
    """Report ``:::`` lines where they would silently not be course items: nested in lists or
    quotes, in an admonition's body (indented text is code to CommonMark), or in a nested HTML
    block; and quiz or benchmark blocks that are not at the top level.

    One error per top-level list or quote, at its first card line: a card in a list makes every
    line after it, up to a blank line, part of the same item, so one mistake holds many lines.
    """
    quiz_depth = 0
    found: dict[int, tuple[str, list[int]]] = {}  # top-level block's first line -> kind, lines
    block = (0, "list")
    for token in tokens:
        if token.level == 0 and token.nesting == 1 and token.map:
            block = (token.map[0], "quote" if token.type == "blockquote_open" else "list")
        if token.type.startswith("container_quiz_"):
            if token.nesting == 1 and token.level > 0 and not quiz_depth and token.map:
                src.error(token.map[0], _NESTED_CONTAINER)
            quiz_depth += 1 if token.nesting == 1 else -1
        elif token.type == "container_benchmark_open" and token.level > 0 and token.map:
            src.error(token.map[0], _NESTED_CONTAINER)
        elif token.type == "inline" and token.level > 1 and token.map and not quiz_depth:
            lines = [token.map[0] + offset for offset in sorted(_separators_by_line(token))]
            if lines:
                found.setdefault(block[0], (block[1], []))[1].extend(lines)
        elif token.type == "code_block" and token.map and _admonition_body(src, token.map[0]):
            _separator_lines(
                src,
                token,
                "':::' in an admonition (its indented body is code to the checker): no card or "
                "quiz there is a course item, so it would be missing from the deck and shown as "
                "text; put it at the top level",
            )
        elif token.type == "html_block" and token.level > 0:
            _html_block(src, token)
    for kind, lines in found.values():
        message = "flashcards must be top-level paragraphs, not inside lists or quotes"
        if len(lines) > 1:
            message += (
                f" (this {kind} holds {len(lines)} card lines, {lines[0] + 1} to {lines[-1] + 1}:"
                " take them out of it, after a blank line)"
            )
        src.error(lines[0], message)


_ADMONITION_START = re.compile(r"^\s*(?:!!!|\?\?\?\+?)\s*[A-Za-z]")


def _admonition_body(src: _Source, line0: int) -> bool:
    """Whether the indented block starting at ``line0`` follows an ``!!!``/``???`` line."""
    above = [line for line in src.lines[:line0] if line.strip()]
    return bool(above) and bool(_ADMONITION_START.match(above[-1]))


_NESTED_CONTAINER = (
    "a ':::' block inside a list, quote or admonition is not a course item: put it at the top "
    "level, unindented"
)


def _html_block(src: _Source, token: Token) -> None:
    """An HTML block swallows the lines after it up to a blank line: cards there would vanish.

    A line starting with a tag starts such a block, so a card written that way, or a card line
    right after one, is an error instead of raw HTML on the page and a card missing from both.
    """
    _separator_lines(
        src,
        token,
        "':::' in an HTML block: a line starting with a tag makes the lines up to the next blank "
        "line raw HTML, so no card is found there (put a blank line before cards; put a tag in a "
        "card inside inline code)",
    )


def _separator_lines(src: _Source, token: Token, message: str) -> None:
    """``message`` at each line of ``token``'s content that holds a ':::' (a lost item)."""
    assert token.map is not None
    for offset, line in enumerate(token.content.split("\n")):
        if SEPARATOR in line:
            src.error(token.map[0] + offset, message)
            return


def _raw_html(src: _Source, tokens: list[Token]) -> None:
    """Raw HTML and link or image addresses in prose are errors, with their line, wherever the
    sanitiser of built pages (:mod:`tools.course.sanitize`) would change them: the author hears
    of it, nothing is dropped quietly.
    Cards and quizzes escape raw HTML, so theirs is text and not checked here."""
    quiz_depth = 0
    for token in tokens:
        if token.type.startswith("container_quiz_"):
            quiz_depth += 1 if token.nesting == 1 else -1
        if quiz_depth or token.map is None:
            continue
        pieces: list[tuple[str, int]] = []
        if token.type == "html_block":
            pieces += [(p, token.map[0] + k) for p, k in _html_block_problems(token.content)]
        elif token.type == "inline" and not _separators_by_line(token):
            for child, line0 in _inline_children(token):
                if child.type == "html_inline":
                    pieces += [(problem, line0) for problem in sanitize.problems(child.content)]
                elif child.type in ("link_open", "image"):
                    name = "href" if child.type == "link_open" else "src"
                    url = str(child.attrGet(name) or "")
                    if not sanitize.url_allowed(name, url):
                        pieces.append((f"the address {url!r} is not allowed", line0))
        for problem, line0 in pieces:
            src.error(line0, f"raw HTML or address: {problem} (write it as text or in code)")


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


# --- what course items and formulas hold -----------------------------------------------------


def _inline_children(inline: Token) -> Iterator[tuple[Token, int]]:
    """The children of an inline token with the source line (0-based) each starts on."""
    assert inline.map is not None
    line0 = inline.map[0]
    for child in inline.children or []:
        yield child, line0
        if child.type in ("softbreak", "hardbreak"):
            line0 += 1
        else:
            line0 += child.content.count("\n")


def _page_references(
    src: _Source, tokens: list[Token], lines: list[str], offset: int
) -> list[Reference]:
    """Every link and image address on the page, prose and course items alike, with its line.

    ``lines`` are the page's (or an admonition body's) lines, starting at page line ``offset``.
    An admonition's or collapsible block's body (``!!! note``, ``??? success``, indented four
    spaces) is an indented code block to CommonMark, but Python-Markdown renders it as Markdown
    and MkDocs checks its links: each body is parsed again, dedented, for its own links.
    """
    bodies = list(_admonition_bodies(lines))
    out = [
        ref
        for ref in _references(src, tokens, offset)
        if not any(start <= ref.location.line - 1 - offset < end for start, end, _ in bodies)
    ]
    for start, end, indent in bodies:
        body = [line[indent:] for line in lines[start:end]]
        body_tokens = tokenizer().parse("\n".join(body))
        out.extend(_page_references(src, body_tokens, body, offset + start))
    return sorted(out, key=lambda ref: ref.location)


_ADMONITION_OPENER = re.compile(r"^( *)(?:!!!|\?\?\?\+?)[ \t]")


def _admonition_bodies(lines: list[str]) -> Iterator[tuple[int, int, int]]:
    """``(first, end, indent)`` of each admonition body in ``lines`` (0-based, end exclusive)."""
    index = 0
    while index < len(lines):
        opener = _ADMONITION_OPENER.match(lines[index])
        index += 1
        if not opener:
            continue
        indent = " " * (len(opener.group(1)) + 4)
        start = end = index
        while index < len(lines) and (lines[index].startswith(indent) or not lines[index].strip()):
            index += 1
            if lines[index - 1].strip():
                end = index
        if end > start:
            yield start, end, len(indent)
        index = end


def _references(src: _Source, tokens: Iterable[Token], offset: int = 0) -> list[Reference]:
    """Every link and image address in ``tokens``' inline tokens, with its page line."""
    out = []
    for token in tokens:
        if token.type != "inline" or token.map is None:
            continue
        for child, line0 in _inline_children(token):
            if child.type in ("link_open", "image"):
                url = str(child.attrGet("href" if child.type == "link_open" else "src") or "")
                out.append(Reference(url, src.at(offset + line0), image=child.type == "image"))
    return out


def _unsafe_math(src: _Source, tokens: list[Token]) -> None:
    """Refuse TeX commands that carry links, styles, classes, HTML or Unicode escapes anywhere:
    in ``$...$`` math, and in any text Anki's MathJax would read as math once it is HTML
    (``\\\\(`` and ``&#92;(`` become ``\\(``; :func:`tools.course.model.unsafe_tex_in_text`),
    in every paragraph of prose, cards and quizzes, their explanations included, and in code."""
    formulas: list[tuple[str, int]] = []
    texts: list[tuple[str, int, bool]] = []  # (text, line, code: only closed formulas count)
    for token in tokens:
        if token.type.startswith("math_block") and token.map:
            formulas.append((token.content, token.map[0]))
        elif token.type in ("fence", "code_block") and token.map:
            texts.append((token.content, token.map[0], True))
        elif token.type == "inline" and token.map:
            text, start = "", token.map[0]
            for child, line0 in _inline_children(token):
                if child.type.startswith("math_inline"):
                    formulas.append((child.content, line0))
                elif child.type == "code_inline":
                    texts.append((child.content, line0, True))
                else:
                    text += "\n" if child.type in ("softbreak", "hardbreak") else child.content
            texts.append((text, start, False))
    for tex, line0 in formulas:
        command = unsafe_tex(tex)
        if command:
            src.error(line0, f"TeX command \\{command} is not allowed in course math")
    for text, line0, code in texts:
        problem = unsafe_tex_in_text(text, unclosed=not code)
        if problem:
            src.error(
                line0,
                f"text that MathJax typesets as math (\\( \\), \\[ \\], \\begin{{}}) holds "
                f"{problem}: write math as $...$, within the allowed TeX commands",
            )


def _invisible_characters(src: _Source, page: Page) -> None:
    """Bidi controls and zero-width characters in cards, questions, options and ids are errors."""
    for span, block in page.blocks:
        if isinstance(block, Embed):
            continue
        for line0 in range(span.start, min(span.end, len(src.lines))):
            line = src.lines[line0]
            for match in _INVISIBLE.finditer(line):
                if match.group() == _ZWNJ and _between_arabic_letters(line, match.start()):
                    continue
                name = unicodedata.name(match.group(), f"U+{ord(match.group()):04X}")
                src.error(
                    line0,
                    f"invisible character U+{ord(match.group()):04X} ({name}) at column "
                    f"{match.start() + 1}: it changes how text reads without showing; delete it",
                )


def _between_arabic_letters(line: str, index: int) -> bool:
    before, after = line[index - 1 : index], line[index + 1 : index + 2]
    return bool(before and after) and all(
        script_lang(c) == "ur" and unicodedata.category(c).startswith("L") for c in (before, after)
    )


# --- anchors ----------------------------------------------------------------------------------


def _headings(tokens: list[Token], syntax: SiteSyntax) -> Iterator[Heading]:
    """Each heading with the id the built page has, and its script (for direction and font).

    ``given``: the author wrote the id (``{#id}``). Else an Urdu ``#`` heading gets an Urdu slug
    (the site writes it into the heading, since the toc's ASCII slug of Urdu is empty) and any
    other heading the id the site's toc gives it (both from ``syntax``). The site and the link
    check use these.
    """
    used: set[str] = set()
    for index, token in enumerate(tokens):
        if token.type != "heading_open":
            continue
        assert token.map is not None
        inline = tokens[index + 1]
        attrs = _HEADING_ATTRS.search(inline.content)
        text = inline.content[: attrs.start()] if attrs else inline.content
        explicit = re.search(r"(?:^|\s)#([^\s}]+)", attrs.group(1)) if attrs else None
        atx = token.markup.startswith("#")
        if explicit:
            used.add(explicit.group(1))
            anchor = explicit.group(1)
        elif script_lang(text) == "ur" and atx:
            anchor = _unique_slug(syntax.urdu_heading_id(text.strip()) or "section", used)
        else:
            plain = "".join(
                c.content for c in inline.children or [] if c.type in ("text", "code_inline")
            )
            anchor = syntax.heading_id(plain, used)
        yield Heading(
            line=token.map[0],
            level=int(token.tag[1]),
            anchor=anchor,
            given=explicit is not None,
            lang=script_lang(text),
            atx=atx,
            top_level=token.level == 0,
            text=text.strip(),
        )


def _unique_slug(slug: str, used: set[str]) -> str:
    candidate, n = slug, 1
    while candidate in used:
        candidate, n = f"{slug}-{n}", n + 1
    used.add(candidate)
    return candidate


def _anchor_collisions(src: _Source, page: Page) -> None:
    """An item's anchor equal to a heading's id or to another item's anchor on the page would
    give the built page two elements with one id: links and the Review page would find the
    first only. Reported at the item."""
    taken = {h.anchor: f"the id of the heading at line {h.line + 1}" for h in page.headings}
    items = [(card.anchor, card.location, "card") for card in page.cards]
    for quiz in page.quizzes:
        items.append((f"quiz-{quiz.quiz_id}", quiz.location, "quiz"))
        items += [(q.anchor, q.location, "question") for q in quiz.questions]
    for anchor, location, what in sorted(items, key=lambda item: item[1]):
        if anchor in taken:
            src.errors.append(
                CourseError(location, f"this {what}'s id {anchor!r} is also {taken[anchor]}")
            )
        else:
            taken[anchor] = f"the id of the {what} at line {location.line}"


def _item_anchors(page: Page) -> frozenset[str]:
    anchors = {card.anchor for card in page.cards}
    for quiz in page.quizzes:
        anchors |= {f"quiz-{quiz.quiz_id}", *(q.anchor for q in quiz.questions)}
    return frozenset(anchors)


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
    if lang not in src.languages:
        src.error(
            opening.map[0],
            f"unknown language {lang!r} (this course has: {', '.join(src.languages)})",
        )
    quiz_id = attrs.get("id")
    if not quiz_id:
        src.error(opening.map[0], "a quiz needs an id (::: quiz id=some-name)")
    elif not _ID.fullmatch(quiz_id):
        src.error(
            opening.map[0],
            f"quiz id {quiz_id!r}: use letters, digits, '-' and '_', starting with a letter "
            "(the rule for explicit ids)",
        )
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
    if not quiz_id or lang not in src.languages or not questions:
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
    attrs = _QUESTION_ATTRS.search(prompt_raw)
    prompt = prompt_raw[: attrs.start()].strip() if attrs else prompt_raw
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
    explanation, unknown = option_order.resolve_references(
        _explanation(src, blocks[2:], item), options, script_lang(prompt)
    )
    for reference in unknown:
        src.error(line0, f"{reference} names no option of this question (use its source letter)")
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
    return Question(prompt, tuple(options), explanation, src.at(line0), explicit)


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
        if len(options) == len(option_order.LETTERS):
            src.error(line0, f"a question has at most {len(option_order.LETTERS)} options")
            break
        letter = option_order.LETTERS[len(options)]
        options.append(Option(text, mark.group(1) in "xX", src.at(line0), letter))
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


# --- running text -----------------------------------------------------------------------------

_ADMONITION_HEAD = re.compile(r"^(!!!|\?\?\?\+?)\s+\S+(?:\s+\"[^\"]*\")?\s*")
_FENCE = re.compile(r"^\s*(```|~~~)")


def _prose(src: _Source, tokens: list[Token]) -> tuple[Prose, ...]:
    """What a learner reads on the page as running text, for the check's cues (reading time,
    fragments): every paragraph, list item, table cell and heading, and the text of ``!!!``
    admonitions; not code, math, cards, quizzes, embeds, or what a ``???`` block collapses
    (solutions and examples, read when opened). A ``!!!``/``???`` line and its indented first
    paragraph are one paragraph to CommonMark, and the rest of the block is indented code."""
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
    return tuple(out)


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
    """Explicit ids and flashcard questions are course-wide (they make GUIDs)."""
    ids: list[tuple[str | None, Location]] = []
    for page in pages:
        ids += [(q.explicit_id, q.location) for quiz in page.quizzes for q in quiz.questions]
        ids += [(c.explicit_id, c.location) for c in page.cards]
        ids += [(quiz.quiz_id, quiz.location) for quiz in page.quizzes]
    errors = [
        CourseError(location, f"duplicate id {item_id!r} (first at {first})")
        for item_id, location, first in _repeats((i, at) for i, at in ids if i is not None)
    ]
    # Course-wide: a card's GUID is its question (tools.course.notes.note_guid), not its page.
    cards = ((normalize(card.front), card.location) for page in pages for card in page.cards)
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
