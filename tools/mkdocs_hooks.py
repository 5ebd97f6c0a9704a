"""The one file that knows MkDocs: it hands MkDocs' events to the plain-Python course engine.

- ``on_config``: parse and check the whole course before MkDocs touches ``site/``; any problem
  stops the build with every ``path:line: message`` and nothing already built is lost. Under
  ``python3 -m tools build`` MkDocs runs in the CLI's process, which already checked the course:
  the hook reuses that course (:func:`tools.course_check.load_checked_course`), so each page is
  parsed once per build.
- ``on_files``: add the Anki deck to the site's files, for the download links, and the review
  page's item data (:mod:`tools.review`) when the course's scripts include it; both are made in
  the background (:mod:`tools.background`).
- ``on_page_markdown``: replace flashcards, quizzes and benchmark embeds by placeholders, and
  render their HTML (:mod:`tools.site_pages`).
- ``on_page_content``: turn the math that pymdownx.arithmatex marks into MathML (no JS, no
  network) and put the embeds' HTML in place of their placeholders.
- ``on_page_context``, after Material's search has indexed the page: put the cards and quizzes
  in place, read each card and question back as a search entry of its own, and scan a Markdown
  page's content for a script, a handler or a script address, in the background. Search results
  then link to the item itself, and the search plugin never parses the items' markup.
- ``on_post_page``: scan the built page, in the background, for anything it would load from
  outside the site.
- ``on_post_build``: collect the background work, failing the build on anything a scan found
  (nothing is published then), write the deck and review data, add the item entries to
  Material's search index, and keep this build's page work for the next one
  (:mod:`tools.build_memo`).

The course is the folder of the ``mkdocs.yml`` being built, so another course with its own
``mkdocs.yml`` naming this file as a hook uses the same engine.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page
from mkdocs.utils.templates import TemplateContext

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # MkDocs loads hooks by path

from tools import buildinfo, course_check, offline, render, review, site_pages
from tools.background import Background
from tools.build_memo import MISSING, BuildMemo
from tools.model import Course
from tools.site_pages import Block

_course: Course | None = None
_root: Path = buildinfo.ROOT
_memo: BuildMemo | None = None
_blocks: dict[str, list[Block]] = {}  # page -> its course blocks, until they are in place
_search_entries: dict[str, list[dict[str, str]]] = {}  # page URL -> its items' search entries
_background = Background(workers=1)  # the second core; MkDocs keeps the first busy
_pending: list[tuple[Future, Callable[[Any], None]]] = []  # background jobs, and what to do with
# each result once the pages are built
T = TypeVar("T")


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    global _course, _root, _memo
    if str(buildinfo.ROOT) not in sys.path:  # MkDocs put sys.path back after loading this file;
        sys.path.insert(0, str(buildinfo.ROOT))  # modules imported later need it (snippets/)
    _stop_background()  # a build that failed before on_post_build (mkdocs serve builds again)
    _root = Path(config.config_file_path).resolve().parent
    _memo = BuildMemo(_root / ".cache" / "build" / "memo.json")
    _course = course_check.load_checked_course(_root, strict_results=buildinfo.strict_results())
    if _course.errors:
        raise PluginError("the course sources have problems:\n" + course_check.report(_course))
    # mkdocs-jupyter keys its cache on the notebook file alone; the lab imports the snippets, so
    # a changed snippet must re-execute it: one cache folder per version of the snippets (and of
    # the kernel's settings, which decide what its outputs hold).
    jupyter = config.plugins.get("mkdocs-jupyter")
    if jupyter is not None:
        base = Path(jupyter.config["cache_dir"])
        settings = hashlib.sha256(json.dumps([_KERNEL_ENV, _NBCONVERT_CONFIG]).encode())
        version = f"{buildinfo.snippets_digest(_root)}-{settings.hexdigest()[:8]}"
        jupyter.config["cache_dir"] = str(base / version)
        _quiet_notebook_kernel(_root / ".cache" / "jupyter")
    return config


# What the lab's kernel would otherwise write into its page and the build log: torch's profiler
# (the CPU peak meter) prints "USDT: ... profiler_start" at every start and stop, below any log
# level but one above all of kineto's (USDT, its highest, is 5); ipykernel warns that a kernel
# reached over TCP is unencrypted, which a kernel on a local socket (IPC) is not exposed to.
_KERNEL_ENV = {"KINETO_LOG_LEVEL": "6"}
_NBCONVERT_CONFIG = {"KernelManager": {"transport": "ipc"}}


def _quiet_notebook_kernel(config_dir: Path) -> None:
    """Set up the notebook kernel that mkdocs-jupyter starts (a child of this process) so that
    it logs nothing: the environment it inherits, and an nbconvert configuration file, the only
    setting mkdocs-jupyter reads (from ``JUPYTER_CONFIG_PATH``). A reader's own settings win."""
    for name, value in _KERNEL_ENV.items():
        os.environ.setdefault(name, value)
    config_dir.mkdir(parents=True, exist_ok=True)
    config_file = config_dir / "jupyter_nbconvert_config.json"
    text = json.dumps(_NBCONVERT_CONFIG)
    if not config_file.exists() or config_file.read_text(encoding="utf-8") != text:
        config_file.write_text(text, encoding="utf-8")
    paths = os.environ.get("JUPYTER_CONFIG_PATH", "").split(os.pathsep)
    if str(config_dir) not in paths:
        os.environ["JUPYTER_CONFIG_PATH"] = os.pathsep.join([*filter(None, paths), str(config_dir)])


