"""Progress as an Anki package: the course's own deck with each reviewed card's schedule.

For a collection that does not hold the course yet. Anki's importer adds the notes with their
cards' schedule, memory state and review log; into a collection that already holds the notes it
adds nothing of them (it never changes an existing card's schedule), which is why
:mod:`tools.anki.progress_merge` exists.

The package is the built deck (:func:`tools.anki.deck.build_apkg`, so every note keeps its GUID,
note type, deck and media, the Urdu font included) with the card columns of
:func:`tools.anki.progress.anki_columns` written into its ``cards`` rows and the reviews into
``revlog``, through SQLite; nothing of the file format is written by hand. The collection's
creation time is set to the start of the first day anyone reviewed, so a review card's day number
counts from there and Anki's importer, which moves review days by the difference between its
"today" and the package's, leaves each card due on the day the site said. The browser writes the
same package by the same rules (``tools/plugin/static/review/export.js``).
"""

from __future__ import annotations

import io
import json
import sqlite3
import zipfile

from .progress import (
    _ms,
    anki_columns,
    day_start_ms,
    review_day,
    revlog_rows,
)


def reviewed(cards: dict[str, dict]) -> dict[str, dict]:
    """The cards that carry a schedule: reviewed at least once and no longer new."""
    return {guid: card for guid, card in cards.items() if card["log"] and card["state"]}


def schedule_rows(cards: dict[str, dict], now_ms: int) -> tuple[int, dict[str, dict], list]:
    """``(crt, card columns by GUID, revlog rows)`` for the reviewed ``cards``.

    ``crt`` (seconds) is the start of the first review day; review days count from it.
    """
    chosen = reviewed(cards)
    first = min(
        (review_day(_ms(card["log"][0][0])) for card in chosen.values()),
        default=review_day(now_ms),
    )
    today_number = (review_day(now_ms) - first).days
    columns = {guid: anki_columns(card, today_number, now_ms) for guid, card in chosen.items()}
    last_ivls = {guid: values.pop("last_ivl") for guid, values in columns.items()}
    return day_start_ms(first) // 1000, columns, revlog_rows(chosen, last_ivls)


def to_apkg(deck_apkg: bytes, cards: dict[str, dict], now_ms: int) -> tuple[bytes, int]:
    """``(package, cards scheduled)``: ``deck_apkg`` (the course deck) with ``cards``' schedule.

    Cards of GUIDs the deck does not have are left out (the course dropped them).
    """
    crt, columns, revlog = schedule_rows(cards, now_ms)
    with zipfile.ZipFile(io.BytesIO(deck_apkg)) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    conn = sqlite3.connect(":memory:")
    try:
        conn.deserialize(entries["collection.anki2"])
        ids = dict(
            conn.execute(
                "SELECT notes.guid, cards.id FROM cards JOIN notes ON notes.id = cards.nid"
            )
        )
        (conf,) = conn.execute("SELECT conf FROM col").fetchone()
        # Without schedVer 2, Anki reads the revlog as the old three-button learning scheduler's
        # and moves every learning grade up by one.
        conf = json.dumps({**json.loads(conf), "schedVer": 2})
        conn.execute("UPDATE col SET crt = ?, conf = ?", (crt, conf))
        known = {guid: values for guid, values in columns.items() if guid in ids}
        for guid, values in known.items():
            names = ", ".join(f"{name} = ?" for name in values)
            conn.execute(
                f"UPDATE cards SET {names}, mod = ?, usn = -1 WHERE id = ?",
                (*values.values(), now_ms // 1000, ids[guid]),
            )
        conn.executemany(
            "INSERT INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type) "
            "VALUES (?, ?, -1, ?, ?, 0, 0, ?, ?)",
            [
                (stamp, ids[guid], grade, ivl, took, kind)
                for stamp, guid, grade, ivl, kind, took in revlog
                if guid in ids
            ],
        )
        conn.commit()
        entries["collection.anki2"] = conn.serialize()
    finally:
        conn.close()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue(), len(known)
