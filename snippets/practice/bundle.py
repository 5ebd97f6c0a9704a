"""The practice as a download: one zip a learner with only the published site can start.

The zip holds the checker (this package, without the project's templates), the upstream
project's history as a git bundle (made here from the templates and ``snippets/``, so the zip
needs neither), the issues, and ``practice.py`` to run it::

    oss-practice/practice.py            python3 practice.py start DIR
    oss-practice/practice/...           the checker
    oss-practice/practice/upstream.bundle

The same sources give the same bytes: the history has fixed authors and dates, and every zip
entry has a fixed time and mode, in a fixed order.
"""

from __future__ import annotations

import io
import tempfile
import zipfile
from pathlib import Path

from . import workspace
from .gitio import git

PACKAGE = workspace.PACKAGE
TOP = "oss-practice"
ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # the earliest time a zip entry can hold
LAUNCHER = '''"""The practice workspace of "Contributing to open-source ML".

    python3 practice.py start ~/oss-practice     # then follow what it prints

Needs Python 3.11+, git, and pytest and torch (the CPU build is enough) in this Python.
"""

import sys

from practice.cli import main

sys.exit(main(sys.argv[1:]))
'''


def _bundle() -> bytes:
    with tempfile.TemporaryDirectory(prefix="practice-bundle-") as tmp:
        bare = Path(tmp) / "upstream.git"
        workspace.build_upstream(bare)
        out = Path(tmp) / "upstream.bundle"
        git("-c", "pack.threads=1", "bundle", "create", "-q", str(out), "main", cwd=bare)
        return out.read_bytes()


def zip_bytes() -> bytes:
    entries: list[tuple[str, bytes, int]] = [(f"{TOP}/practice.py", LAUNCHER.encode(), 0o755)]
    for path in workspace.checker_files():
        entries.append(
            (f"{TOP}/practice/{path.relative_to(PACKAGE).as_posix()}", path.read_bytes(), 0o644)
        )
    entries.append((f"{TOP}/practice/{workspace.BUNDLE.name}", _bundle(), 0o644))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data, mode in sorted(entries):
            info = zipfile.ZipInfo(name, ZIP_TIME)
            info.external_attr = mode << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return buffer.getvalue()