def on_files(files: Files, *, config: MkDocsConfig) -> Files:
    """Add the deck and the review page's data as files of the site, so pages can link to them
    and links are validated. Both are made in the background and written in on_post_build."""
    assert _course is not None and _course.config is not None
    site = Path(config.site_dir)
    deck_file = _course.config.deck_file
    timestamp = buildinfo.source_date_epoch(_root)
    job = _background.submit("tools.deck_cache:apkg", _course, root=_root, timestamp=timestamp)
    _pending.append((job, (site / deck_file).write_bytes))
    files.append(File.generated(config, deck_file, content=b""))
    if not any(str(script) == review.INDEX_FILE for script in config.extra_javascript):
        return files  # this course has no review page
    review_page = files.get_file_from_path(review.REVIEW_PAGE)
    if review_page is None:
        raise PluginError(
            f"docs/{review.REVIEW_PAGE} is missing: the header's Review link needs it"
        )
    assert _memo is not None
    # The data is made from the pages' items and the course's settings: keyed on all of both.
    pages = (f"{p.docs_path}\0{p.title}\0" + "\n".join(p.lines) for p in _course.pages)
    key, generated = _memo.find("review", (review_page.url, repr(_course.config), *pages))
    if generated is MISSING:

        def write(made: dict[str, str]) -> None:
            _memo.put(key, made)
            for name, text in made.items():
                (site / name).write_text(text, "utf-8")

        _pending.append((_background.submit(review.site_files, _course, review_page.url), write))
        generated = dict.fromkeys(review.SITE_FILES, "")
    else:
        _memo.put(key, generated)
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
    _blocks[page.file.src_uri] = [Block(*block) for block in blocks]  # lists, from the memo
    return markdown


