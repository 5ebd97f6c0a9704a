"""The state of one build of the site, from ``on_config`` to ``on_post_build``: what the course
plugin (:mod:`tools.plugin.plugin`) does at each of MkDocs' events, on the plain-Python engine.

- configure (``on_config``): the notebook plugin's settings. The course's pages are still being
  parsed, in the build's workers, while MkDocs reads them: MkDocs waits for none of it here.
- files (``on_files``): leave out the files git ignores under the docs folder
  (:mod:`tools.course.published`), add the Anki deck to the site's files, for the download
  links, and the review page's item data (:mod:`tools.plugin.review`) when the course's scripts
  include it; both are made in the background (:mod:`tools.buildkit.workers`) from the course
  checked whole (:meth:`SiteBuild.checked_course`).
- page_markdown: wait for the page's own parse (a page with a problem, or with embeds, for the
  whole check: any problem stops the build with every ``path:line: message``, and nothing
  already built is lost), replace flashcards, quizzes and benchmark embeds by placeholders,
  and render their HTML (:mod:`tools.plugin.pages`); write the home page's learning path from
  ``nav`` (:mod:`tools.plugin.learning_path`). Once every page has parsed, the course is
  checked whole and its deck started; ``on_env``, after the last page, waits for that.
- page_content: turn the math that pymdownx.arithmatex marks, and the ``$...$`` of a notebook's
  Markdown cells, into MathML (no JS, no network) and put the embeds' HTML in place of their
  placeholders.
- page_context, after Material's search has indexed the page: put the cards and quizzes in
  place, read each card and question back as a search entry of its own, and, in the
  background, check that each item is in the page as an element of its own and scan a Markdown
  page's content for a script, a handler or a script address. Search results
  then link to the item itself, and the search plugin never parses the items' markup.
- check_later (``on_post_page``): scan the built page, in the background and in one reading,
  for anything it would load from outside the site and for script that is not the theme's own.
- finish (``on_post_build``): collect the background work, failing the build on anything a scan
  found (nothing is published then), write the deck and review data, add the item entries to
  Material's search index, and keep this build's page work for the next one
  (:mod:`tools.buildkit.memo`).

The course is the folder of the ``mkdocs.yml`` being built, so another course with its own
``mkdocs.yml`` that lists the plugin uses the same engine.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from ..anki import deck_cache
from ..benchmarks import registry as benchmark_registry
from ..buildkit import buildinfo
from ..buildkit.memo import MISSING, BuildMemo
from ..buildkit.workers import Background
from ..course import check as course_check
from ..course import config as course_config
from ..course import notes, published, sanitize
from ..course.model import Course
from ..course.model import Page as CoursePage
from ..render import mathml
from . import assets as site_assets
from . import css_minify, lab, learning_path, offline, outputs, review
from . import pages as site_pages
from . import search as site_search
from .pages import PageBlock


def course_download(target: str, root: Path) -> bytes:
    """A worker job: the bytes of a download that the course's own function ``target``
    (``module:function``, checked by :func:`tools.course.config.load`) makes. It is imported in
    the worker, by the course's folder, so the engine names no module of a course."""
    made = benchmark_registry.import_target(target, root)()
    if not isinstance(made, bytes):
        raise PluginError(f"{target} made a {type(made).__name__}, not the download's bytes")
    return made


