"""An Anki export (``.apkg`` or ``.colpkg``, exported with scheduling) read back as the site's
progress, within bounds: ``python3 -m tools progress from-anki``.

The file is untrusted, so every step has a limit and a plain message when it is reached: the
file's size, the collection's size once unzipped or decompressed, the number of reviews, the
time SQLite may spend reading (a progress handler stops a query that runs on), and the tables
read must be tables (a ``revlog`` made into a recursive VIEW never ends).

An export made with "Support older Anki versions" holds a plain SQLite collection, read here
with SQLite alone. Anki 2.1.50 and later compress it with zstd, which only the Anki library
reads here: it runs in a child process (:mod:`tools.anki.progress_unpack`) under a timeout and
limits on its memory and on the size of what it writes, and its output is read like the plain
one. Cards whose note the course does not have are left out and counted; so are cards whose
values the page could not read (each card is checked by the page's own rules).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import importlib.util
import json
import math
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path

from .progress import (
    ProgressError,
    _iso,
    card_problem,
    day_start_ms,
    review_day,
    site_due_ms,
    site_scheduled_days,
    site_steps,
)

MAX_EXPORT_BYTES = 512 * 1024 * 1024  # a large Anki collection with media still fits
MAX_COLLECTION_BYTES = 1024 * 1024 * 1024  # the collection, unzipped or decompressed
MAX_REVIEWS = 500_000  # of the course's cards; the page's 8 MB import holds fewer still
READ_SECONDS = 60.0  # SQLite's time on the collection
LIBRARY_SECONDS = 180.0  # the Anki library's time to decompress it
LIBRARY_MEMORY = 4 * 1024**3  # its address space
NEWEST_SCHEMA = 18  # the collection schema of Anki 23.10 to 26.x
TABLES = ("col", "cards", "notes", "revlog")
TIMING_KEYS = ("schedVer", "rollover", "creationOffset")  # what Anki counts days by


def _refuse(path: Path, why: str) -> ProgressError:
    return ProgressError(f"{path}: {why}; nothing was written")


@contextlib.contextmanager
def _collection(path: Path) -> Iterator[sqlite3.Connection]:
    """The collection database inside the Anki export ``path``, open read-only and checked."""
    path = Path(path)
    try:
        size = path.stat().st_size
        with path.open("rb") as handle:
            head = handle.read(4)
    except OSError as exc:
        raise _refuse(path, f"cannot be read ({exc})") from exc
    if size > MAX_EXPORT_BYTES:
        raise _refuse(
            path,
            f"{size // 2**20} MB is more than an Anki export may be here "
            f"({MAX_EXPORT_BYTES // 2**20} MB)",
        )
    if not zipfile.is_zipfile(path):
        if head == b"PK\x03\x04":
            raise _refuse(path, "the zip file is cut short (was the download or copy finished?)")
        raise _refuse(path, "not an Anki export (.apkg and .colpkg files are zip files)")
    with tempfile.TemporaryDirectory() as folder:
        database = Path(folder) / "collection.anki2"
        try:
            with zipfile.ZipFile(path) as archive:
                infos = {info.filename: info for info in archive.infolist()}
                legacy = next(
                    (infos[n] for n in ("collection.anki21", "collection.anki2") if n in infos),
                    None,
                )
                if "collection.anki21b" in infos:
                    _unpack_with_library(path, database)
                elif legacy is not None:
                    _extract(path, archive, legacy, database)
                else:
                    raise _refuse(path, "an Anki export holds a collection; this one has none")
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as exc:
            raise _refuse(path, f"the zip file is damaged ({exc})") from exc
        conn = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
        deadline = time.monotonic() + READ_SECONDS
        conn.set_progress_handler(lambda: int(time.monotonic() > deadline), 10_000)
        try:
            _check_schema(path, conn)
            yield conn
        except sqlite3.OperationalError as exc:
            if "interrupt" in str(exc):
                raise _refuse(path, f"reading it took more than {READ_SECONDS:g} s") from exc
            raise _refuse(path, f"its collection is damaged ({exc})") from exc
        except sqlite3.DatabaseError as exc:
            raise _refuse(path, f"its collection is damaged ({exc})") from exc
        finally:
            conn.close()


def _extract(path: Path, archive: zipfile.ZipFile, info: zipfile.ZipInfo, target: Path) -> None:
    """Copy the collection out of the zip, refusing one larger than MAX_COLLECTION_BYTES (the
    zip's stated size is checked first, the bytes actually read as they come)."""
    too_big = (
        f"its collection is more than {MAX_COLLECTION_BYTES // 2**20} MB once unzipped, more "
        "than this tool reads (a zip bomb?)"
    )
    if info.file_size > MAX_COLLECTION_BYTES:
        raise _refuse(path, too_big)
    copied = 0
    with archive.open(info) as source, target.open("wb") as out:
        while chunk := source.read(1 << 20):
            copied += len(chunk)
            if copied > MAX_COLLECTION_BYTES:
                raise _refuse(path, too_big)
            out.write(chunk)


def _library_limits() -> None:  # pragma: no cover - runs in the child, before it starts
    import resource
    import signal

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails, not kills
    resource.setrlimit(resource.RLIMIT_FSIZE, (MAX_COLLECTION_BYTES, MAX_COLLECTION_BYTES))
    resource.setrlimit(resource.RLIMIT_AS, (LIBRARY_MEMORY, LIBRARY_MEMORY))


def _unpack_with_library(path: Path, target: Path) -> None:
    """The collection of a current Anki export, unpacked by the Anki library into ``target``."""
    if importlib.util.find_spec("anki") is None:
        raise _refuse(
            path,
            "Anki 2.1.50 and later compress the collection, which needs the anki package. "
            "Run the command as python3 -m tools progress from-anki FILE, which installs it "
            "into .venv on first use, or export from Anki with 'Support older Anki versions' "
            "ticked",
        )
    # By this package's own name, whichever it is imported under; run in the private folder that
    # holds ``target``, so that no module of the folder the command was started in can shadow one.
    command = [sys.executable, "-m", f"{__package__}.progress_unpack", str(path), str(target)]
    try:
        done = subprocess.run(
            command,
            cwd=target.parent,
            capture_output=True,
            text=True,
            timeout=LIBRARY_SECONDS,
            preexec_fn=_library_limits if os.name == "posix" else None,
        )
    except subprocess.TimeoutExpired as exc:
        raise _refuse(
            path,
            f"Anki's library took more than {LIBRARY_SECONDS:g} s to read it and was "
            "stopped (a damaged or hostile file?)",
        ) from exc
    if done.returncode:
        said = done.stdout + done.stderr
        if os.strerror(errno.EFBIG) in said or (
            target.exists() and target.stat().st_size >= MAX_COLLECTION_BYTES
        ):
            raise _refuse(
                path,
                f"its collection is more than {MAX_COLLECTION_BYTES // 2**20} MB once "
                "decompressed, more than this tool reads (a zip bomb?)",
            )
        why = (said.strip() or "it stopped").splitlines()[-1]
        raise _refuse(path, f"Anki could not read it ({why[:300]})")


def _check_schema(path: Path, conn: sqlite3.Connection) -> None:
    kinds = dict(
        conn.execute(
            f"SELECT name, type FROM sqlite_master WHERE name IN ({','.join('?' * len(TABLES))})",
            TABLES,
        )
    )
    for name in TABLES:
        if kinds.get(name) != "table":
            raise _refuse(
                path,
                f"its collection has no {name} table ({kinds.get(name) or 'nothing'} in "
                "its place): not an Anki collection",
            )
    row = conn.execute("SELECT ver, crt FROM col").fetchone()
    if row is None or not all(isinstance(value, int) for value in row):
        raise _refuse(path, "its collection has no valid col row: not an Anki collection")
    if row[0] > NEWEST_SCHEMA:
        raise _refuse(
            path,
            f"its collection has schema version {row[0]}, newer than this tool reads "
            f"({NEWEST_SCHEMA}); export it with 'Support older Anki versions' ticked",
        )


def _timing_settings(conn: sqlite3.Connection) -> dict[str, object]:
    """The collection's settings that decide how it counts days: rows of its ``config`` table
    (schema 18), or keys of ``col.conf`` (older schemas, which have no such table)."""
    table = conn.execute("SELECT type FROM sqlite_master WHERE name = 'config'").fetchone()
    if table == ("table",):
        rows = conn.execute(
            f"SELECT key, val FROM config WHERE key IN ({','.join('?' * len(TIMING_KEYS))})",
            TIMING_KEYS,
        )
        return {key: _parsed(value) for key, value in rows}
    (conf,) = conn.execute("SELECT conf FROM col").fetchone()
    settings = _parsed(conf)
    return settings if isinstance(settings, dict) else {}


def _parsed(text: object) -> object:
    """The JSON ``text`` as Python, or None where it is none (Anki takes such a setting as
    unset)."""
    try:
        return json.loads(text)
    except (TypeError, ValueError, RecursionError):
        return None


def _whole(value: object, low: int, high: int) -> int | None:
    """``value`` if it is a whole number from ``low`` to ``high``: what Anki's library reads as
    a setting of that type (any other value is unset to it)."""
    if isinstance(value, int) and not isinstance(value, bool) and low <= value <= high:
        return value
    return None


def anki_today(crt: int, settings: dict[str, object], now: int) -> int:
    """The day number of the collection created at ``crt`` at ``now`` (seconds), counted as
    Anki counts it (rslib/src/scheduler/timing.rs, ``sched_timing_today``), so that a card's due
    day means the date Anki shows, whichever zone the collection was made in.

    A collection with ``creationOffset`` (minutes west of UTC where it was made, which Anki sets
    on every collection it makes now) counts calendar dates, from the date of ``crt`` in its
    creation zone to today's date here, less one before the ``rollover`` hour (default 4).
    Without it, whole days since ``crt`` moved to the rollover hour here; a collection of the
    old scheduler (``schedVer`` 1 or unset), whole days since ``crt``. A setting Anki's library
    cannot read as its type counts as unset, as it does there."""
    if _whole(settings.get("schedVer"), 2, 2) is None:
        return max(0, (now - crt) // 86_400)
    hour = _whole(settings.get("rollover"), 0, 255)
    rollover = 4 if hour is None else min(hour, 23)
    here = dt.datetime.fromtimestamp(now, dt.UTC).astimezone()
    minutes_west = _whole(settings.get("creationOffset"), -1439, 1439)
    if minutes_west is None:
        created = dt.datetime.fromtimestamp(crt, here.tzinfo)
        start = created.replace(hour=rollover, minute=0, second=0, microsecond=0)
        return max(0, (now - int(start.timestamp())) // 86_400)
    created = dt.datetime.fromtimestamp(crt, dt.timezone(dt.timedelta(minutes=-minutes_west)))
    passed = here >= here.replace(hour=rollover, minute=0, second=0, microsecond=0)
    return max(0, (here.date() - created.date()).days - (0 if passed else 1))


def _memory(data: object) -> tuple[float, float] | None:
    """FSRS stability and difficulty from a card's ``data`` column, or None."""
    try:
        value = json.loads(data or "{}")
        stability, difficulty = float(value["s"]), float(value["d"])
    except (ValueError, KeyError, TypeError, RecursionError):
        return None
    if not (math.isfinite(stability) and math.isfinite(difficulty)) or stability <= 0:
        return None
    return stability, difficulty


def _history(conn: sqlite3.Connection, path: Path, guids: list[str]) -> dict[int, list]:
    """The reviews of the course's cards, by card id, oldest first (at most MAX_REVIEWS)."""
    marks = ",".join("?" * len(guids))
    rows = conn.execute(
        "SELECT id, cid, ease, time FROM revlog WHERE ease BETWEEN 1 AND 4 "
        "AND type IN (0, 1, 2, 3) AND cid IN (SELECT cards.id FROM cards JOIN notes "
        f"ON notes.id = cards.nid WHERE notes.guid IN ({marks})) ORDER BY id LIMIT ?",
        (*guids, MAX_REVIEWS + 1),
    ).fetchall()
    if len(rows) > MAX_REVIEWS:
        raise _refuse(
            path,
            f"its course cards have more than {MAX_REVIEWS} reviews, more than the "
            "Review page keeps",
        )
    log: dict[int, list] = {}
    for stamp, cid, ease, took in rows:
        entry = [stamp, ease, took] if isinstance(took, int) and took > 0 else [stamp, ease]
        log.setdefault(cid, []).append(entry)
    return log


def _site_card(row: dict, history: list, today: dt.date, today_index: int) -> dict:
    """The site's card for the Anki card ``row`` reviewed as ``history`` (ms stamps)."""
    last = history[-1][0]
    previous = history[-2][0] if len(history) > 1 else last
    day_ms = (
        0
        if row["queue"] == 1
        else day_start_ms(today + dt.timedelta(days=row["due"] - today_index))
    )
    memory = row["memory"] or (max(float(row["ivl"]), 0.1), 5.0)
    log = [[_iso(entry[0]), *entry[1:]] for entry in history]
    return {
        "due": _iso(site_due_ms(row, last, day_ms)),
        "stability": memory[0],
        "difficulty": min(10.0, max(1.0, memory[1])),
        "elapsed_days": (review_day(last) - review_day(previous)).days,
        "scheduled_days": site_scheduled_days(row),
        "learning_steps": site_steps(row),
        "reps": max(row["reps"], len(history)),
        "lapses": row["lapses"],
        "state": row["type"],
        "last_review": log[-1][0],
        "log": log,
    }


def from_anki(path: Path, guids: set[str], now_ms: int) -> tuple[dict[str, dict], dict[str, int]]:
    """``(cards by GUID, counts)`` of the Anki export ``path``, for the course's ``guids``.

    ``counts``: ``known`` cards read, ``unknown`` cards whose note the course lacks (left out),
    ``new`` course cards never reviewed, ``damaged`` cards with values the page cannot read
    (left out), ``estimated`` cards without an FSRS memory state (Anki scheduled them with
    SM-2): their stability is taken as their interval, which is what FSRS schedules at 90%
    retention, and their difficulty as the middle of its range.
    """
    counts = {"known": 0, "unknown": 0, "new": 0, "estimated": 0, "damaged": 0}
    cards: dict[str, dict] = {}
    with _collection(path) as conn:
        (crt,) = conn.execute("SELECT crt FROM col").fetchone()
        today = review_day(now_ms)
        try:
            today_index = anki_today(crt, _timing_settings(conn), now_ms // 1000)
        except (OverflowError, ValueError, OSError) as exc:
            raise _refuse(path, f"its collection's creation time {crt} is not a date") from exc
        log = _history(conn, path, sorted(guids))
        rows = conn.execute(
            "SELECT notes.guid, cards.id, cards.type, cards.queue, cards.due, cards.ivl, "
            "cards.reps, cards.lapses, cards.left, cards.data "
            "FROM cards JOIN notes ON notes.id = cards.nid"
        )
        names = ("type", "queue", "due", "ivl", "reps", "lapses", "left")
        for guid, cid, *values, data in rows:
            if guid not in guids:
                counts["unknown"] += 1
                continue
            history = log.get(cid, [])
            row = dict(zip(names, values, strict=True), memory=_memory(data))
            if row["type"] not in (1, 2, 3) or not history:
                counts["new"] += 1
                continue
            try:
                card = _site_card(row, history, today, today_index)
            except (TypeError, ValueError, OverflowError, OSError):
                card = None
            if card is None or card_problem(card, now_ms):
                counts["damaged"] += 1
                continue
            counts["estimated"] += row["memory"] is None
            cards[guid] = card
            counts["known"] += 1
    if counts["unknown"] and not counts["known"] + counts["new"] + counts["damaged"]:
        raise _refuse(
            path,
            f"none of its {counts['unknown']} cards is a note of this course "
            "(is it another deck's export?)",
        )
    return cards, counts
