"""The site built by MkDocs in the CLI's own process, so its hook reuses the course the CLI
checked (:func:`tools.course.check.load_checked_course`) instead of parsing it again.

MkDocs is imported only when the build runs: the CLI starts parsing the course first, and the
pages parse in the background while MkDocs loads.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path

from tools.build import buildinfo
from tools.course.model import Course


def build(
    config_file: Path,
    site_dir: Path,
    checked: Callable[[], Course | None],
    *,
    strict_results: bool,
) -> Course:
    """``mkdocs build --strict`` of ``config_file`` into ``site_dir``, in this process, once
    ``checked()`` (the course, parsed in the background while MkDocs loads; None after it
    reported its problems) has no problems.

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
        from mkdocs.commands.build import build
        from mkdocs.config import load_config
        from mkdocs.exceptions import MkDocsException

        try:
            config = load_config(str(config_file), site_dir=str(site_dir), strict=True)
        except MkDocsException:
            if checked() is None:  # the course's report names the lines
                raise SystemExit(1) from None
            raise
        course = checked()  # its pages parsed while MkDocs loaded
        if course is None:
            raise SystemExit(1)
        config.plugins.on_startup(command="build", dirty=False)
        try:
            build(config)
        finally:
            config.plugins.on_shutdown()
        return course
    except MkDocsException as exc:
        print(f"ERROR   -  {exc}", file=sys.stderr)
        raise SystemExit(f"mkdocs build failed; {site_dir.name} was discarded") from None
    finally:
        os.chdir(cwd)
        logging.getLogger("mkdocs").removeHandler(handler)
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _mkdocs_log_handler() -> logging.Handler:
    """MkDocs' messages on stderr as its own command prints them (its CLI is not running)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(levelname)-7s -  %(message)s"))
    logger = logging.getLogger("mkdocs")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    return handler