class SiteBuild:
    """The state of one build of the site, from ``on_config`` to ``on_post_build``."""

    def __init__(
        self,
        config: MkDocsConfig,
        course: course_check.Checking,
        background: Background,
        checked: Callable[[], Course | None] | None = None,
    ) -> None:
        """``course`` is being checked (:func:`tools.course.check.start_checking`), in
        ``background``, the build's worker pool. ``checked()`` waits for the whole check and
        returns the course, or reports its problems and returns None; without it, the problems
        are this build's error. A course whose settings have problems stops the build here."""
        self.root = Path(config.config_file_path).resolve().parent
        # The docs folder as messages name it: from the course's folder, like the course's.
        self.docs_name = Path(os.path.relpath(config.docs_dir, self.root)).as_posix()
        self.strict_results = buildinfo.strict_results()
        self.memo = BuildMemo(self.root / ".cache" / "build" / "memo.json")
        self.blocks: dict[str, list[PageBlock]] = {}  # page -> its blocks, until they are in place
        self.search_entries: dict[str, list[dict[str, str]]] = {}  # page URL -> its items' entries
        # Background jobs, and what to do with each result once the pages are built.
        self.pending: list[tuple[Future, Callable[[Any], None]]] = []
        self.background = background
        self.checking, self._checked = course, checked or _problems_raised(course)
        self.course: Course | None = None  # the course checked whole (checked_course)
        self.config = course.config
        self.site = Path(config.site_dir)
        self.review_url = ""  # the review page's address, once MkDocs has found it (add_files)
        if self.config is None:  # its settings have problems (no page can be built without them)
            self.checked_course()
        self.benchmarks = course_config.benchmarks(self.root)  # what its embeds may name
        self.course_assets = site_assets.course_assets(self.benchmarks)  # their views' files
        self.outputs = outputs.Outputs()  # what the site folder may hold at the end
        self.jupyter: Any = None
        self.execute_lab = False
        self.background.limit(1)  # the second core; MkDocs keeps the first busy

    def configure(self, config: MkDocsConfig) -> None:
        """The build executes the lab notebook itself, confined (:mod:`tools.plugin.lab`);
        mkdocs-jupyter only renders the executed notebook, so its ``execute`` is turned off.
        mkdocs-jupyter keys its cache on the notebook file alone; the lab imports the snippets,
        so a changed snippet must re-render it: one cache folder per version of the snippets
        (and of the kernel's settings, which decide what its outputs hold)."""
        self.nav, self.docs = config.nav or [], Path(config.docs_dir)
        # The engine lists the Review page's index only for a course with a Review page.
        self.reviewed = review.INDEX_FILE in map(str, config.extra_javascript)
        # Page-only stylesheets and scripts on their pages only, every script after the first
        # paint (page_context).
        self.page_assets = site_assets.split(
            config.extra_css, config.extra_javascript, self.course_assets
        )
        jupyter = config.plugins.get("mkdocs-jupyter")
        if jupyter is not None:
            self.jupyter, self.execute_lab = jupyter, bool(jupyter.config["execute"])
            jupyter.config["execute"] = False
            base = Path(jupyter.config["cache_dir"])
            version = f"{buildinfo.snippets_digest(self.root)}-{lab.settings_digest()}"
            jupyter.config["cache_dir"] = str(base / version)

    def minified_css(self, text: str, name: str) -> str:
        """An engine stylesheet as the site serves it (:func:`tools.plugin.css_minify.minified`),
        kept for the next build."""
        return self.memo.get("minified-css", (text,), lambda: css_minify.minified(text, name))

    def record_files(self, files: Files, config: MkDocsConfig) -> None:
        """Once every plugin has added its files: what MkDocs will copy, with its sources'
        digests (:mod:`tools.plugin.outputs`)."""
        self.outputs.record_files(files, Path(config.docs_dir))

    def add_files(self, files: Files, config: MkDocsConfig) -> Files:
        for ignored in published.ignored(self.root, self.docs_name):
            file = files.get_file_from_path(ignored)
            if file is not None:  # git ignores it: not part of the site
                files.remove(file)
        files.append(File.generated(config, self.config.deck_file, content=b""))
        practice = self.config.practice_download  # the practice workspace's zip
        if practice:
            zipped = self.background.submit(
                course_download,
                course_config.course_function(self.root, "practice_bundle"),
                self.root,
            )
            self.pending.append((zipped, lambda data: self.publish(self.site, practice, data)))
            files.append(File.generated(config, practice, content=b""))
        if self.reviewed:  # the deck as the review page's script, and its data: written at the end
            review_page = files.get_file_from_path(review.REVIEW_PAGE)
            if review_page is None:
                raise PluginError(
                    f"{self.docs_name}/{review.REVIEW_PAGE} is missing: "
                    "the header's Review link needs it"
                )
            self.review_url = review_page.url
            for path in (review.ANKI_FILE, *review.SITE_FILES):
                files.append(File.generated(config, path, content=b""))
        return files

    def checked_course(self) -> Course:
        """The course checked whole, waited for; a course with problems stops the build here.
        The first time, the deck and the review page's data start in the background."""
        if self.course is not None:
            return self.course
        course = self._checked()
        if course is None:  # its problems are reported
            raise SystemExit(1)
        self.course = course
        deck_file = course.config.deck_file
        key, generated = None, None
        if self.reviewed:  # its data is made from the items and the settings: keyed on both
            pages = (f"{p.docs_path}\0{p.title}\0" + "\n".join(p.lines) for p in course.pages)
            key, generated = self.memo.find(
                "review", (self.review_url, repr(course.config), *pages)
            )
        job = self.background.submit(
            background_files,
            course,
            root=self.root,
            timestamp=course_config.timestamp(self.root, course.config),
            reviewed=self.reviewed,
            review_page=self.review_url if generated is MISSING else None,
        )

        def write(made: tuple[bytes, dict[str, str] | None, bytes | None]) -> None:
            self.publish(self.site, deck_file, made[0])
            if not self.reviewed:  # this course has no review page
                return
            self.publish(self.site, review.ANKI_FILE, made[2])  # the deck's collection, for Anki
            data = generated if made[1] is None else made[1]
            self.memo.put(key, data)
            for name, text in data.items():
                self.publish(self.site, name, text.encode("utf-8"))

        self.pending.append((job, write))
        return course

    def course_page(self, page: Page) -> CoursePage | None:
        """The course's page of MkDocs' ``page``, as soon as it has parsed. One with problems,
        or with embeds (whose results the whole check reads), waits for the whole check."""
        found, problems = self.checking.page(page.file.src_uri)
        if problems or (found is not None and found.embeds) or self.checking.parsed:
            self.checked_course()  # once: the last page is back, or this one needs all
        return found

    def publish(self, site: Path, name: str, data: bytes) -> None:
        """Write a generated file into the site, as one of the files it may hold."""
        (site / name).write_bytes(data)
        self.outputs.written(name, data)

    def lab_page(self, page: Page) -> None:
        """Render a notebook page from its executed copy (:func:`tools.plugin.lab.executed`):
        mkdocs-jupyter reads the file its page names while it renders, so the page names the
        executed ``.ipynb`` for that time and its source again after."""
        if not self.execute_lab or not self.jupyter.should_include(page.file):
            return
        render = page.render

        def render_executed(config: MkDocsConfig, files: Files) -> None:
            source = page.file.abs_src_path
            try:
                page.file.abs_src_path = str(lab.executed(Path(source), self.root))
            except lab.LabError as exc:
                raise PluginError(str(exc)) from None
            try:
                render(config, files)
            finally:
                page.file.abs_src_path = source
            page.content = lab.without_stray_style(page.content or "")

        page.render = render_executed

    def page_markdown(self, markdown: str, page: Page) -> str:
        course_page = self.course_page(page)
        if course_page is None:
            return markdown

        def render_page() -> tuple[str, list[PageBlock]]:
            try:
                return site_pages.render_page(
                    course_page,
                    markdown,
                    root=self.root,
                    strict_results=self.strict_results,
                    benchmarks=self.benchmarks,
                )
            except site_pages.SiteError as exc:  # its message starts with path:line
                raise PluginError(str(exc)) from None

        if course_page.embeds:  # results files are inputs too (and stale ones warn): always render
            markdown, blocks = render_page()
        else:
            markdown, blocks = self.memo.get(
                "page-markdown", (course_page.docs_path, markdown), render_page
            )
        self.blocks[page.file.src_uri] = [PageBlock(*block) for block in blocks]  # the memo's lists
        try:  # after the memo: the path follows nav and the other pages' times
            return learning_path.fill(
                markdown, page=page.file.src_uri, nav=self.nav, docs=self.docs
            )
        except learning_path.PathError as exc:
            raise PluginError(f"{course_page.docs_path}: {exc}") from None

    def page_content(self, html: str, page: Page) -> str:
        blocks = self.blocks.get(page.file.src_uri, [])
        markdown_page = page.file.src_uri.endswith(".md")

        def convert() -> str:
            clean = sanitize.clean_page if markdown_page else sanitize.clean_notebook
            converted = mathml.notebook_math_in_html(
                mathml.mathml_in_html(clean(offline.without_remote_scripts(html)))
            )
            return converted if markdown_page else site_search.without_copies(converted)

        html = self.memo.get("page-content", (str(markdown_page), html), convert)
        return site_search.without_repeats(self.fill(html, blocks, items=False, page=page))

    def page_context(self, page: Page) -> dict[str, list[str]]:
        """Put the page's items in place and have them and the page checked; the template's
        variables for the page-only stylesheets and scripts it uses."""
        blocks = self.blocks.pop(page.file.src_uri, [])
        if blocks:
            page.content = self.fill(page.content, blocks, items=True, page=page)
            course_page = self.course_page(page)
            if course_page:  # each item in place, once: read in the background, like the scans
                anchors = site_pages.item_anchors(course_page)
                lost = self.background.submit_small(site_pages.lost_items, page.content, anchors)
                self.pending.append((lost, _refuse_lost))
            key, found = self.memo.find("search-entries", tuple(b.html for b in blocks if b.item))

            def add(entries: list[dict[str, str]]) -> None:
                self.memo.put(key, entries)
                self.search_entries[page.url] = entries

            if found is MISSING:
                job = self.background.submit_small(site_pages.search_entries, blocks)
                self.pending.append((job, add))
            else:
                add(found)
        # Markdown pages, and the lab notebook (its template's own scripts apart)
        markdown_page = page.file.src_uri.endswith(".md")
        scan = offline.active_content if markdown_page else offline.notebook_active_content
        self.check_later(page.content, page, scan, "active-content")
        return self.page_assets.of(page.content)

    def fill(self, html: str, blocks: list[PageBlock], *, items: bool, page: Page) -> str:
        """:func:`tools.plugin.pages.fill_blocks`, its problems as ``path:line`` build errors."""
        course_page = self.course_page(page)
        try:
            return site_pages.fill_blocks(html, blocks, items=items, page=course_page)
        except site_pages.SiteError as exc:
            raise PluginError(str(exc)) from None

    def check_later(self, html: str, page: Page, scan: Callable[[str], Any], *kinds: str) -> None:
        """Scan ``html`` in the background, or take the stored answer, and act on it now.

        ``scan`` finds a list of problems for one kind, or a list per kind for several: one
        reading of a whole built page answers both of its checks (remote loads, script)."""
        key, found = self.memo.find("+".join(kinds), (html,))

        def use(found: list) -> None:
            self.memo.put(key, found)
            for kind, problems in zip(kinds, found if len(kinds) > 1 else [found], strict=True):
                _refuse(kind, f"{self.docs_name}/{page.file.src_uri}", problems)

        if found is MISSING:
            self.pending.append((self.background.submit_small(scan, html), use))
        else:
            use(found)

    def finish(self, config: MkDocsConfig) -> None:
        """Collect the background work (the build fails here if it found a problem), write the
        files it made and the search entries of cards and questions, then keep this build's work
        for the next one."""
        self.background.flush()
        for job, use in self.pending:
            use(_result(job))
        site = Path(config.site_dir)
        index_file = site / "search" / "search_index.json"
        site_search.add_item_entries(index_file, self.search_entries)
        if index_file.is_file():  # Material's search wrote it after every page was built
            self.outputs.written("search/search_index.json", index_file.read_bytes())
        self.memo.save()
        found = self.outputs.problems(site)
        if found:
            shown = "\n  ".join(found[:20])
            raise PluginError(
                f"the site folder holds what the build did not make ({len(found)}):\n  {shown}\n"
                "Something the build ran (a lab cell, a snippet) wrote it; nothing was published."
            )


