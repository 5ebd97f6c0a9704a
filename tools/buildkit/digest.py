"""The one way the engine hashes what a cache is keyed on, and the one version of the caches'
format.

Every cache (the build stamp, the page memo, the deck cache, the checked course, the notebook's
cache folder, the engine's own hash) keys its entries with :class:`Digest`, so no two of them
can disagree on how a file or a list of strings is hashed. Standard library only, like
:mod:`tools.buildkit.buildinfo`, which uses it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

CACHE_FORMAT = 1  # bump when what a cache key stands for changes: every cache is dropped then


class Digest:
    """A SHA-256 over parts that cannot run together: each text ends in NUL, each block of bytes
    carries its length, and a file is its path (from a root) then its bytes. It starts with
    :data:`CACHE_FORMAT`."""

    def __init__(self, *texts: str) -> None:
        self._sha = hashlib.sha256()
        self.text(str(CACHE_FORMAT), *texts)

    def text(self, *texts: str) -> Digest:
        for text in texts:
            self._sha.update(text.encode("utf-8", "surrogatepass") + b"\0")
        return self

    def data(self, data: bytes) -> Digest:
        self._sha.update(len(data).to_bytes(8, "big") + data)
        return self

    def file(self, path: Path, root: Path) -> Digest:
        """Add ``path``'s name relative to ``root`` and its contents (OSError if unreadable)."""
        data = path.read_bytes()
        return self.text(path.relative_to(root).as_posix()).data(data)

    def hexdigest(self, length: int = 64) -> str:
        return self._sha.hexdigest()[:length]
