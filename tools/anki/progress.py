"""A learner's review progress (the site's JSON file) as an Anki package with its schedule, and
an Anki export read back as such a file: ``python3 -m tools progress to-anki|from-anki``.

The progress file is what the Review page exports (``docs/assets/review/store.js``): per note
GUID, the FSRS card ts-fsrs returned at the last review and a log of ``[time, grade]`` pairs.

To Anki: the course's own deck (:func:`tools.anki.deck.build_apkg`, so every note keeps its GUID,
note type and deck) with the scheduling of each reviewed card written into its ``cards`` row and
its reviews into ``revlog``, through SQLite; nothing of the file format is written by hand. The
collection's creation time is set to the start (4 a.m. local time, as in Anki and on the site) of
the first day anyone reviewed, so a review card's day number counts from there and Anki's
importer, which moves review days by the difference between its "today" and the package's,
leaves each card due on the day the site said. The same rules are written in the browser
(``docs/assets/review/anki.js``) for a learner with only the site; ``tests/test_progress.py``
checks both against the Anki library.

From Anki: the collection inside an ``.apkg`` or ``.colpkg`` (exported with scheduling). An
export of Anki 2.1.50 or later keeps it compressed with zstd, which only the Anki library reads
here, so that case needs the ``anki`` package; an export made with "Support older Anki versions"
is read with SQLite alone. Cards whose note the course does not have are left out and counted.

The revlog rows carry each review's time and grade exactly; their kind is derived from the log
alone: reviews on the first day are learning steps, later ones reviews, and one after an Again
on a later day a relearning step. Interval columns are left 0 except on each card's last row.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import json
import math
import sqlite3
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

from tools.build.buildinfo import write_atomically

FORMAT = "contributing-to-open-source-ml/review-progress"  # store.js's FORMAT: a test compares
VERSION = 1
DEFAULT_NEW_PER_DAY = 20
DAY_START_HOURS = 4
DESIRED_RETENTION = 0.9  # ts-fsrs's default, with which the site schedules
MAX_PROGRESS_BYTES = 8 * 1024 * 1024  # far above a whole course's reviews; below it, a typo
MAX_EXPORT_BYTES = 512 * 1024 * 1024  # a large Anki collection with media still fits
STATES = (0, 1, 2, 3)  # ts-fsrs's New, Learning, Review, Relearning: Anki's card types too
CARD_NUMBERS = (
    "stability",
    "difficulty",
    "elapsed_days",
    "scheduled_days",
    "learning_steps",
    "reps",
    "lapses",
)


class ProgressError(Exception):
    """A progress file or an Anki export that cannot be used; the message says why, plainly."""


# --- days, as Anki and the site count them -------------------------------------------------


def _local(ms: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(ms / 1000).astimezone()


def review_day(ms: float) -> dt.date:
    """The review day a moment falls in (local time, a day starting at 4 a.m.)."""
    return (_local(ms) - dt.timedelta(hours=DAY_START_HOURS)).date()


def day_start_ms(day: dt.date) -> int:
    """The moment ``day`` starts (4 a.m. local time), in ms."""
    start = dt.datetime.combine(day, dt.time(DAY_START_HOURS)).astimezone()
    return int(start.timestamp() * 1000)


def _ms(iso: str) -> int:
    return int(dt.datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000)


def _iso(ms: float) -> str:
    moment = dt.datetime.fromtimestamp(ms / 1000, dt.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{int(ms) % 1000:03d}Z"


# --- the progress file ---------------------------------------------------------------------


def _card_problem(card: object) -> str:
    """Why a stored card is unusable, or "" (the rules of store.js's ``cardProblem``)."""
    if not isinstance(card, dict):
        return "is not an object"
    try:
        _ms(card["due"])
        if card.get("last_review") is not None:
            _ms(card["last_review"])
    except (KeyError, TypeError, ValueError):
        return "has no valid due date or last_review"
    for name in CARD_NUMBERS:
        value = card.get(name)
        if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
            return f"has an invalid {name}"
    if not card["stability"] > 0:
        return "has a stability of 0 (it must be above 0)"
    if not 1 <= card["difficulty"] <= 10:
        return f"has a difficulty of {card['difficulty']} (it must be from 1 to 10)"
    if card.get("state") not in STATES:
        return "has an invalid state"
    log = card.get("log")
    if not isinstance(log, list):
        return "has no review log"
    for entry in log:
        try:
            ok = len(entry) == 2 and entry[1] in (1, 2, 3, 4) and _ms(entry[0]) > 0
        except (TypeError, ValueError):
            ok = False
        if not ok:
            return "has an invalid review log entry"
    return ""


def read_progress(path: Path) -> dict:
    """The progress document in ``path``, checked whole; ProgressError names what is wrong."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > MAX_PROGRESS_BYTES:
            raise ProgressError(
                f"{path}: {size // 1024} KB is too large for a progress file "
                f"(at most {MAX_PROGRESS_BYTES // 1024} KB)"
            )
        text = path.read_text("utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise ProgressError(f"{path}: cannot be read ({exc})") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ProgressError(f"{path}:{exc.lineno}: not a JSON file ({exc.msg})") from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ProgressError(f"{path}: not review progress exported from this course")
    if data.get("version") != VERSION:
        raise ProgressError(
            f"{path}: format version {data.get('version')}; this tool reads version {VERSION}"
        )
    cards = data.get("cards")
    if not isinstance(cards, dict):
        raise ProgressError(f"{path}: it has no cards")
    for guid, card in cards.items():
        problem = _card_problem(card)
        if problem:
            raise ProgressError(f"{path}: the item {json.dumps(guid)} {problem}")
    return data


def progress_document(cards: dict[str, dict], now_ms: int, new_per_day: int) -> dict:
    """A progress document as the Review page exports and imports it."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "saved": _iso(now_ms),
        "settings": {"newPerDay": new_per_day},
        "cards": cards,
    }


