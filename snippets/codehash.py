"""The one definition of "the measuring code": which files a benchmark's result depends on, hashed.

``code_hash`` fingerprints a snippet together with the sibling modules it imports (transitively),
so editing the harness *or a helper it uses* marks old results as stale. Both sides import this
module: ``provenance.py`` when a test writes a results file, and the site build
(``tools/benchmarks/results.py``) when it decides whether a file is stale. One function on both
sides means "current" cannot mean two things.

Standard library only: the course engine imports it without torch, and the GPU machine runs it
with nothing but torch and pytest installed.
"""

from __future__ import annotations

import ast
import hashlib
from pathlib import Path
from typing import Any


def local_imports(path: Path) -> list[Path]:
    """Sibling ``.py`` files that ``path`` imports, found by parsing (never by importing)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    found = (path.parent / f"{name}.py" for name in sorted(names))
    return [candidate for candidate in found if candidate.is_file()]


def code_files(entry: Path) -> list[Path]:
    """``entry`` and every local module it reaches through imports, in a stable order."""
    seen: dict[Path, None] = {}
    pending = [entry.resolve()]
    while pending:
        path = pending.pop()
        if path in seen:
            continue
        seen[path] = None
        pending.extend(p.resolve() for p in local_imports(path))
    return sorted(seen)


def code_hash(entry: Path, root: Path) -> dict[str, Any]:
    """SHA-256 over the code files (paths relative to ``root``, line endings normalised).

    Line endings are normalised so a Windows checkout (CRLF) does not look stale.
    """
    digest = hashlib.sha256()
    names = []
    for path in code_files(entry):
        name = path.relative_to(root.resolve()).as_posix()
        names.append(name)
        digest.update(name.encode() + b"\0")
        digest.update(path.read_bytes().replace(b"\r\n", b"\n") + b"\0")
    return {
        "entry": entry.resolve().relative_to(root.resolve()).as_posix(),
        "files": names,
        "sha256": digest.hexdigest(),
    }


if __name__ == "__main__":
    import sys

    here = Path(__file__).resolve().parent
    entry = Path(sys.argv[1]) if len(sys.argv) > 1 else here / "checkpointing.py"
    code = code_hash(entry, here.parent)
    print(f"{code['sha256']}  {' + '.join(code['files'])}")
