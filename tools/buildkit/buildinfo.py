"""Facts about the build that every output shares: where the repo is, and what time it is "now".

The build time is the time of the source, not of the clock: ``SOURCE_DATE_EPOCH`` when set
(the reproducible-builds convention), else the last commit's time. Anki updates an imported note
only when the incoming modification time is newer, so a per-commit time both updates learners'
notes after a new commit and keeps two builds of one commit byte-identical.

Standard library only: ``tools/bootstrap.py`` takes :data:`ROOT` from here before the virtual
environment exists.
"""

from __future__ import annotations

import contextlib
import functools
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

from .digest import Digest  # standard library only, like this module

ROOT = Path(__file__).resolve().parents[2]
STRICT_RESULTS_ENV = "COURSE_STRICT_RESULTS"


def git(root: Path, *args: str) -> str | None:
    """Standard output of a git command in ``root``, or None outside a checkout or on failure."""
    try:
        result = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
    except OSError:
        return None
    return result.stdout if result.returncode == 0 else None


def source_date_epoch(root: Path, sources: Iterable[str]) -> int:
    """Seconds since the epoch that stand for this version of the course at ``root``. Outside a
    git checkout (an unpacked tarball, say) the newest file of ``sources`` stands in: the
    course's files and folders, from ``root``, as its settings name them (the caller knows
    them; this module reads no course settings). 0 when none is there."""
    if os.environ.get("SOURCE_DATE_EPOCH"):
        return int(os.environ["SOURCE_DATE_EPOCH"])
    last_commit = (git(root, "log", "-1", "--format=%ct") or "").strip()
    if last_commit:
        return int(last_commit)
    files = []
    for source in sources:
        path = root / source
        files += [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
    return int(max((path.stat().st_mtime for path in files), default=0))


def strict_results() -> bool:
    """Whether stale benchmark results are an error (the publishing workflow sets this)."""
    return os.environ.get(STRICT_RESULTS_ENV, "") not in ("", "0")


def snippets_digest(root: Path) -> str:
    """Short hash of the snippets of the course at ``root``: the lab notebook imports them, so
    its cache depends on them."""
    digest = Digest()
    for path in sorted((root / "snippets").rglob("*.py")):
        digest.file(path, root)
    return digest.hexdigest(16)


@functools.cache
def installed_distributions() -> tuple[str, ...]:
    """The installed Python distributions, by their metadata folders' names (name and version):
    the packages that render pages and decks are inputs of what a build caches, like the engine.
    Read once per process: the packages it imported are those it runs with."""
    names: set[str] = set()
    for folder in sys.path:
        with contextlib.suppress(OSError):
            names.update(n for n in os.listdir(folder or ".") if n.endswith(".dist-info"))
    return tuple(sorted(names))


@functools.cache
def engine_digest() -> str:
    """Hash of the engine's code: output cached by an earlier build of other code must not be
    reused (see :mod:`tools.anki.deck_cache` and :mod:`tools.buildkit.memo`). The engine is this
    package's folder, wherever it is installed. What a course supplies (its note templates, its
    benchmark views) is the course's input, keyed by the caches that use it: pages with an embed
    are rendered on every build. The packages' versions are keyed beside it
    (:func:`installed_distributions`, the versions that run, which ``constraints.txt`` only asks
    for). Computed once per process, like the code it stands for."""
    package = Path(__file__).resolve().parents[1]
    digest = Digest()
    for path in sorted(package.rglob("*.py")):
        digest.file(path, package)
    return digest.hexdigest()


def write_atomically(path: Path, data: bytes, *, durable: bool = False) -> None:
    """Write ``path`` whole or not at all: a temporary file in its folder, renamed over it, so a
    reader (a concurrent build) never sees half a file and a failed write leaves the old one.
    ``durable``: flushed to disk before the rename (a deck handed to a learner; not a cache).
    Raises OSError; callers writing a cache ignore it (the next build only runs slower)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            if durable:
                out.flush()
                os.fsync(out.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
