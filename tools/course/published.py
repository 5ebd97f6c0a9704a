"""Every file MkDocs would publish from ``docs/`` is checked, not only the pages.

MkDocs copies every other file of ``docs/`` into the site as it is. So:

- a symlink under ``docs/`` that points outside it is an error: it would publish whatever it
  names (``../.git/config`` holds a token in CI);
- a file is published only when its type is one a browser never runs (:data:`INERT_SUFFIXES`:
images, fonts, plain text, data) or when the course lists it in the course plugin's ``active_files``
in ``mkdocs.yml``: a script, an SVG, or a page of any of the types browsers render as a document
with script (``.html``, ``.xht``, ``.xhtm``, ``.xml``, ``.mht``, ...) could read and rewrite every
learner's review progress on the site's origin. An allow-list of inert types, not a list of
dangerous ones, so a type nobody thought of is refused too. A file without a suffix (``LICENSE``)
passes only when it holds no ``<``: opened from disk, a browser sniffs its type from its bytes; - a
style sheet under ``docs/`` is decoded as a browser decodes it (byte-order mark, then ``@charset``),
must be UTF-8, and may load nothing from elsewhere (``@import``, ``url()``, read by a CSS tokenizer
as for pages, :func:`tools.course.sanitize.css_addresses`): a UTF-16 sheet read as UTF-8 would hide
its addresses from the check; - a file git ignores under ``docs/`` is not published
(:func:`ignored`): the site holds what the repository holds, and a stray local file is never shipped
nor left stale.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from . import sanitize
from .model import CourseError, Location

# What a browser shows, or offers to save, and never runs: the only types published unlisted.
# .md files are pages (MkDocs renders them); .py is the lab's source, served as text.
INERT_SUFFIXES = {".md", ".css", ".png", ".jpg", ".jpeg", ".gif", ".webp", ".avif", ".ico",
                  ".woff", ".woff2", ".ttf", ".otf", ".txt", ".json", ".csv", ".tsv", ".py",
                  ".ipynb", ".apkg", ".zip"}  # fmt: skip


def check(root: Path, docs_dir: str, active_files: tuple[str, ...] | None) -> list[CourseError]:
    """One error per symlink leaving ``docs/`` and per active file not listed, with its path.
    ``active_files`` None: the settings that list them could not be read (their error says so),
    so no file is judged as listed or not."""
    docs = root / docs_dir
    if not docs.is_dir():
        return []
    inside = docs.resolve()
    listed = set(active_files or ())
    skip = ignored(root, docs_dir)
    errors = []
    for folder, dirs, names in os.walk(docs):  # symlinked folders are entries, not followed
        for name in sorted([*dirs, *names]):
            path = Path(folder) / name
            rel = path.relative_to(docs).as_posix()
            where = Location(f"{docs_dir}/{rel}", 1)
            if path.is_symlink() and not path.resolve().is_relative_to(inside):
                errors.append(
                    CourseError(
                        where,
                        f"a symlink to {os.readlink(path)}, outside {docs_dir}/: it would "
                        "publish that file; copy what the site needs into docs/ instead",
                    )
                )
                continue
            if rel in skip:
                continue
            if name in names and path.suffix.lower() == ".css":
                errors += _remote_css(path, f"{docs_dir}/{rel}")
            unlisted = active_files is not None and rel not in listed
            if name in names and unlisted and not _inert(path):
                kind = (
                    f"{path.suffix} files" if path.suffix else "a file without a suffix holding <"
                )
                errors.append(
                    CourseError(
                        where,
                        f"{kind}: not a type browsers only show (they render .html, .xht, .svg, "
                        ".xml and the like as documents that run script on the site's origin); "
                        "this one is not one of the course's own (plugins.course.active_files in "
                        "mkdocs.yml): remove it, or list it there after review",
                    )
                )
    return errors


def _inert(path: Path) -> bool:
    if path.suffix:
        return path.suffix.lower() in INERT_SUFFIXES
    try:
        return b"<" not in path.read_bytes()
    except OSError:
        return False


def _remote_css(path: Path, shown: str) -> list[CourseError]:
    try:
        data = path.read_bytes()
    except OSError:
        return []
    text, problem = sanitize.stylesheet_text(data)
    if problem:
        line, message = problem
        return [CourseError(Location(shown, line), message)]
    lines = text.splitlines()
    errors = []
    for url in sanitize.css_addresses(text):
        if sanitize.leaves(url):
            line = next((n for n, row in enumerate(lines, 1) if url in row), 1)
            errors.append(
                CourseError(
                    Location(shown, line),
                    f"loads {url!r} from outside the site: every byte the site needs is "
                    "served from it (put the file under docs/)",
                )
            )
    return errors


def ignored(root: Path, docs_dir: str) -> set[str]:
    """``docs/``-relative paths of the files git ignores under ``docs_dir``; empty outside git."""
    try:
        out = subprocess.run(
            [
                "git",
                "ls-files",
                "-z",
                "--others",
                "--ignored",
                "--exclude-standard",
                "--",
                docs_dir,
            ],
            cwd=root,
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return set()
    prefix = docs_dir.rstrip("/") + "/"
    return {
        name.removeprefix(prefix)
        for name in out.decode("utf-8", "surrogateescape").split("\0")
        if name.startswith(prefix)
    }
