"""Shared fixtures: the built site (built once per session), a local server, a headless browser.

This file is imported by every test run, including GPU runs on machines that have only torch
and pytest: MkDocs, Playwright and the course engine are imported inside the fixtures, never
at module level.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import gc
import gzip
import io
import json
import os
import re
import shutil
import sqlite3
import threading
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
LOCAL_HOSTS = {"127.0.0.1", "localhost"}
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--regenerate",
        action="store_true",
        help="write this run's CPU benchmark measurement to docs/benchmarks/ (a normal run never "
        "rewrites a committed results file)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "seeds: compares the course with its seed documents (../shared/seeds or seeds/); "
        "skipped without them, except under CI=true",
    )


def _cost_class(item: pytest.Item) -> int:
    """0 for a file with a test marked slow, 1 for a browser file, 2 for the rest."""
    return 0 if item.get_closest_marker("slow") else 1 if item.get_closest_marker("browser") else 2


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Files with slow tests first, then the browser files, then the rest, each file's tests in
    their own order. The test command gives each process a whole file at a time, in this order
    (``--no-loadscope-reorder``): a long file handed out last would leave the other cores idle
    while it runs, whereas short files at the end fill in around the long ones."""
    by_file: dict[Path, int] = {}
    for item in items:
        by_file[item.path] = min(by_file.get(item.path, 2), _cost_class(item))
    items.sort(key=lambda item: by_file[item.path])  # stable: order within a class is kept


def pytest_collection_finish(session: pytest.Session) -> None:
    """Leave what exists once the tests are collected (every test module and all it imported:
    torch, MkDocs, Anki, Playwright) out of every later garbage collection. Those objects live
    as long as the process; the benchmark harness runs ``gc.collect()`` between strategies,
    dozens of times, and each full collection would walk them all again."""
    gc.collect()
    gc.freeze()


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


def skip_or_fail(reason: str) -> None:
    """Skip a test whose tool is missing, except under CI=true, where that is a failure."""
    if _in_ci():
        pytest.fail(f"{reason} (CI=true: a missing tool fails the run instead of skipping)")
    pytest.skip(reason)


def run_temp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The temporary folder every process of this test run shares: under xdist each worker's
    base folder sits in the run's own folder, which is new for every run."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The course site and deck, built once per test run by the real build command's code.

    The first process to ask builds it while holding a lock and marks it built; a process that
    asks later waits for the lock and finds the mark, so the processes of a parallel run share
    one build instead of each building the site. (The build's own stamp is no such mark: it
    records one build per course, and other tests build this course elsewhere.)
    ``COURSE_TEST_SITE`` names an already built site to test instead (a CI job that has just
    built ``site/``, or an author re-running browser tests while editing the CSS).
    """
    prebuilt = os.environ.get("COURSE_TEST_SITE")
    if prebuilt:
        return Path(prebuilt).resolve()
    from mkdocs_course.cli import build_site

    shared = run_temp(tmp_path_factory) / "built"
    shared.mkdir(exist_ok=True)
    with open(shared / "build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not (shared / "done").exists():
            build_site(shared / "site")
            (shared / "done").touch()
    return shared / "site"


class _QuietHandler(SimpleHTTPRequestHandler):
    extensions_map: ClassVar[dict[str, str]] = {
        **SimpleHTTPRequestHandler.extensions_map,
        ".woff2": "font/woff2",
        ".js": "text/javascript",
        ".json": "application/json",
        ".apkg": "application/octet-stream",
    }

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the per-request log lines; failures show up in the browser instead."""


