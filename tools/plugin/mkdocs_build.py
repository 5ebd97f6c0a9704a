"""The site built by MkDocs in the CLI's own process, which hands the course plugin the course
it is checking (:func:`tools.course.check.start_checking`) and its worker pool, so the course is
not parsed again; and the live preview (:func:`serve`), which checks the course the same way
before each rebuild.

MkDocs is imported only when the build runs: the CLI starts parsing the course first, and the
pages parse in the background while MkDocs loads.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import html
import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..buildkit import buildinfo
from ..buildkit.workers import Background
from ..course import config as course_config
from ..course.check import Checking
from ..course.model import Course


def build(
    config_file: Path,
    site_dir: Path,
    course: Checking,
    checked: Callable[[], Course | None],
    *,
    strict_results: bool,
    pool: Background,
) -> Course:
    """``mkdocs build --strict`` of ``config_file`` into ``site_dir``, in this process, of
    ``course``, whose pages parse in ``pool`` while MkDocs loads and reads them; ``checked()``
    is the whole course checked, or None after it reported its problems, which stop the build.
    """
    with _mkdocs_process(config_file, strict_results) as messages:
        messages.hold()

        @functools.cache
        def shown() -> Course | None:  # MkDocs' messages held back until the course is checked
            checked_course = checked()
            messages.end_hold(show=checked_course is not None)
            return checked_course

        return _build(config_file, site_dir, course, shown, pool)


def _build(
    config_file: Path,
    site_dir: Path,
    course: Checking,
    checked: Callable[[], Course | None],
    pool: Background,
) -> Course:
    # Imported before the ``try`` that names MkDocsException: an interruption while they load
    # is then a KeyboardInterrupt, not an error about a name the ``except`` cannot find.
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    try:
        config = load_config(str(config_file), site_dir=str(site_dir), strict=True)
        _course_plugin(config).use(course, pool, checked)
        config.plugins.on_startup(command="build", dirty=False)
        # MkDocs' settings and every module loaded so far live until the build ends: out of the
        # collector's sight, its collections while MkDocs renders the pages skip them instead of
        # walking them again each time.
        gc.freeze()
        try:
            build(config)
        finally:
            gc.unfreeze()
            config.plugins.on_shutdown()
        return checked()
    except MkDocsException as exc:
        if checked() is None:  # what MkDocs failed on, the course's report names with its lines
            raise SystemExit(1) from None
        print(f"ERROR   -  {exc}", file=sys.stderr)
        raise SystemExit(f"mkdocs build failed; {site_dir.name} was discarded") from None


@contextlib.contextmanager
def _mkdocs_process(config_file: Path, strict_results: bool) -> Iterator[_Messages]:
    """MkDocs' settings for this process while it builds, undone after: its environment, its
    messages on stderr, and the course's folder as the working directory.

    Run from the course's folder, as ``mkdocs build`` would: some paths in ``mkdocs.yml``
    (pymdownx.snippets' ``base_path``, the notebook cache) are relative to the working directory.
    """
    env = {"NO_MKDOCS_2_WARNING": "1", buildinfo.STRICT_RESULTS_ENV: "1" if strict_results else ""}
    saved = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    handler = _mkdocs_log_handler()
    cwd = Path.cwd()
    os.chdir(config_file.parent)
    try:
        yield handler
    finally:
        os.chdir(cwd)
        handler.end_hold(show=True)
        logging.getLogger("mkdocs").removeHandler(handler)
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _course_plugin(config: Any) -> Any:
    """The course plugin of a loaded configuration (the course's settings are its settings)."""
    plugin = config.plugins.get(course_config.PLUGIN)
    if plugin is None:  # the course check says so first, with the file named
        raise SystemExit(f"{config.config_file_path}: no '{course_config.PLUGIN}' plugin")
    return plugin


def serve(
    config_file: Path,
    problems: Callable[[], str | None],
    checked: Callable[[], Checking],
    *,
    dev_addr: str | None = None,
) -> None:
    """``mkdocs serve`` of ``config_file``, built as :func:`build` builds (strict, after
    ``problems()`` has printed the course's warnings and problems and returned those problems,
    or None; the plugin then builds ``checked()``, the course it checked whole), until Ctrl-C.

    A build that fails leaves the server answering every page at once with an error page that
    holds the failure (the course's ``path:line: message`` lines) and reloads itself when a
    later build succeeds. MkDocs' own server would hold each request until a build succeeds.
    """
    with _mkdocs_process(config_file, strict_results=False):
        from mkdocs.config import load_config

        site_dir = tempfile.mkdtemp(prefix="course-serve-")
        overrides = {"dev_addr": dev_addr} if dev_addr else {}

        def handed(config: Any) -> Any:  # after problems(): the course it checked
            _course_plugin(config).use(checked())
            return config

        def load() -> Any:
            return load_config(str(config_file), site_dir=site_dir, strict=True, **overrides)

        config = load()
        config.plugins.on_startup(command="serve", dirty=False)
        host, port = config.dev_addr
        mount = urlsplit(config.site_url or "/").path
        server = _server_class()(
            builder=lambda: None, host=host, port=port, root=site_dir, mount_path=mount
        )
        serve_url = server.url
        server.builder = lambda: server.rebuild(lambda: handed(load()), problems, serve_url)
        try:
            server.rebuild(lambda: handed(config), problems, serve_url)
            for path in _watched(config):
                server.watch(path)
            server = config.plugins.on_serve(server, config=config, builder=server.builder)
            try:
                server.serve()
            except KeyboardInterrupt:
                logging.getLogger("mkdocs").info("Shutting down...")
            finally:
                server.shutdown()
        finally:
            config.plugins.on_shutdown()
            shutil.rmtree(site_dir, ignore_errors=True)


def _watched(config: Any) -> Iterable[str]:
    """What a change rebuilds the site for: the pages, ``mkdocs.yml`` and its ``watch:`` list."""
    yield config.docs_dir
    if config.config_file_path:
        yield config.config_file_path
    yield from config.watch


def _server_class() -> type:
    """MkDocs' live-reload server, answering with :func:`error_page` while the last build failed.
    Made on first use: MkDocs is imported only when a command needs it."""
    from mkdocs.livereload import LiveReloadServer

    class Server(LiveReloadServer):
        failure: str | None = None  # the last build's error, while it stands

        def rebuild(self, load: Callable[[], Any], problems: Callable, serve_url: str) -> None:
            """Check and build; a failure is kept for the pages, never raised: MkDocs' loop
            would then hold every request until the next build succeeds."""
            self.failure = problems()  # printed, with the warnings, as build prints them
            if self.failure is None:
                self.failure = _mkdocs_failure(load, serve_url)
            if self.failure is not None:
                print("build failed: the browser shows why until a build succeeds", file=sys.stderr)

        def serve_request(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
            if self.failure is None or environ.get("PATH_INFO", "").startswith("/livereload/"):
                return super().serve_request(environ, start_response)
            with self._epoch_cond:
                epoch = self._visible_epoch
            body = self._inject_js_into_html(error_page(self.failure).encode(), epoch)
            start_response(
                "500 Internal Server Error",
                [("Content-Type", "text/html; charset=utf-8"), ("Content-Length", str(len(body)))],
            )
            return [body]

    return Server


def _mkdocs_failure(load: Callable[[], Any], serve_url: str) -> str | None:
    """Build the site as MkDocs serves it; why it failed (as MkDocs logged it), or None."""
    from mkdocs.commands.build import build as mkdocs_build

    said = _Said()  # MkDocs logs why a build stopped, then raises a bare "Aborted"
    logging.getLogger("mkdocs").addHandler(said)
    try:
        config = load()
        config.site_url = serve_url
        mkdocs_build(config, serve_url=serve_url)
    except (Exception, SystemExit) as exc:  # any failure is shown
        if not said.lines:  # else MkDocs has printed it
            print(f"ERROR   -  {exc}", file=sys.stderr)
        return "\n".join([*said.lines, str(exc) or type(exc).__name__])
    finally:
        logging.getLogger("mkdocs").removeHandler(said)
    return None


class _Said(logging.Handler):
    """MkDocs' warnings and errors during one build, for the error page."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.levelname}: {record.getMessage()}")


def error_page(failure: str) -> str:
    """The page every address answers with while the site does not build: the failure as text
    (each course problem as ``path:line: message``), escaped, and nothing it would load."""
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        "<title>Build failed</title></head>\n<body>\n<h1>The site does not build</h1>\n"
        "<p>Fix what is named below and save: this page reloads once the site builds.</p>\n"
        f'<pre style="white-space:pre-wrap">{html.escape(failure)}</pre>\n</body></html>\n'
    )


class _Messages(logging.StreamHandler):
    """MkDocs' messages on stderr as its own command prints them (its CLI is not running), or
    held back (:meth:`hold`) while the course is still being checked: MkDocs reads pages
    meanwhile, and its warnings about what the course's check reports with file and line (a
    broken link) would come first and name no line. A course with problems drops them."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)
        self.setFormatter(logging.Formatter("%(levelname)-7s -  %(message)s"))
        self.held: list[logging.LogRecord] | None = None

    def hold(self) -> None:
        self.held = []

    def end_hold(self, *, show: bool) -> None:
        """Print the messages held, or drop them; from now on print each as it comes."""
        held, self.held = self.held or [], None
        for record in held if show else ():
            super().emit(record)

    def emit(self, record: logging.LogRecord) -> None:
        if self.held is None:
            super().emit(record)
        else:
            self.held.append(record)


def _mkdocs_log_handler() -> _Messages:
    handler = _Messages()
    logger = logging.getLogger("mkdocs")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    return handler