def _problems_raised(checking: course_check.Checking) -> Callable[[], Course]:
    """The whole check of ``checking``, its problems (each ``path:line: message``) raised."""

    def checked() -> Course:
        course = checking()
        if course.errors:
            raise PluginError("the course sources have problems:\n" + course_check.report(course))
        return course

    return checked


def background_files(
    course: Course,
    *,
    root: Path,
    timestamp: int,
    reviewed: bool,
    review_page: str | None,
) -> tuple[bytes, dict[str, str] | None, bytes | None]:
    """A worker's job: the deck (:func:`tools.anki.deck_cache.apkg`); for a course with a Review
    page (``reviewed``) the deck as that page's script (:func:`tools.plugin.review.anki_script`),
    and its data (:func:`tools.plugin.review.site_files`) when ``review_page``, its address,
    says that the data is to be made. One job for all, so the course, which is most of what a
    job is sent, goes to the worker once; and the notes are listed and the script written
    there, not in the process that runs MkDocs, which the build waits for."""
    items = notes.note_items(course)  # the deck's and the review page's notes
    apkg = deck_cache.apkg(course, items, root=root, timestamp=timestamp)
    data = review.site_files(items, review_page) if review_page else None
    script = review.anki_script(apkg).encode("utf-8") if reviewed else None
    return apkg, data, script


def _result(job: Future) -> Any:
    """A background job's result; its failure (or the worker's) as a build error."""
    try:
        return job.result()
    except Exception as exc:
        raise PluginError(f"background work of the build failed: {exc!r}") from exc


def _refuse_lost(found: list[str]) -> None:
    """The items missing from a built page (:func:`tools.plugin.pages.lost_items`), each message
    naming its item's path and line, as the build's error."""
    if found:
        raise PluginError("\n".join(found))


def _refuse(kind: str, source: str, found: list[str]) -> None:
    if not found:
        return
    if kind == "active-content":
        raise PluginError(
            f"{source}: raw HTML that would run script: {found[0]} (write it as text or in code)"
        )
    if kind == "built-page-script":
        raise PluginError(
            f"{source}: the built page would run script that is not the theme's own: "
            f"{found[0]} (from overrides/, a theme setting or an extra: setting in mkdocs.yml)"
        )
    raise PluginError(f"{source} would load from outside the site: {found[0]}")