# --- to Anki -------------------------------------------------------------------------------


def revlog_kinds(log: list) -> list[int]:
    """Anki's revlog type of each review: 0 learning, 1 review, 2 relearning (see the top)."""
    if not log:
        return []
    first = review_day(_ms(log[0][0]))
    kinds = []
    for i, (when, _grade) in enumerate(log):
        if review_day(_ms(when)) == first:
            kinds.append(0)
        else:
            kinds.append(2 if log[i - 1][1] == 1 and kinds[i - 1] != 0 else 1)
    return kinds


def schedule_rows(cards: dict[str, dict], now_ms: int) -> tuple[int, dict[str, dict], list]:
    """``(crt, card columns by GUID, revlog rows without card ids)`` for the reviewed ``cards``.

    ``crt`` (seconds) is the start of the first review day; review days count from it.
    """
    reviewed = {guid: card for guid, card in cards.items() if card["log"] and card["state"]}
    first = min(
        (review_day(_ms(card["log"][0][0])) for card in reviewed.values()),
        default=review_day(now_ms),
    )
    crt_ms = day_start_ms(first)
    tomorrow = day_start_ms(review_day(now_ms) + dt.timedelta(days=1))
    columns: dict[str, dict] = {}
    revlog = []
    used: set[int] = set()
    for guid, card in reviewed.items():
        due_ms = _ms(card["due"])
        due_day = (review_day(due_ms) - first).days
        state = card["state"]
        ivl = max(1, math.ceil(card["scheduled_days"])) if state in (2, 3) else 0
        if state == 2:
            queue, due, last_ivl = 2, due_day, ivl
        elif due_ms < tomorrow:  # a learning step due today: Anki's queue 1 holds its moment
            queue, due, last_ivl = (
                1,
                due_ms // 1000,
                -max(1, (due_ms - _ms(card["log"][-1][0])) // 1000),
            )
        else:
            queue, due, last_ivl = 3, due_day, ivl or 1
        memory = {"s": card["stability"], "d": card["difficulty"], "dr": DESIRED_RETENTION}
        columns[guid] = {
            "type": state,
            "queue": queue,
            "due": due,
            "ivl": ivl,
            "factor": 2500 if state in (2, 3) else 0,
            "reps": int(card["reps"]),
            "lapses": int(card["lapses"]),
            "left": 1001 if queue in (1, 3) else 0,
            "data": json.dumps(memory, separators=(",", ":")),
        }
        kinds = revlog_kinds(card["log"])
        for i, (when, grade) in enumerate(card["log"]):
            stamp = _ms(when)
            while stamp in used:  # revlog ids are unique times in ms
                stamp += 1
            used.add(stamp)
            last = i == len(card["log"]) - 1
            revlog.append((stamp, guid, grade, last_ivl if last else 0, kinds[i]))
    return crt_ms // 1000, columns, revlog


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
        scheduled = 0
        for guid, values in columns.items():
            if guid not in ids:
                continue
            scheduled += 1
            names = ", ".join(f"{name} = ?" for name in values)
            conn.execute(
                f"UPDATE cards SET {names}, mod = ?, usn = -1 WHERE id = ?",
                (*values.values(), now_ms // 1000, ids[guid]),
            )
        conn.executemany(
            "INSERT INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type) "
            "VALUES (?, ?, -1, ?, ?, 0, 0, 0, ?)",
            [
                (stamp, ids[guid], grade, ivl, kind)
                for stamp, guid, grade, ivl, kind in revlog
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
    return buffer.getvalue(), scheduled


# --- from Anki -----------------------------------------------------------------------------


@contextlib.contextmanager
def _collection(path: Path) -> Iterator[sqlite3.Connection]:
    """The collection database inside the Anki export ``path``, open read-only."""
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise ProgressError(f"{path}: cannot be read ({exc})") from exc
    if size > MAX_EXPORT_BYTES:
        raise ProgressError(f"{path}: {size // 2**20} MB is too large for an Anki export here")
    if not zipfile.is_zipfile(path):
        raise ProgressError(f"{path}: not an Anki export (.apkg or .colpkg are zip files)")
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        try:
            with zipfile.ZipFile(path) as archive:
                names = set(archive.namelist())
                legacy = next(
                    (n for n in ("collection.anki21", "collection.anki2") if n in names), ""
                )
                if "collection.anki21b" in names:
                    database = _with_anki_library(path, work)
                elif legacy:
                    database = work / "collection.db"
                    database.write_bytes(archive.read(legacy))
                else:
                    raise ProgressError(
                        f"{path}: an Anki export holds a collection; this one has none"
                    )
        except (zipfile.BadZipFile, OSError) as exc:
            raise ProgressError(f"{path}: the zip file is damaged ({exc})") from exc
        conn = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
        try:
            conn.execute("SELECT crt FROM col").fetchone()
            yield conn
        except sqlite3.DatabaseError as exc:
            raise ProgressError(f"{path}: its collection is damaged ({exc})") from exc
        finally:
            conn.close()


def _with_anki_library(path: Path, work: Path) -> Path:
    """The collection of a current Anki export, imported by the Anki library into ``work``."""
    try:
        from anki._backend import RustBackend
        from anki.collection import (
            Collection,
            ImportAnkiPackageOptions,
            ImportAnkiPackageRequest,
        )
    except ImportError as exc:
        raise ProgressError(
            f"{path}: Anki 2.1.50 and later compress the collection, which needs the anki package "
            "(.venv/bin/pip install anki) or an export with 'Support older Anki versions' ticked"
        ) from exc
    target = work / "collection.anki2"
    try:
        if path.suffix.lower() == ".colpkg":  # a whole collection: unpacked to ``target`` as is
            # Anki's desktop app restores a .colpkg with this backend call; pylib has no wrapper.
            RustBackend().import_collection_package(
                col_path=str(target),
                backup_path=str(path),
                media_folder=str(work / "media"),
                media_db=str(work / "media.db"),
            )
        else:  # a deck: imported into an empty collection, its schedule with it
            col = Collection(str(target))
            try:
                options = ImportAnkiPackageOptions(with_scheduling=True, merge_notetypes=True)
                request = ImportAnkiPackageRequest(package_path=str(path), options=options)
                col.import_anki_package(request)
            finally:
                col.close()
    except Exception as exc:  # the library's own errors have no common base worth naming
        raise ProgressError(f"{path}: Anki could not read it ({exc})") from exc
    return target


def from_anki(path: Path, guids: set[str], now_ms: int) -> tuple[dict[str, dict], dict[str, int]]:
    """``(cards by GUID, counts)`` of the Anki export ``path``, for the course's ``guids``.

    ``counts``: ``known`` cards read, ``unknown`` cards whose note the course lacks (left out),
    ``new`` course cards never reviewed, ``estimated`` cards without an FSRS memory state (Anki
    scheduled them with SM-2): their stability is taken as their interval, which is what FSRS
    schedules at 90% retention, and their difficulty as the middle of its range.
    """
    counts = {"known": 0, "unknown": 0, "new": 0, "estimated": 0}
    cards: dict[str, dict] = {}
    with _collection(path) as conn:
        (crt,) = conn.execute("SELECT crt FROM col").fetchone()
        today = review_day(now_ms)
        today_index = (today - review_day(crt * 1000)).days
        log: dict[int, list] = {}
        for stamp, cid, ease in conn.execute(
            "SELECT id, cid, ease FROM revlog WHERE ease BETWEEN 1 AND 4 AND type IN (0, 1, 2, 3) "
            "ORDER BY id"
        ):
            log.setdefault(cid, []).append([_iso(stamp), ease])
        rows = conn.execute(
            "SELECT notes.guid, cards.id, cards.type, cards.queue, cards.due, cards.ivl, "
            "cards.reps, cards.lapses, cards.data FROM cards JOIN notes ON notes.id = cards.nid"
        )
        for guid, cid, ctype, queue, due, ivl, reps, lapses, data in rows:
            if guid not in guids:
                counts["unknown"] += 1
                continue
            history = log.get(cid, [])
            if ctype not in (1, 2, 3) or not history:
                counts["new"] += 1
                continue
            if queue == 1 or (ctype in (1, 3) and due > 1_000_000_000):
                due_ms = due * 1000
            else:
                due_ms = day_start_ms(today + dt.timedelta(days=due - today_index))
            memory = _memory(data)
            if memory is None:
                counts["estimated"] += 1
                memory = (max(float(ivl), 0.1), 5.0)
            last = _ms(history[-1][0])
            previous = _ms(history[-2][0]) if len(history) > 1 else last
            cards[guid] = {
                "due": _iso(due_ms),
                "stability": memory[0],
                "difficulty": min(10.0, max(1.0, memory[1])),
                "elapsed_days": (review_day(last) - review_day(previous)).days,
                "scheduled_days": max(0, ivl),
                "learning_steps": 0,
                "reps": max(reps, len(history)),
                "lapses": lapses,
                "state": ctype,
                "last_review": history[-1][0],
                "log": history,
            }
            counts["known"] += 1
    if counts["unknown"] and not counts["known"] + counts["new"]:
        raise ProgressError(
            f"{path}: none of its {counts['unknown']} cards is a note of this course "
            "(is it another deck's export?)"
        )
    return cards, counts


def _memory(data: str) -> tuple[float, float] | None:
    """FSRS stability and difficulty from a card's ``data`` column, or None."""
    try:
        value = json.loads(data or "{}")
        stability, difficulty = float(value["s"]), float(value["d"])
    except (ValueError, KeyError, TypeError):
        return None
    return (stability, difficulty) if stability > 0 else None


def write_json(path: Path, document: dict) -> None:
    """Write ``document`` to ``path`` atomically: a failure leaves no half-written file."""
    text = json.dumps(document, indent=1, ensure_ascii=False) + "\n"
    write_atomically(Path(path), text.encode("utf-8"), durable=True)
