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
- ``on_post_build``: keep this build's page work for the next one (:mod:`tools.build_memo`), so
  a rebuild with nothing changed only redoes what MkDocs itself does.

The course is the folder of the ``mkdocs.yml`` being built, so another course with its own
``mkdocs.yml`` naming this file as a hook uses the same engine.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # MkDocs loads hooks by path

from tools import buildinfo, course_check, deck, deck_cache, offline, render, review, site_pages
from tools.build_memo import BuildMemo
from tools.model import Course

_course: Course | None = None
_root: Path = buildinfo.ROOT
_memo: BuildMemo | None = None
_blocks: dict[str, list[str]] = {}  # page -> its course blocks' HTML, until the page is converted
T = TypeVar("T")


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    global _course, _root, _memo
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
    """Add the deck as a file of the site, so pages can link to it and links are validated."""
    assert _course is not None and _course.config is not None
    data = deck_cache.apkg(_course, root=_root, timestamp=buildinfo.source_date_epoch(_root))
    files.append(File.generated(config, _course.config.deck_file, content=data))
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
    remote = _memo_get("remote-loads", (output,), lambda: offline.remote_loads(output))
    if remote:
        raise PluginError(f"docs/{page.file.src_uri} would load from outside the site: {remote[0]}")
    return output


def on_post_build(*, config: MkDocsConfig) -> None:
    if _memo is not None:
        _memo.save()


def _memo_get(kind: str, inputs: tuple[str, ...], compute: Callable[[], T]) -> T:
    return _memo.get(kind, inputs, compute) if _memo is not None else compute()
