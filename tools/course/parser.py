"""Find the course items in Markdown: one markdown-it-py token stream, one small rule per item kind.

The parser never renders. It reads CommonMark tokens (so a ``:::`` inside a code block, inline
code or math is never mistaken for a card), keeps the raw Markdown source of every side, option
and explanation, and records where each item came from. Problems are collected, not raised, so
one run reports all of them; each is a :class:`~tools.course.model.CourseError` naming file
and line. The rules live in :mod:`tools.course.rules`, one module per item kind;
:func:`parse_page` runs them as :mod:`tools.course.rules.table` says, and the functions here
read the course's files and check the rules that span pages.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .model import (
    LANGUAGES,
    Course,
    CourseConfig,
    CourseError,
    Location,
    Page,
    SiteSyntax,
)
from .rules import front_matter, headings, ids, table
from .rules.source import PageState, Source
from .rules.tokens import tokenizer, top_level


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
    from . import config as course_config  # they read other files
    from . import published

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


def generated_files(config: CourseConfig | None) -> frozenset[str] | None:
    """The files a build of this course makes on the site: pages may link to them. None when
    its settings, which name them, have errors: which they are is not known."""
    if config is None:
        return None
    return frozenset(f for f in (config.deck_file, config.practice_download) if f)


def assemble(
    root: Path,
    docs_dir: str,
    sources: Sources,
    parsed: Iterable[tuple[str, Page | None, list[CourseError]]],
) -> Course:
    """The course from its parsed files (:func:`parse_files`, in any order and any number of
    parts), with the course-wide rules checked: unique ids, links that resolve."""
    from . import config as course_config  # they read other files
    from . import identity, links, published

    found = {path: rest for path, *rest in parsed}
    errors = list(sources.errors)
    pages: list[Page] = []
    for path in sources.files:
        page, page_errors = found[path]
        if page is not None:
            pages.append(page)
        errors.extend(page_errors)
    errors.extend(ids.duplicate_ids(pages))
    errors.extend(links.check(pages, root / docs_dir, generated=generated_files(sources.config)))
    active = sources.config.active_files if sources.config else None
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
    from . import includes  # it reads other files

    out: list[tuple[str, Page | None, list[CourseError]]] = []
    for rel in files:
        text, error = decode(rel, (root / rel).read_bytes())
        if error:
            out.append((rel, None, [error]))
            continue
        in_docs = path_in_docs(root, docs_dir, rel)
        page, page_errors = parse_page(rel, in_docs, text, languages=languages, syntax=syntax)
        page_errors.extend(includes.check(root, rel, list(page.lines), syntax=syntax))
        out.append((rel, page, page_errors))
    return out


def path_in_docs(root: Path, docs_dir: str, path: str) -> str:
    """A page's path in the docs folder (its site path), from its path from ``root``."""
    return (root / path).relative_to(root / docs_dir).as_posix()


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
    src = Source(path, split_lines(text), languages)
    meta = front_matter.read(src, *syntax.metadata(text))
    if meta.lines:  # blank, so that the lines after it keep their numbers
        text = "\n" * meta.lines + "\n".join(src.lines[meta.lines :]) + "\n"
    tokens = tokenizer().parse(text)
    title = meta.title or headings.title(tokens) or docs_path  # MkDocs' order
    page = Page(path=path, docs_path=docs_path, title=title)
    page.lines = tuple(src.lines)
    state = PageState(src, tokens, page, syntax)
    for index, token in top_level(tokens):
        rule = table.BLOCK.get(token.type)
        if rule:
            rule(state, index)
    for _, rule in table.PAGE:
        rule(state)
    return page, sorted(src.errors, key=lambda e: e.location)
