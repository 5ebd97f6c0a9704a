"""What one build may publish: every file of the site folder, with the digest it must have.

The site folder of a build holds only what the build made, each file as it made it: a file
copied from ``docs/`` or the theme has its source's bytes as they were when the build began;
a page, a theme template and a generated file (deck, review data, practice zip, search index)
the bytes the build wrote. Anything else in the folder, or any of these changed since, was
written by something the build ran (a lab cell, before it was confined, wrote a page into the
staging folder and appended a script to the Review page's ``store.js``), so the build fails
before ``site/`` is replaced, naming the file. The sources are compared again at the end too:
a source that changed during the build is refused even when its copy was made after.
"""

from __future__ import annotations

import gzip
import hashlib
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Protocol

# Written by MkDocs from a file it wrote: the gzip of the sitemap (its bytes hold a time).
_GZIPPED = {"sitemap.xml.gz": "sitemap.xml"}


class SiteFile(Protocol):  # what this module reads of MkDocs' File
    src_uri: str
    dest_uri: str
    abs_src_path: str | None
    generated_by: str | None

    @property
    def content_bytes(self) -> bytes: ...

    def is_documentation_page(self) -> bool: ...


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Outputs:
    def __init__(self) -> None:
        self.expected: dict[str, str] = {}  # site path -> sha256 of the bytes it must hold
        self.sources: dict[str, tuple[Path, str]] = {}  # shown name -> source and its sha256

    def record_files(self, files: Iterable[SiteFile], docs: Path) -> None:
        """Each file MkDocs will copy, with its source's digest now (a generated file: the
        content it was given; :meth:`written` records what the build writes later). A page's
        bytes are recorded when it is written; a notebook page's source is published beside it
        (mkdocs-jupyter's ``include_source``) and must be that source."""
        for file in files:
            if file.generated_by or not file.abs_src_path:
                self.expected[file.dest_uri] = _digest(file.content_bytes)
                continue
            if file.is_documentation_page() and file.src_uri.endswith(".md"):
                continue
            source = Path(file.abs_src_path)
            digest = _digest(source.read_bytes())
            self.expected[file.src_uri if file.is_documentation_page() else file.dest_uri] = digest
            inside = source.is_relative_to(docs)
            shown = source.relative_to(docs.parent) if inside else f"the theme's {file.src_uri}"
            self.sources[str(shown)] = (source, digest)

    def written(self, dest: str, data: bytes) -> None:
        """The build wrote ``data`` at ``dest`` (a page, a template, a generated file)."""
        self.expected[dest] = _digest(data)

    def problems(self, site: Path) -> list[str]:
        """Every file of ``site`` the build did not make as it is, and every source that
        changed since :meth:`record_files`."""
        found = []
        for shown, (source, digest) in sorted(self.sources.items()):
            try:
                same = _digest(source.read_bytes()) == digest
            except OSError:
                same = False
            if not same:
                found.append(f"{shown} changed while the site was built")
        for folder, dirs, names in os.walk(site):
            for name in sorted([*names, *(d for d in dirs if Path(folder, d).is_symlink())]):
                path = Path(folder) / name
                rel = path.relative_to(site).as_posix()
                problem = self._problem(path, rel)
                if problem:
                    found.append(f"{site.name}/{rel}: {problem}")
        return found

    def _problem(self, path: Path, rel: str) -> str | None:
        if path.is_symlink():
            return "a symlink the build did not make"
        if rel in _GZIPPED:
            try:
                data = gzip.decompress(path.read_bytes())
            except (OSError, EOFError):
                data = b""
            if _digest(data) != self.expected.get(_GZIPPED[rel]):
                return f"not the gzip of {_GZIPPED[rel]}"
            return None
        if rel not in self.expected:
            return "a file the build did not make"
        if _digest(path.read_bytes()) != self.expected[rel]:
            return "changed after the build wrote it"
        return None