class _GzipHandler(_QuietHandler):
    """Sends text gzip-encoded to a browser that accepts it, as the host the site is published on
    (GitHub Pages) does: a page-load benchmark then weighs what learners download."""

    TEXT: ClassVar[set[str]] = {
        "text/html",
        "text/css",
        "text/javascript",
        "application/json",
        "image/svg+xml",
        "application/xml",
    }

    def send_head(self) -> Any:
        path = Path(self.translate_path(self.path))
        accepted = "gzip" in self.headers.get("Accept-Encoding", "")
        kind = self.guess_type(str(path))
        if not (accepted and kind in self.TEXT and path.is_file()):
            return super().send_head()
        body = gzip.compress(path.read_bytes(), mtime=0)
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Vary", "Accept-Encoding")
        self.end_headers()
        return io.BytesIO(body)


@contextlib.contextmanager
def serve(directory: Path, gzip_text: bool = False) -> Iterator[str]:
    """Serve ``directory`` on 127.0.0.1 on a free port; yields the base URL (ending in '/').
    With ``gzip_text``, text goes out gzip-encoded to browsers that accept it."""
    kind = _GzipHandler if gzip_text else _QuietHandler
    handler = functools.partial(kind, directory=str(directory))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture(scope="session")
def site_url(built_site: Path) -> Iterator[str]:
    """Base URL (ending in '/') of the built site, served on 127.0.0.1 on a free port."""
    with serve(built_site) as url:
        yield url


# What a copy of the course needs to build on its own (tests that break or add to the sources).
# The engine that builds it is the installed one (mkdocs_course, this checkout's tools/); tools/
# is copied only because mkdocs.yml's watch list names it, and MkDocs refuses a missing folder.
COURSE_FILES = ("docs", "snippets", "tools", "deck", "overrides", "mkdocs.yml", "pyproject.toml")


def page_scripts(html: str) -> list[str]:
    """The site paths of the scripts that a built page starts after its first paint: the data
    block in its head (overrides/main.html), which startup.js reads."""
    blocks = re.findall(r'<script type="application/json" id="course-scripts">(.*?)</script>', html)
    assert len(blocks) <= 1, "one data block of scripts at most"
    return json.loads(blocks[0]) if blocks else []


def deck_query(apkg: Path | bytes, sql: str) -> list[tuple]:
    """Rows of ``sql`` run on the collection database inside a deck (a file, or its bytes)."""
    source = io.BytesIO(apkg) if isinstance(apkg, bytes) else apkg
    with zipfile.ZipFile(source) as archive:
        database = archive.read("collection.anki2")
    conn = sqlite3.connect(":memory:")
    try:
        conn.deserialize(database)
        return list(conn.execute(sql))
    finally:
        conn.close()


def with_course_settings(root: Path) -> Path:
    """Give a made-up course in ``root`` this course's settings (``mkdocs.yml``: deck name, GUID
    namespace, ...), so its notes get the GUIDs this course's notes would, and its note templates
    (``deck/``, which the settings name)."""
    root.mkdir(parents=True, exist_ok=True)
    shutil.copy2(ROOT / "mkdocs.yml", root / "mkdocs.yml")
    shutil.copytree(ROOT / "deck", root / "deck", dirs_exist_ok=True)
    # The page files the settings declare for the benchmarks' views must exist in the course.
    views = Path("snippets", "benchmark_views")
    (root / views).mkdir(parents=True, exist_ok=True)
    for asset in (*(ROOT / views).glob("*.js"), *(ROOT / views).glob("*.css")):
        shutil.copy2(asset, root / views / asset.name)
    return root


# The build's caches under .cache/ (the executed lab, the deck, the checks of built pages, git
# dates, mkdocs-jupyter's): a copy that has them builds without redoing that work. The rest of
# .cache/ holds tools (uv, Lighthouse: hundreds of MB) that no build of a copy reads.
BUILD_CACHES = ("lab", "deck", "build", "history", "mkdocs-jupyter")


def copy_course(dest: Path) -> Path:
    """Copy the course sources and the build's caches into ``dest``; the lab is executed into
    this checkout's cache first if it is not there (a fresh clone), so that copies of an
    unchanged lab reuse one run instead of each executing it."""
    _execute_lab_once()
    names = (*COURSE_FILES, *(f".cache/{cache}" for cache in BUILD_CACHES))
    for name in names:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
        elif source.exists():
            shutil.copy2(source, dest / name)
    return dest


