"""Validation: everything that can be wrong in the sources, found in one run without writing.

``check``, ``deck`` and the MkDocs plugin all start here, so they report the same problems. A
build parses the course once: when the CLI runs MkDocs in its own process, it hands the plugin
the course it already checked, and under ``mkdocs serve`` the plugin keeps the course it checked
while :func:`sources_stamp` stays the same, so it re-parses only after an edit. Given the
build's worker processes (:mod:`tools.buildkit.workers`), the pages are parsed there, split among
them, while the CLI loads MkDocs (:func:`start_checking`).
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import Future
from pathlib import Path

from ..buildkit.digest import Digest
from ..buildkit.workers import Background
from . import config as course_config
from . import cues, navigation, note_templates, parser
from .model import Course, CourseConfig, CourseError, Embed, Location, Page, SiteSyntax

PARTS_PER_WORKER = 4  # the pages are sent to the workers in this many parts each
_TEXT = {".md", ".yml", ".yaml", ".json", ".py", ".txt", ".csv"}


def load_checked_course(
    root: Path,
    *,
    syntax: SiteSyntax,
    strict_results: bool = False,
    workers: Background | None = None,
) -> Course:
    """Parse the course and add the problems of its embeds (missing or malformed results).

    Embeds are checked, not rendered: rendering is the site's job, once.
    """
    return start_checking(root, syntax=syntax, strict_results=strict_results, workers=workers)()


def start_checking(
    root: Path,
    *,
    syntax: SiteSyntax,
    strict_results: bool = False,
    workers: Background | None = None,
) -> Checking:
    """:func:`load_checked_course` in two steps: this call starts parsing the pages, split
    among the build's ``workers`` when it has them, and returns, so the caller can load MkDocs
    meanwhile; calling what it returns waits for the pages and finishes the check."""
    docs = course_config.docs_dir(root)
    sources = parser.course_sources(root, docs)
    files, languages = list(sources.files), sources.languages
    if workers is None:
        runs = [files]
        parts: list[Future] = [Future()]
        parts[0].set_result(parser.parse_files(root, docs, files, languages, syntax))
    else:
        # More parts than workers: each part's pages come back, and are read in by this
        # process, while the workers parse the next ones, so only the last part's wait for that.
        # Each part is a run of pages in the order the site generator reads them, and the parts
        # are sent in that order, so the first pages it reads are back first (Checking.page).
        n = workers.workers * PARTS_PER_WORKER
        order = sorted(
            files, key=lambda rel: syntax.reading_order(parser.path_in_docs(root, docs, rel))
        )
        runs = [order[len(order) * i // n : len(order) * (i + 1) // n] for i in range(n)]
        parts = [
            workers.submit(parser.parse_files, root, docs, run, languages, syntax) for run in runs
        ]
    return Checking(root, docs, sources, runs, parts, strict_results)


class Checking:
    """A course whose pages are being parsed (:func:`start_checking`): call it for the checked
    course. A caller with work to do on each page does it while the pages after it still parse:
    the deck in :meth:`pages`, the site as MkDocs reaches each page (:meth:`page`)."""

    def __init__(
        self,
        root: Path,
        docs: str,
        sources: parser.Sources,
        runs: list[list[str]],
        parts: list[Future],
        strict_results: bool,
    ) -> None:
        """``runs``: the course's pages (paths from the root), in runs; ``parts``: the parse of
        each run (:func:`tools.course.parser.parse_files`), under way."""
        self.root, self.docs, self.sources = root, docs, sources
        self._parts, self._strict_results = parts, strict_results
        self._part_of = {path: part for run, part in zip(runs, parts, strict=True) for path in run}
        self._parsed: dict[str, tuple[Page | None, list[CourseError]]] = {}  # path -> its parse
        self._course: Course | None = None
        # Read now, not with the pages: the deck is made from them while the pages parse.
        config = sources.config
        self._templates = note_templates.problems(root, config.deck_templates) if config else []

    @property
    def config(self) -> CourseConfig | None:
        """The course's settings, read before any page (None when they, or the note templates
        they name, have errors: nothing is to be made from them)."""
        return None if self._templates else self.sources.config

    @property
    def parsed(self) -> bool:
        """Whether every page is back from the parse: calling the check then waits for none."""
        return all(part.done() for part in self._parts)

    @property
    def finished(self) -> bool:
        """Whether the course was checked whole (called once): it then needs no worker again."""
        return self._course is not None

    def pages(self) -> Iterator[Page]:
        """The pages that parsed, in the course's order (that of the checked course's pages,
        the same objects), each as soon as its part is back; not yet checked together."""
        for path in self.sources.files:
            page, _ = self._parse(path)
            if page is not None:
                yield page

    def page(self, docs_path: str) -> tuple[Page | None, list[CourseError]]:
        """The page at ``docs_path`` (from the docs folder) and its own problems, as soon as its
        part is back (the same object as the checked course's page); the course-wide rules are
        not checked yet. ``(None, [])`` for a file that is not one of the course's pages."""
        return self._parse((self.root / self.docs / docs_path).relative_to(self.root).as_posix())

    def _parse(self, path: str) -> tuple[Page | None, list[CourseError]]:
        """:meth:`page` by the page's path from the root."""
        part = self._part_of.get(path)
        if part is not None and path not in self._parsed:
            self._parsed.update((rel, (page, errors)) for rel, page, errors in part.result())
        return self._parsed.get(path, (None, []))

    def __call__(self) -> Course:
        if self._course is None:
            parsed = (row for part in self._parts for row in part.result())
            course = parser.assemble(self.root, self.docs, self.sources, parsed)
            course.errors.extend(self._templates)
            course.errors.extend(navigation.problems(self.root, self.docs, self.sources.files))
            _check_embeds(course, self.root, self._strict_results)
            course.errors.sort(key=lambda error: error.location)
            self._course = course
        return self._course


def _check_embeds(course: Course, root: Path, strict_results: bool) -> None:
    if not any(page.embeds for page in course.pages):
        return
    from .. import benchmarks  # imported where used: a course without embeds needs none

    if course.config is None:  # its settings' error is reported; without them, no registry
        return
    registry = course_config.benchmarks(root)
    reported: set[str] = set()  # a broken results file breaks every embed of it: say so once
    for page in course.pages:
        for embed in page.embeds:
            try:
                benchmarks.check_embed(list(embed.args), root, registry, strict=strict_results)
            except benchmarks.BenchmarkError as exc:
                if str(exc) not in reported:
                    reported.add(str(exc))
                    course.errors.append(CourseError(_embed_error_at(exc, embed), str(exc)))


def _embed_error_at(exc: Exception, embed: Embed) -> Location:
    """A declared benchmark that does not import is the setting's fault: its line in
    ``mkdocs.yml``; anything else is the embed's."""
    from .. import benchmarks

    if isinstance(exc, benchmarks.RegistryError):
        return Location(exc.file, exc.line)
    return embed.location


def sources_stamp(root: Path) -> tuple:
    """What the checked course depends on: every file it reads, by content where it is text.

    The course reads its settings, its pages, the files they link to or include (docs/,
    snippets/) and the benchmark results. Text sources are hashed (an edit within one clock tick
    keeps size and time); fonts and images are known by size and time.
    """
    files = [root / course_config.CONFIG_FILE]
    for folder in (course_config.docs_dir(root), "snippets"):
        files += sorted(p for p in (root / folder).rglob("*") if p.is_file())
    stamp = []
    for path in files:
        try:
            if path.suffix in _TEXT:
                stamp.append((str(path), Digest().data(path.read_bytes()).hexdigest()))
            else:
                info = path.stat()
                stamp.append((str(path), info.st_size, info.st_mtime_ns))
        except OSError:
            continue
    return tuple(stamp)


def report(course: Course) -> str:
    return "\n".join(str(error) for error in course.errors)


def cue_warnings(course: Course) -> list[str]:
    """``path:line: warning: ...`` for what the sources give away or get wrong without being
    broken (:mod:`tools.course.cues`: quiz cues, fragments, exercise order, reading time). They
    are warnings: the build goes on."""
    return cues.course_warnings(course)
