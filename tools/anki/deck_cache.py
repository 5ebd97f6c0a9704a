"""The deck for a build, built only when something it is made of changed.

A deck is a pure function of: the notes (each item's GUID, deck and source-line hash, its page's
path and title), their modification times (:mod:`tools.anki.note_dates`), the course settings and
note templates, the build timestamp and the engine code, packages and files that render it. The
key below hashes all of those; the bytes of a deck already built for that key are read back from
``.cache/deck/`` instead of being built again, so a rebuild with nothing changed skips the deck.
Any change to any input gives a new key, and a cached file that cannot be read is built again.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

from ..buildkit import buildinfo
from ..buildkit.digest import Digest
from ..course.model import Course
from ..course.notes import NoteItem
from . import deck, note_dates

KEEP = 4  # decks kept in the cache (a few recent versions, not all history)


def apkg(course: Course, items: list[NoteItem], *, root: Path, timestamp: int) -> bytes:
    """The ``.apkg`` bytes of the course's notes ``items`` (:func:`tools.course.notes.note_items`),
    from the cache when its inputs did not change."""
    times = note_dates.note_times(
        items, root=root, timestamp=timestamp, renderer=deck.RENDERER_FILES
    )
    path = _path(root, _key(course, items, times, timestamp, deck.templates(root, course.config)))
    with contextlib.suppress(OSError):
        return path.read_bytes()
    data = deck.build_apkg(course, timestamp=timestamp, root=root, items=items, times=times)
    with contextlib.suppress(OSError):  # a read-only checkout just builds it again next time
        _store(path, data)
    return data


def _path(root: Path, key: str) -> Path:
    return root / ".cache" / "deck" / f"{key}.apkg"


def _key(
    course: Course,
    items: list[NoteItem],
    times: dict[str, int],
    timestamp: int,
    templates: dict[str, str],
) -> str:
    digest = Digest(str(timestamp), repr(course.config), buildinfo.engine_digest(), _media_digest())
    digest.text(*buildinfo.installed_distributions())  # genanki's version shapes the bytes
    for name, text in sorted(templates.items()):  # the course's note templates
        digest.text(name, text)
    for entry in items:
        row = [entry.guid, entry.deck_name, entry.item.digest, times[entry.guid]]
        row += [entry.page.docs_path, entry.page.title]
        digest.text(json.dumps(row, ensure_ascii=False))
    return digest.hexdigest(32)


def _media_digest() -> str:
    """Hash of the files the deck packs besides its notes (the Urdu font and its licence)."""
    digest = Digest()
    for name, source in sorted(deck.DECK_MEDIA.items()):
        with contextlib.suppress(OSError):
            digest.text(name).data((deck.FONTS / source).read_bytes())
    return digest.hexdigest()


def _store(path: Path, data: bytes) -> None:
    """Write ``path`` atomically, then keep only the :data:`KEEP` newest decks."""
    buildinfo.write_atomically(path, data)
    kept = sorted(path.parent.glob("*.apkg"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in kept[KEEP:]:
        with contextlib.suppress(OSError):
            old.unlink()
