"""Work an earlier build did, kept for the next one: page HTML and the checks of built pages.

MkDocs renders every page on every build (only ``serve`` has a dirty mode), and the hook's work
per page (course blocks to HTML, math to MathML, the scans for script and for remote loads) is
a pure function of the page's text, of the engine's code and of the installed packages. So each
result is stored under a hash of exactly its inputs, in ``.cache/build/memo.json``, and a later
build with the same inputs takes it from there. The whole memo is dropped when the engine's code
or a package changes (:func:`tools.buildkit.buildinfo.engine_digest`,
:func:`tools.buildkit.buildinfo.installed_distributions`), and only the entries a build used are
written back, so it never grows past one build's worth. A memo that cannot be read is an empty one.

JSON, not pickle: a cache file is never code.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import buildinfo
from .digest import Digest

MISSING = object()


class BuildMemo:
    """Results by (kind, hash of inputs), read from and written to one file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        engine = Digest(buildinfo.engine_digest(), *buildinfo.installed_distributions())
        self.engine = engine.hexdigest()
        self._old: dict[str, Any] = {}
        self._used: dict[str, Any] = {}
        with contextlib.suppress(OSError, ValueError, TypeError, AttributeError):
            data = json.loads(path.read_text("utf-8"))
            if data.get("engine") == self.engine and isinstance(data.get("entries"), dict):
                self._old = data["entries"]

    def get(self, kind: str, inputs: tuple[str, ...], compute: Callable[[], Any]) -> Any:
        """``compute()``'s value (JSON-serialisable), or the one stored for these ``inputs``."""
        key, value = self.find(kind, inputs)
        if value is MISSING:
            value = compute()
        self.put(key, value)
        return value

    def find(self, kind: str, inputs: tuple[str, ...]) -> tuple[str, Any]:
        """``(key, stored value)``, or ``(key, MISSING)``; :meth:`put` the value under that key
        once computed (for work done elsewhere, such as in :mod:`tools.buildkit.workers`)."""
        key = f"{kind}:{Digest(kind, *inputs).hexdigest()}"
        if key in self._used:
            return key, self._used[key]
        return key, self._old.get(key, MISSING)

    def put(self, key: str, value: Any) -> None:
        self._used[key] = value

    def save(self) -> None:
        """Write back the entries this build used, unless they are exactly those already stored."""
        if self._used == self._old:
            return
        data = json.dumps({"engine": self.engine, "entries": self._used}).encode()
        with contextlib.suppress(OSError):
            buildinfo.write_atomically(self.path, data)
