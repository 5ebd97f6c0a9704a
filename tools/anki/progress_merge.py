"""Progress written into a learner's own Anki collection: ``python3 -m tools progress into-anki``.

The one route that reaches cards a collection already has: Anki's package importer matches the
course's notes by GUID and then leaves their cards' schedules and review logs as they are (0
cards scheduled, 0 reviews, no message), with every option it has. So this opens the collection
file with the official library while Anki is closed, has the library write a backup first (a
``.colpkg`` in the profile's ``backups`` folder, which Anki's File > Switch Profile > Open Backup
restores), adds the course's notes if some are missing (the library's own import of the deck),
and then merges card by card:

- the review log is the union: each review of the site that Anki does not have is added, one it
  has (same card, grade and second) is not added twice, so running this again adds nothing;
- the schedule and FSRS memory state are the site's where the site's last review is newer than
  Anki's, and Anki's are kept where Anki's is newer (the learner went on there).

The card columns are those of :func:`tools.anki.progress.anki_columns`, as in a package.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from .progress import (
    DECAY,
    DESIRED_RETENTION,
    ProgressError,
    anki_columns,
    last_review_ms,
    revlog_rows,
)
from .progress_apkg import reviewed

SAME_REVIEW_MS = 1000  # Anki's due and revlog times are whole seconds, ids unique ms


def _open(path: Path):
    try:
        from anki.collection import Collection
    except ImportError as exc:
        raise ProgressError(
            "writing into an Anki collection needs the anki package: run the command as "
            "python3 -m tools progress into-anki ..., which installs it into .venv on first use"
        ) from exc
    if not path.is_file():
        raise ProgressError(
            f"{path}: no such collection file (Anki's is collection.anki2 in your profile's folder)"
        )
    try:
        return Collection(str(path))
    except Exception as exc:  # the library's errors have no common base worth naming
        if "locked" in str(exc).lower() or "already open" in str(exc).lower():
            raise ProgressError(
                f"{path}: Anki has it open; close Anki, then run this again; nothing was changed"
            ) from exc
        raise ProgressError(
            f"{path}: Anki's library could not open it ({exc}); nothing was changed"
        ) from exc


def _backup(col, path: Path) -> Path:
    """A backup by Anki's library, moved into the profile's ``backups`` folder under a name no
    other backup has (Anki names them by the minute, so a second run would replace the first's,
    which holds the collection as it was before any)."""
    folder = path.parent / "backups"
    folder.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder) as made:
        col.create_backup(backup_folder=made, force=True, wait_for_completion=True)
        files = sorted(Path(made).glob("*.colpkg"))
        if not files:
            raise ProgressError(f"{path}: Anki's library made no backup, so nothing was changed")
        target = folder / files[-1].name
        number = 1
        while target.exists():
            number += 1
            target = folder / f"{files[-1].stem}-{number}.colpkg"
        files[-1].replace(target)
    return target


def _add_notes(col, deck_apkg: bytes, guids: set[str]) -> int:
    """Import the course deck if any of ``guids`` is missing: the number of notes added."""
    from anki.collection import ImportAnkiPackageOptions, ImportAnkiPackageRequest

    have = set(col.db.list("SELECT guid FROM notes"))
    if guids <= have:
        return 0
    with tempfile.TemporaryDirectory() as folder:
        package = Path(folder) / "course.apkg"
        package.write_bytes(deck_apkg)
        options = ImportAnkiPackageOptions(with_scheduling=False, merge_notetypes=True)
        request = ImportAnkiPackageRequest(package_path=str(package), options=options)
        return len(col.import_anki_package(request).log.new)


def _schedule(col, cid: int, card: dict, now_ms: int) -> None:
    from anki.cards import FSRSMemoryState

    values = anki_columns(card, col.sched.today, now_ms)
    target = col.get_card(cid)
    for name in ("type", "queue", "due", "ivl", "factor", "reps", "lapses", "left"):
        setattr(target, name, values[name])
    memory = json.loads(values["data"])
    target.memory_state = FSRSMemoryState(stability=memory["s"], difficulty=memory["d"])
    target.desired_retention = DESIRED_RETENTION
    target.decay = DECAY
    target.last_review_time = memory["lrt"]
    col.update_card(target, skip_undo_entry=True)


def into_anki(
    path: Path, cards: dict[str, dict], deck_apkg: bytes, guids: set[str], now_ms: int
) -> dict:
    """Merge the site's ``cards`` into the collection file ``path`` (see the top): counts of
    ``notes_added``, ``scheduled`` (the site's schedule taken), ``kept`` (Anki's was newer),
    ``reviews_added``, ``unknown`` (items the course no longer has), the ``backup`` file and
    whether ``fsrs`` is on in that collection."""
    path = Path(path)
    col = _open(path)
    try:
        backup = _backup(col, path)
        notes_added = _add_notes(col, deck_apkg, guids)
        counts = {
            "notes_added": notes_added,
            "backup": str(backup),
            "fsrs": bool(col.get_config("fsrs", False)),
        }
        try:  # the schedule and the log in one transaction: all of it or none
            col.db.transact(lambda: counts.update(_merge(col, cards, guids, now_ms)))
        except KeyboardInterrupt as exc:
            added = f"; the course's {notes_added} notes were added" if notes_added else ""
            raise ProgressError(
                f"{path}: interrupted; no schedule or review was written{added}. Anki's backup "
                f"from before: {backup}"
            ) from exc
    finally:
        col.close()
    return counts


def _merge(col, cards: dict[str, dict], guids: set[str], now_ms: int) -> dict:
    ids = dict(
        col.db.all("SELECT notes.guid, cards.id FROM cards JOIN notes ON notes.id = cards.nid")
    )
    chosen = reviewed(cards)
    known = {guid: card for guid, card in chosen.items() if guid in ids and guid in guids}
    counts = {"scheduled": 0, "kept": 0, "unknown": len(chosen) - len(known)}
    existing: dict[int, list[tuple[int, int]]] = {}
    for rid, cid, ease in col.db.all("SELECT id, cid, ease FROM revlog WHERE ease BETWEEN 1 AND 4"):
        existing.setdefault(cid, []).append((rid, ease))
    for guid, card in known.items():
        cid = ids[guid]
        anki_last = max((rid for rid, _ in existing.get(cid, [])), default=None)
        if anki_last is None or last_review_ms(card) > anki_last + SAME_REVIEW_MS:
            _schedule(col, cid, card, now_ms)
            counts["scheduled"] += 1
        else:
            counts["kept"] += 1
    counts["reviews_added"] = _add_reviews(col, known, ids, existing)
    return counts


def _add_reviews(col, known: dict, ids: dict, existing: dict) -> int:
    last_ivls = {
        guid: anki_columns(card, 0, last_review_ms(card))["last_ivl"]
        for guid, card in known.items()
    }
    added = 0
    for stamp, guid, ease, ivl, kind, took in revlog_rows(known, last_ivls):
        cid = ids[guid]
        if any(e == ease and abs(rid - stamp) < SAME_REVIEW_MS for rid, e in existing.get(cid, [])):
            continue
        while col.db.scalar("SELECT 1 FROM revlog WHERE id = ?", stamp):
            stamp += 1  # an id another card's review took: the next free millisecond
        col.db.execute(
            "INSERT INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type) "
            "VALUES (?, ?, -1, ?, ?, 0, 0, ?, ?)",
            stamp,
            cid,
            ease,
            ivl,
            took,
            kind,
        )
        existing.setdefault(cid, []).append((stamp, ease))
        added += 1
    return added
