"""The one file that knows MkDocs: it hands MkDocs' events to the plain-Python course engine.

- ``on_config``: parse and check the whole course before MkDocs touches ``site/``; any problem
  stops the build with every ``path:line: message`` and nothing already built is lost. Under
  ``python3 -m tools build`` MkDocs runs in the CLI's process, which already checked the course:
  the hook reuses that course (:func:`tools.course_check.load_checked_course`), so each page is
  parsed once per build.
- ``on_files``: add the Anki deck to the site's files, for the download links, and the review
  page's item data (:mod:`tools.review`) when the course's scripts include it.
- ``on_page_markdown``: replace flashcards, quizzes and benchmark embeds by placeholders, and
  render their HTML (:mod:`tools.site_pages`).
- ``on_page_content``: put that HTML in place of the placeholders, turn the math that
  pymdownx.arithmatex marks into MathML (no JS, no network), and refuse a Markdown page whose
  content holds a script, a handler or a script address.
- ``on_post_page``: refuse any built page that would load something from outside the site.
- ``on_post_build``: collect the deck and the page scans, which ran in a second process
  (:mod:`tools.background`), and keep this build's page work for the next one
  (:mod:`tools.build_memo`), so a rebuild with nothing changed only redoes what MkDocs does.

The course is the folder of the ``mkdocs.yml`` being built, so another course with its own
``mkdocs.yml`` naming this file as a hook uses the same engine.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import TypeVar

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # MkDocs loads hooks by path

from tools import buildinfo, course_check, deck, deck_cache, offline, render, review, site_pages
from tools.background import Background
from tools.build_memo import MISSING, BuildMemo
from tools.model import Course

_course: Course | None = None
_root: Path = buildinfo.ROOT
_memo: BuildMemo | None = None
_blocks: dict[str, list[str]] = {}  # page -> its course blocks' HTML, until the page is converted
_background = Background()
_deck_job: tuple[str, Future] | None = None  # (cache key, job) of a deck being built
_scan_jobs: list[tuple[str, str, Future]] = []  # (page, memo key, job) of built-page scans
T = TypeVar("T")


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    global _course, _root, _memo
    _stop_background()  # a build that failed before on_post_build (mkdocs serve builds again)
    _root = Path(config.config_file_path).resolve().parent
    _memo = BuildMemo(_root / ".cache" / "build" / "memo.json")
    _course = course_check.load_checked_course(_root, strict_results=buildinfo.strict_results())
    if _course.errors:
        raise PluginError("the course sources have problems:\n" + course_check.report(_course))
    # mkdocs-jupyter keys its cache on the notebook file alone; the lab imports the snippets, so
    # a changed snippet must re-execute it: one cache folder per version of the snippets.
    jupyter = config.plugins.get("mkdocs-jupyter")
    if jupyter is not None:
        base = Path(jupyter.config["cache_dir"])
        jupyter.config["cache_dir"] = str(base / buildinfo.snippets_digest(_root))
    return config


def on_files(files: Files, *, config: MkDocsConfig) -> Files:
    """Add the deck as a file of the site, so pages can link to it and links are validated.

    A deck not in the cache is built in the background; its file is written in on_post_build.
    """
    global _deck_job
    assert _course is not None and _course.config is not None
    timestamp = buildinfo.source_date_epoch(_root)
    planned = deck_cache.plan(_course, root=_root, timestamp=timestamp)
    if planned.cached is None:
        job = _background.submit(
            deck.build_apkg, _course, timestamp=timestamp, root=_root, times=planned.times
        )
        _deck_job = (planned.key, job)
    content = planned.cached or b""
    files.append(File.generated(config, _course.config.deck_file, content=content))
    if not any(str(script) == review.INDEX_FILE for script in config.extra_javascript):
        return files  # this course has no review page
    review_page = files.get_file_from_path(review.REVIEW_PAGE)
    if review_page is None:
        raise PluginError(
            f"docs/{review.REVIEW_PAGE} is missing: the header's Review link needs it"
        )
    items = "\n".join(
        f"{e.guid} {e.page.docs_path} {e.item.digest} {e.page.title}"
        for e in deck.note_items(_course)
    )
    generated = _memo_get(
        "review", (review_page.url, items), lambda: review.site_files(_course, review_page.url)
    )
    for path, text in generated.items():
        files.append(File.generated(config, path, content=text))
    return files


def on_page_markdown(markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    course_page = _course.page(page.file.src_uri) if _course else None
    if course_page is None:
        return markdown

    def render_page() -> tuple[str, list[str]]:
        strict = buildinfo.strict_results()
        return site_pages.render_page(course_page, markdown, root=_root, strict_results=strict)

    if course_page.embeds:  # results files are inputs too (and stale ones warn): always render
        markdown, blocks = render_page()
    else:
        markdown, blocks = _memo_get(
            "page-markdown", (course_page.docs_path, markdown), render_page
        )
    _blocks[page.file.src_uri] = blocks
    return markdown


def on_page_content(html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    markdown_page = page.file.src_uri.endswith(".md")
    blocks = _blocks.pop(page.file.src_uri, [])

    def convert() -> list:
        out = site_pages.fill_blocks(html, blocks)
        out = render.mathml_in_html(offline.without_remote_scripts(out))
        return [out, offline.active_content(out) if markdown_page else []]

    html, active = _memo_get("page-content", (str(markdown_page), html, *blocks), convert)
    if markdown_page and active:
        raise PluginError(
            f"docs/{page.file.src_uri}: raw HTML that would run script: {active[0]} "
            "(write it as text or in code)"
        )
    return html


def on_post_page(output: str, *, page: Page, config: MkDocsConfig) -> str:
    """Scan the built page for remote loads: a stored answer, else a job in the background."""
    assert _memo is not None
    key, remote = _memo.find("remote-loads", (output,))
    if remote is MISSING:
        _scan_jobs.append(
            (page.file.src_uri, key, _background.submit(offline.remote_loads, output))
        )
    else:
        _memo.put(key, remote)
        _refuse_remote(page.file.src_uri, remote)
    return output


def on_post_build(*, config: MkDocsConfig) -> None:
    """Collect the background work (the build fails here if it found a problem), then keep this
    build's work for the next one."""
    assert _memo is not None and _course is not None and _course.config is not None
    try:
        for src_uri, key, job in _scan_jobs:
            remote = job.result()
            _memo.put(key, remote)
            _refuse_remote(src_uri, remote)
        if _deck_job is not None:
            key, job = _deck_job
            data = job.result()
            (Path(config.site_dir) / _course.config.deck_file).write_bytes(data)
            deck_cache.store(_root, key, data)
        _memo.save()
    finally:
        _stop_background()


def on_build_error(*, error: Exception) -> None:
    _stop_background()


def _stop_background() -> None:
    global _deck_job
    _scan_jobs.clear()
    _deck_job = None
    _background.close()


def _refuse_remote(src_uri: str, remote: list[str]) -> None:
    if remote:
        raise PluginError(f"docs/{src_uri} would load from outside the site: {remote[0]}")


def _memo_get(kind: str, inputs: tuple[str, ...], compute: Callable[[], T]) -> T:
    return _memo.get(kind, inputs, compute) if _memo is not None else compute()