def on_page_content(html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Turn the math of the page's prose into MathML and put its embeds in place; its cards and
    quizzes come after Material's search has read the page (:func:`on_page_context`)."""
    blocks = _blocks.get(page.file.src_uri, [])

    def convert() -> str:
        return render.mathml_in_html(offline.without_remote_scripts(html))

    html = _memo_get("page-content", (html,), convert)
    return site_pages.fill_blocks(html, blocks, items=False)


@event_priority(-50)  # after Material's search has indexed the page
def on_page_context(
    context: TemplateContext, *, page: Page, config: MkDocsConfig, nav: Navigation
) -> TemplateContext:
    """Put the page's cards and quizzes in place, once the search has indexed the page without
    them: each card and question gets a search entry of its own instead (see
    :func:`on_post_build`), which links to it, and Material's search never parses their markup.
    A Markdown page's content is checked for script in the background."""
    blocks = _blocks.pop(page.file.src_uri, [])
    if blocks:
        assert page.content is not None
        page.content = site_pages.fill_blocks(page.content, blocks, items=True)
        items = [block.html for block in blocks if block.item]
        key, found = _memo_find("search-entries", items)

        def add(entries: list[dict[str, str]]) -> None:
            _memo_put(key, entries)
            _search_entries[page.url] = entries

        if found is MISSING:
            _pending.append((_background.submit_small(site_pages.search_entries, blocks), add))
        else:
            add(found)
    if page.file.src_uri.endswith(".md") and page.content is not None:
        _check_later("active-content", page.content, offline.active_content, page.file.src_uri)
    return context


def on_post_page(output: str, *, page: Page, config: MkDocsConfig) -> str:
    """Check the built page for remote loads, in the background."""
    _check_later("remote-loads", output, offline.remote_loads, page.file.src_uri)
    return output


@event_priority(-50)  # after Material's search has written its index
def on_post_build(*, config: MkDocsConfig) -> None:
    """Collect the background work (the build fails here if it found a problem), write the files
    it made and the search entries of cards and questions, then keep this build's work for the
    next one."""
    assert _memo is not None
    try:
        _background.flush()
        for job, use in _pending:
            use(_result(job))
        _add_search_entries(Path(config.site_dir) / "search" / "search_index.json")
        _memo.save()
    finally:
        _stop_background()


def _add_search_entries(index_file: Path) -> None:
    """Put each page's card and question entries after that page's own entries in Material's
    search index (its client expects a page's entry before those of its sections)."""
    if not _search_entries or not index_file.is_file():  # a course without Material's search
        return
    index = json.loads(index_file.read_text("utf-8"))
    docs: list[dict[str, Any]] = []
    for entry in index["docs"]:
        url = entry["location"].partition("#")[0]
        if docs and docs[-1]["location"].partition("#")[0] != url:
            docs += _entries_of(docs[-1]["location"].partition("#")[0])
        docs.append(entry)
    if docs:
        docs += _entries_of(docs[-1]["location"].partition("#")[0])
    index["docs"] = docs
    index_file.write_text(json.dumps(index, ensure_ascii=False, separators=(",", ":")), "utf-8")


def _entries_of(url: str) -> list[dict[str, str]]:
    entries = _search_entries.pop(url, [])
    return [
        {"location": f"{url}#{e['anchor']}", "title": e["title"], "text": e["text"]}
        for e in entries
    ]


def on_build_error(*, error: Exception) -> None:
    _stop_background()


def _stop_background() -> None:
    _pending.clear()
    _search_entries.clear()
    _background.close()


def _check_later(kind: str, html: str, scan: Callable[[str], list[str]], src_uri: str) -> None:
    """Scan ``html`` in the background, or take the stored answer and act on it now."""
    assert _memo is not None
    key, found = _memo.find(kind, (html,))

    def use(found: list[str]) -> None:
        _memo.put(key, found)
        _refuse(kind, src_uri, found)

    if found is MISSING:
        _pending.append((_background.submit_small(scan, html), use))
    else:
        use(found)


def _result(job: Future) -> Any:
    """A background job's result; its failure (or the worker's) as a build error."""
    try:
        return job.result()
    except Exception as exc:
        raise PluginError(f"background work of the build failed: {exc!r}") from exc


def _refuse(kind: str, src_uri: str, found: list[str]) -> None:
    if not found:
        return
    if kind == "active-content":
        raise PluginError(
            f"docs/{src_uri}: raw HTML that would run script: {found[0]} "
            "(write it as text or in code)"
        )
    raise PluginError(f"docs/{src_uri} would load from outside the site: {found[0]}")


def _memo_find(kind: str, inputs: list[str]) -> tuple[str, Any]:
    return _memo.find(kind, tuple(inputs)) if _memo is not None else ("", MISSING)


def _memo_put(key: str, value: Any) -> None:
    if _memo is not None:
        _memo.put(key, value)


def _memo_get(kind: str, inputs: tuple[str, ...], compute: Callable[[], T]) -> T:
    return _memo.get(kind, inputs, compute) if _memo is not None else compute()
