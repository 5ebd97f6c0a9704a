"""The deck for a build, built only when something it is made of changed.

A deck is a pure function of: the notes (each item's GUID, deck and source-line hash, its page's
path and title), their modification times (:mod:`tools.note_dates`), the course settings, the
build timestamp and the engine code and files that render it. The key below hashes all of
those; the bytes of a deck already built for that key are read back from ``.cache/deck/``
instead of being built again, so a rebuild with nothing changed skips the deck. Any change to any
input gives a new key, and a cached file that cannot be read is simply built again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from pathlib import Path

from tools import deck, note_dates
from tools.model import Course

ENGINE = Path(__file__).resolve().parent.parent
FORMAT = 1  # bump when the key's meaning changes
KEEP = 4  # decks kept in the cache (a few recent versions, not all history)


def apkg(course: Course, *, root: Path, timestamp: int) -> bytes:
    """The course's ``.apkg`` bytes, from the cache when its inputs did not change."""
    items = list(deck.note_items(course))
    times = note_dates.note_times(items, root=root, timestamp=timestamp)
    key = _key(course, items, times, timestamp)
    folder = root / ".cache" / "deck"
    path = folder / f"{key}.apkg"
    with contextlib.suppress(OSError):
        return path.read_bytes()
    data = deck.build_apkg(course, timestamp=timestamp, root=root, times=times)
    with contextlib.suppress(OSError):  # a read-only checkout still builds
        _store(folder, path, data)
    return data


def _key(course: Course, items: list[deck.NoteItem], times: dict[str, int], timestamp: int) -> str:
    digest = hashlib.sha256()
    config = course.config
    header = [FORMAT, timestamp, repr(config), _engine_digest()]
    digest.update(json.dumps(header).encode())
    for entry in items:
        row = [entry.guid, entry.deck_name, entry.item.digest, times[entry.guid]]
        row += [entry.page.docs_path, entry.page.title]
        digest.update(json.dumps(row, ensure_ascii=False).encode() + b"\n")
    return digest.hexdigest()[:32]


def _engine_digest() -> str:
    """Hash of the engine's code and of the files the deck packs (templates, fonts)."""
    digest = hashlib.sha256()
    files = sorted((ENGINE / "tools").glob("*.py")) + sorted((ENGINE / "deck").glob("*"))
    files += [ENGINE / "constraints.txt", *(deck.FONTS / name for name in deck.DECK_MEDIA.values())]
    for path in files:
        with contextlib.suppress(OSError):
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _store(folder: Path, path: Path, data: bytes) -> None:
    """Write ``path`` atomically, then keep only the :data:`KEEP` newest decks."""
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".deck-", dir=folder)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    kept = sorted(folder.glob("*.apkg"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in kept[KEEP:]:
        with contextlib.suppress(OSError):
            old.unlink()
