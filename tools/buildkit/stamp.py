"""Whether a site folder already holds what a build would write: the no-op rebuild, skipped.

A build's output is a function of its inputs: the course's source files (every file git would
commit: tracked, or untracked and not ignored), the engine's code, the installed packages (theme,
plugins, Markdown extensions, the notebook's kernel), the commit (it dates the deck's notes), the
build's settings (``SOURCE_DATE_EPOCH``, strict results) and the site folder itself. After a
build succeeds, a hash of all of them is recorded with the list of files the build wrote
(``.cache/build/last-build.json``). A build whose inputs hash the same, into a site folder that
still holds exactly those files (same sizes, same times), has nothing to do. Any edit, commit,
package or setting, and any file changed, added or removed in the site folder, builds as usual.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from pathlib import Path

from . import buildinfo
from .digest import Digest

RECORD = Path(".cache") / "build" / "last-build.json"


def inputs_digest(root: Path, site_dir: Path, *, strict_results: bool) -> str:
    """Hash of everything a build of the course in ``root`` into ``site_dir`` depends on."""
    digest = Digest(str(site_dir.resolve()), sys.version, buildinfo.engine_digest())
    digest.text(os.environ.get("SOURCE_DATE_EPOCH", ""), str(strict_results))
    digest.text((buildinfo.git(root, "rev-parse", "HEAD") or "").strip())
    digest.text(*buildinfo.installed_distributions())
    for path in _sources(root, site_dir):
        try:
            digest.file(path, root)
        except OSError:
            digest.text(path.relative_to(root).as_posix(), "<unreadable>")
    return digest.hexdigest()


def up_to_date(root: Path, site_dir: Path, digest: str) -> bool:
    """Whether the last build of ``root`` had these inputs and ``site_dir`` is as it left it."""
    try:
        record = json.loads((root / RECORD).read_text("utf-8"))
    except (OSError, ValueError):
        return False
    return (
        isinstance(record, dict)
        and record.get("inputs") == digest
        and record.get("site") == _manifest(site_dir)
    )


def record(root: Path, site_dir: Path, digest: str) -> None:
    """Remember a successful build (a cache: if it cannot be written, the next build runs)."""
    data = json.dumps({"inputs": digest, "site": _manifest(site_dir)}).encode()
    with contextlib.suppress(OSError):
        buildinfo.write_atomically(root / RECORD, data)


def _sources(root: Path, site_dir: Path) -> list[Path]:
    """The course's files: what git would commit, else every file outside hidden folders; never
    the site folder, the caches or a build's staging folder."""
    listed = buildinfo.git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    if listed is not None:
        paths = {root / name for name in listed.split("\0") if name}
    else:
        paths = {
            p
            for p in root.rglob("*")
            if not any(part.startswith(".") for part in p.relative_to(root).parts)
        }
    site = site_dir.resolve()
    return sorted(
        p
        for p in paths
        if not _written_by_builds(p.relative_to(root)) and site not in p.resolve().parents
        if p.is_file()
    )


def _written_by_builds(path: Path) -> bool:
    """Caches and staging folders, even where no ``.gitignore`` names them: never inputs."""
    top = path.parts[0] if path.parts else ""
    return top == ".cache" or top.startswith(".site-")


def _manifest(site_dir: Path) -> list[list]:
    """Every file in the site folder with its size and modification time."""
    if not site_dir.is_dir():
        return []
    files = sorted(p for p in site_dir.rglob("*") if p.is_file())
    return [[p.relative_to(site_dir).as_posix(), *_size_and_time(p)] for p in files]


def _size_and_time(path: Path) -> tuple[int, int]:
    info = path.stat()
    return info.st_size, info.st_mtime_ns