LAB = Path("docs", "lab", "checkpointing-lab.py")


def _execute_lab_once() -> None:
    """The lab's executed notebook in ``.cache/lab/`` (the build's own function and cache), made
    by one test process at a time. A lab that fails is left to the copy's build to report."""
    from mkdocs_course.plugin import lab

    (ROOT / ".cache").mkdir(exist_ok=True)
    with open(ROOT / ".cache" / "tests-lab.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        with contextlib.suppress(lab.LabError):
            lab.executed(ROOT / LAB, ROOT)


def cut_lab_to(root: Path, cells: str) -> None:
    """Replace the lab of the course copied into ``root`` by its opening (the notebook's header
    and first Markdown cell) followed by ``cells``. The lab's own cells run the benchmark
    harness when the site is built, which is most of a copy's build time; a test of what added
    cells may do needs the lab page, not the harness's measurements."""
    lab = root / LAB
    text = lab.read_text("utf-8")
    second_cell = text.index("\n# %%", text.index("# %%"))
    lab.write_text(text[:second_cell].rstrip("\n") + "\n\n" + cells.lstrip("\n"), "utf-8")


def reviews_seen(page: Any, key: str, counts: dict[str, int]) -> None:
    """Wait until ``page`` reads at least ``counts[guid]`` reviews of each card from the progress
    stored under ``key`` (a review that was lost never arrives, and the wait fails). Each page
    reads localStorage from its own renderer's copy, which another page's write reaches a moment
    later, longer on a loaded machine."""
    page.wait_for_function(
        """([key, counts]) => {
            const cards = (JSON.parse(localStorage.getItem(key) || "{}").cards) || {};
            const seen = ([guid, n]) => (cards[guid]?.log || []).length >= n;
            return Object.entries(counts).every(seen);
        }""",
        arg=[key, counts],
        timeout=10_000,
    )


def chromium_path() -> str | None:
    """Debian's system Chromium (no browser download: Playwright drives the installed one)."""
    if Path("/usr/bin/chromium").exists():
        return "/usr/bin/chromium"
    return shutil.which("chromium") or shutil.which("chromium-browser")


def collect_errors(page: Any) -> list[str]:
    """A list that fills with ``page``'s console errors and uncaught exceptions as they happen."""
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return errors


@pytest.fixture(scope="session")
def playwright() -> Iterator[Any]:
    """Playwright, started once per test process: its sync API cannot be started twice at once
    in one process, so every browser a test launches comes from here."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        skip_or_fail("Playwright for Python is not installed")
    with sync_playwright() as started:
        yield started


@pytest.fixture(scope="session")
def browser(playwright: Any) -> Iterator[Any]:
    executable = chromium_path()
    if executable is None:
        skip_or_fail("Chromium is not installed (Debian: apt-get install chromium)")
    instance = playwright.chromium.launch(
        executable_path=executable, headless=True, args=CHROMIUM_ARGS
    )
    try:
        yield instance
    finally:
        instance.close()


def scroll_through(page: Any) -> None:
    """Bring each part of the page near the screen once, as a reader scrolling down does: the
    blocks that wait off screen (course.css: content-visibility) are then laid out, and their
    text is rendered text (``innerText`` leaves out what has never been shown)."""
    page.evaluate(
        """async () => {
          const frame = () => new Promise(
            done => requestAnimationFrame(() => requestAnimationFrame(done)));
          for (let y = 0; y < document.documentElement.scrollHeight; y += innerHeight / 2) {
            scrollTo(0, y);
            await frame();
          }
        }"""
    )


def activate(control: Any) -> None:
    """Press a button or a card's summary from the keyboard. A pointer click aims at where the
    control was when it was scrolled to, and text below the first screen takes its size as it
    comes near the screen (content-visibility), so under load a click could land beside a
    control that moved (seen: the grading switch left off); a key press needs no coordinates."""
    control.press("Enter")


def scripts_ran(page: Any) -> None:
    """Wait until the course's scripts that this page names have run (startup.js loads them after
    the first paint, so the load event can come first)."""
    page.wait_for_function(
        "() => !document.getElementById('course-scripts')"
        " || document.documentElement.getAttribute('data-course-scripts') === 'ran'"
    )


@dataclass
class Watched:
    """A browser page plus what it did: console errors, and every request it made."""

    page: Any
    base_url: str
    console_errors: list[str] = field(default_factory=list)
    requests: list[Any] = field(default_factory=list)
    local_hosts: set[str] = field(default_factory=lambda: set(LOCAL_HOSTS))
    javascript: bool = True
    reported: tuple[int, int] = (0, 0)  # console errors and requests already checked

    def goto(self, path: str) -> Any:
        self.page.goto(self.base_url + path.lstrip("/"), wait_until="load")
        if self.javascript:
            scripts_ran(self.page)
        return self.page

    def foreign_requests(self, start: int = 0) -> list[str]:
        """URLs of requests that left the local server (data: and blob: URLs stay in the page),
        of those from the ``start``-th on."""
        out = []
        for request in self.requests[start:]:
            parts = urlsplit(request.url)
            if parts.scheme in ("data", "blob", "about"):
                continue
            if parts.scheme not in ("http", "https") or parts.hostname not in self.local_hosts:
                out.append(request.url)
        return out


def _serve_from_disk(site: Path, origin: str) -> Callable[[Any], None]:
    """A Playwright route handler answering every request under ``origin`` from ``site``."""
    prefix = urlsplit(origin).path

    def fulfill(route: Any) -> None:
        path = unquote(urlsplit(route.request.url).path).removeprefix(prefix)
        file = (site / path).resolve()
        if file.is_dir():
            file = file / "index.html"
        if file.is_file() and file.is_relative_to(site.resolve()):
            route.fulfill(path=str(file))
        else:
            route.fulfill(status=404, body="not found")

    return fulfill


class SiteOpener:
    """Opens pages of the site in fresh browser contexts (own storage) and says what each did.

    ``origin`` serves the site at another address from disk, inside the browser (no network):
    Material's instant navigation only runs when the page's address matches ``site_url``.
    """

    def __init__(self, browser: Any, site_url: str, built_site: Path) -> None:
        self.browser, self.site_url, self.built_site = browser, site_url, built_site
        self.opened: list[tuple[Any, Watched]] = []
        self._kept: dict[str, Any] = {}

    def once(self, key: str, open_page: Callable[[SiteOpener], Any]) -> Any:
        """What ``open_page(self)`` gave the first time ``key`` was asked for: a page that the
        tests sharing this opener set up once."""
        if key not in self._kept:
            self._kept[key] = open_page(self)
        return self._kept[key]

    def __call__(
        self, color_scheme: str = "light", origin: str | None = None, javascript: bool = True
    ) -> Watched:
        context = self.browser.new_context(
            viewport={"width": 1280, "height": 900},
            color_scheme=color_scheme,
            locale="en-US",
            reduced_motion="reduce",
            java_script_enabled=javascript,
        )
        page = context.new_page()
        watched = Watched(page, origin or self.site_url, javascript=javascript)
        if origin:
            context.route(origin + "**", _serve_from_disk(self.built_site, origin))
            watched.local_hosts.add(urlsplit(origin).hostname or "")
        page.on(
            "console",
            lambda message: (
                watched.console_errors.append(f"{page.url}: {message.text}")
                if message.type == "error"
                else None
            ),
        )
        page.on("pageerror", lambda error: watched.console_errors.append(f"{page.url}: {error}"))
        context.on("request", lambda request: watched.requests.append(request))
        self.opened.append((context, watched))
        return watched

    def problems(self) -> list[str]:
        """Console errors and requests that left the site, of every page opened, since this was
        last asked: each is reported once, by the first check after it happened."""
        found = []
        for _, watched in self.opened:
            errors, requests = watched.reported
            found += [f"console error: {line}" for line in watched.console_errors[errors:]]
            found += [f"request left the site: {url}" for url in watched.foreign_requests(requests)]
            watched.reported = (len(watched.console_errors), len(watched.requests))
        return found

    def close(self) -> None:
        for context, _ in self.opened:
            context.close()
        self.opened.clear()
        self._kept.clear()


@pytest.fixture
def open_site(browser: Any, site_url: str, built_site: Path) -> Iterator[SiteOpener]:
    """Open pages in fresh browser contexts (own storage); each is checked when the test ends.

    Every page a test opens must finish with no console error and no request to another
    origin: the offline promise is checked on every tested page, not on a chosen one.
    """
    opener = SiteOpener(browser, site_url, built_site)
    yield opener
    problems = opener.problems()
    opener.close()
    if problems:
        pytest.fail("\n".join(problems))


@pytest.fixture(scope="module")
def _module_opener(browser: Any, site_url: str, built_site: Path) -> Iterator[SiteOpener]:
    opener = SiteOpener(browser, site_url, built_site)
    yield opener
    problems = opener.problems()  # what came after the last test that used the pages
    opener.close()
    if problems:
        pytest.fail("\n".join(problems))


@pytest.fixture
def shared_site(_module_opener: SiteOpener) -> Iterator[SiteOpener]:
    """``open_site`` for pages that the tests of one module share: a page set up through
    ``shared_site.once(key, ...)`` by the first test that asks, closed when the module's tests
    are done. A test that only reads a page, or several cases that each change a page the same
    contained way, need not load it again each; a test that needs fresh storage uses
    ``open_site``.

    Each test is checked as with ``open_site``: the console errors and requests that left the
    site of the shared pages since the last check fail it, and what came after the module's last
    check fails the module's teardown. Nothing is let go unreported.
    """
    yield _module_opener
    problems = _module_opener.problems()
    if problems:
        pytest.fail("\n".join(problems))


def inject_axe(page: Any) -> None:
    """axe-core in ``page``'s document, unless it is there already (it stays until the page
    navigates)."""
    from axe_playwright_python.base import AXE_SCRIPT

    if not page.evaluate("() => typeof window.axe === 'object' && !!window.axe.run"):
        page.evaluate(AXE_SCRIPT)


def axe_violations(page: Any, context: Any = None) -> list[dict]:
    """axe-core's violations on ``page`` (in ``context``, axe's include/exclude, if given), every
    rule run as ``Axe().run`` runs them.

    axe is injected once per document (it stays until the page navigates). Only violations are
    processed in full (axe's ``resultTypes``): axe still checks every node of every rule, but
    no longer builds selectors and details for each node that passes, which these tests never
    read and which on a long page are much of axe's work and nearly all of what it hands back.
    """
    inject_axe(page)
    return page.evaluate(
        "([context, options]) => axe.run(context || document, options).then(r => r.violations)",
        [context, {"resultTypes": ["violations"]}],
    )


@pytest.fixture
def artifacts() -> Path:
    """Folder for screenshots and measured figures; git-ignored, kept after the run."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="module")
def course_deck() -> tuple[list[str], bytes]:
    """The course deck for the progress tests: ``(GUIDs in course order, the built .apkg)`` at a
    fixed time."""
    from mkdocs_course.anki import deck
    from mkdocs_course.buildkit.buildinfo import ROOT
    from mkdocs_course.course import notes
    from mkdocs_course.course.parser import parse_course
    from mkdocs_course.plugin.syntax import MKDOCS

    course = parse_course(ROOT, syntax=MKDOCS)
    items = notes.note_items(course)
    times = {item.guid: 1_764_000_000 for item in items}
    apkg = deck.build_apkg(course, timestamp=1_764_000_000, root=ROOT, items=items, times=times)
    return [item.guid for item in items], apkg
