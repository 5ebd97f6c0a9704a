"""A learner's review progress (the site's JSON file) and the rules that turn one item of it into
Anki's card columns and back: shared by every route between the Review page and Anki
(``python3 -m tools progress to-anki|into-anki|from-anki``).

The progress file is what the Review page exports (``tools/plugin/static/review/store.js``): per
note GUID, the FSRS card ts-fsrs returned at the last review and a log of ``[time, grade]`` or
``[time, grade, answer ms]`` entries.

The routes: :mod:`tools.anki.progress_apkg` writes a package for a collection that does not yet
hold the course, :mod:`tools.anki.progress_merge` writes the schedule into a learner's own
collection (the only route into cards Anki already has: its importer never changes an existing
card's schedule), and :mod:`tools.anki.progress_read` reads an Anki export back, within bounds.
The browser writes the package by the same rules (``tools/plugin/static/review/export.js``).

A card's columns: a review card is due on a day number; a learning step shorter than a day is
due at a moment (Anki's queue 1), a longer one on a day (queue 3). ``left`` is the number of
learning steps still to go, from ts-fsrs's step index and the steps the site schedules with
(ts-fsrs's defaults, which are Anki's: 1m 10m to learn, 10m to relearn). The FSRS memory state,
the desired retention, the decay and the last review's time go into ``data`` as Anki writes them.
Back from Anki, a due day that matches the last review plus the interval gives the exact moment
ts-fsrs set (last review + interval days); a learning moment keeps the last review's
milliseconds, which Anki's whole seconds drop. A relearning card's ``ivl`` (the interval Anki
gives it back once relearnt) travels in ``scheduled_days``, which ts-fsrs only records and never
schedules by; ts-fsrs's 0 there (a step of minutes) is Anki's least interval, one day.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import math
import os
import re
from pathlib import Path

from ..buildkit.buildinfo import write_atomically

FORMAT = "contributing-to-open-source-ml/review-progress"  # store.js's FORMAT: a test compares
VERSION = 1
DEFAULT_NEW_PER_DAY = 20
DAY_START_HOURS = 4
DAY_MS = 86_400_000
DESIRED_RETENTION = 0.9  # ts-fsrs's default, with which the site schedules
DECAY = 0.1542  # FSRS-6's default decay (ts-fsrs's w[20]), which Anki stores beside the state
LEARNING_STEPS = 2  # ts-fsrs's default steps 1m 10m (Anki's too)
RELEARNING_STEPS = 1  # 10m
MAX_PROGRESS_BYTES = 8 * 1024 * 1024  # the page's import limit (page.js MAX_IMPORT_BYTES)
CLOCK_SKEW_MS = 5 * 60 * 1000  # store.js's CLOCK_SKEW: reviews later than now + this are refused
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
LARGEST_NUMBER = 1e9  # no count or interval of a real card comes near; beyond it, a hostile file
LATEST_YEAR = 9000  # no review or due date comes near; a date past it is a hostile file's
LATEST_MS = int(dt.datetime(LATEST_YEAR, 1, 1, tzinfo=dt.UTC).timestamp() * 1000)
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_PAGE_DATE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")  # as _iso writes one


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
    """The moment the date ``iso`` names, in ms. ValueError (TypeError where it is no string)
    unless it is written as the Review page writes dates and reads them on import (JavaScript's
    ``toISOString``, :func:`_iso`: ``2026-12-01T09:00:00.000Z``), so that a file these tools
    take the page takes too, and is one the days here can be counted from: after 1970 began,
    before LATEST_MS (Python's dates end with the year 9999, so a date near it has no local
    day)."""
    if not isinstance(iso, str):
        raise TypeError(f"{iso!r} is not a date")
    if not _PAGE_DATE.fullmatch(iso):
        raise ValueError(f"{iso} is not a date as the Review page writes one")
    moment = dt.datetime.fromisoformat(iso.replace("Z", "+00:00"))
    ms = (moment - _EPOCH) // dt.timedelta(milliseconds=1)
    if not 0 < ms < LATEST_MS:
        raise ValueError(f"{iso} is not a date from 1970 to {LATEST_YEAR}")
    return ms


def _iso(ms: float) -> str:
    moment = dt.datetime.fromtimestamp(ms / 1000, dt.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{int(ms) % 1000:03d}Z"


# --- the progress file ---------------------------------------------------------------------


def _is_count(value: object) -> bool:
    """A number JSON and the page both read: finite, not negative, not absurdly large."""
    return (
        not isinstance(value, bool)
        and isinstance(value, int | float)
        and math.isfinite(value)
        and 0 <= value <= LARGEST_NUMBER
    )


def _entry_ok(entry: object) -> bool:
    try:
        return (
            isinstance(entry, list)
            and len(entry) in (2, 3)
            and entry[1] in (1, 2, 3, 4)
            and not isinstance(entry[1], bool)
            and _ms(entry[0])  # a date, or TypeError or ValueError
            and (len(entry) == 2 or _is_count(entry[2]))
        )
    except (TypeError, ValueError, OverflowError, OSError):
        return False


def card_problem(card: object, now_ms: int | None = None) -> str:
    """Why a stored card is unusable, or "" (the rules of store.js's ``cardProblem``; with
    ``now_ms``, reviews after it are refused as the page refuses them on import)."""
    if not isinstance(card, dict):
        return "is not an object"
    try:
        _ms(card["due"])
        if card.get("last_review") is not None:
            _ms(card["last_review"])
    except (KeyError, TypeError, ValueError, OverflowError, OSError):
        return "has no valid due date or last_review"
    for name in CARD_NUMBERS:
        if not _is_count(card.get(name)):
            return f"has an invalid {name}"
    if not card["stability"] > 0:
        return "has a stability of 0 (it must be above 0)"
    if card["learning_steps"] != int(card["learning_steps"]):  # an index into ts-fsrs's steps
        return f"has a learning_steps of {card['learning_steps']} (it must be a whole number)"
    if not 1 <= card["difficulty"] <= 10:
        return f"has a difficulty of {card['difficulty']} (it must be from 1 to 10)"
    if card.get("state") not in STATES or isinstance(card.get("state"), bool):
        return "has an invalid state"
    log = card.get("log")
    if not isinstance(log, list):
        return "has no review log"
    if not all(_entry_ok(entry) for entry in log):
        return "has an invalid review log entry"
    if now_ms is not None:
        times = [entry[0] for entry in log]
        if card.get("last_review") is not None:
            times.append(card["last_review"])
        for moment in times:
            if _ms(moment) > now_ms + CLOCK_SKEW_MS:
                return f"was reviewed in the future ({moment})"
    return ""


def read_progress(path: Path, now_ms: int) -> dict:
    """The progress document in ``path``, checked whole as the page checks an import at
    ``now_ms`` (reviews after it refused); ProgressError names what is wrong."""
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
        data = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise ProgressError(f"{path}:{exc.lineno}: not a JSON file ({exc.msg})") from exc
    except (ValueError, RecursionError) as exc:
        raise ProgressError(f"{path}: not a JSON file the page reads ({exc})") from exc
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
        problem = card_problem(card, now_ms)
        if problem:
            raise ProgressError(f"{path}: the item {json.dumps(guid)} {problem}")
    return data


def _refuse_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")


def progress_document(cards: dict[str, dict], now_ms: int, new_per_day: int) -> dict:
    """A progress document as the Review page exports and imports it."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "saved": _iso(now_ms),
        "settings": {"newPerDay": new_per_day},
        "cards": cards,
    }


def encode_progress(document: dict) -> bytes:
    """``document`` as the file the page imports: strict JSON (no ``Infinity``), within the
    page's import limit, or ProgressError saying why not."""
    try:
        text = json.dumps(document, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except ValueError as exc:
        raise ProgressError(f"the progress holds a number JSON cannot carry ({exc})") from exc
    data = (text + "\n").encode("utf-8")
    if len(data) > MAX_PROGRESS_BYTES:
        raise ProgressError(
            f"the progress would be {len(data) // 1024} KB, more than the Review page imports "
            f"({MAX_PROGRESS_BYTES // 1024} KB); nothing was written"
        )
    return data


def check_output(out: Path, inputs: list[Path], force: bool) -> None:
    """Refuse to write ``out`` over one of ``inputs`` ever, or over any file without ``force``."""
    out = Path(out)
    for source in inputs:
        if out.exists() and source.exists() and os.path.samefile(out, source):
            raise ProgressError(f"{out}: that is the input file; choose another output with -o")
    if out.exists() and not force:
        raise ProgressError(f"{out}: the file exists; add --force to replace it, or choose -o")
    if out.exists() and not out.is_file():
        raise ProgressError(f"{out}: not a file; choose another output with -o")


def write_output(out: Path, data: bytes) -> None:
    """Write ``data`` to ``out`` atomically: a failure leaves no half-written file."""
    try:
        write_atomically(Path(out), data, durable=True)
    except OSError as exc:
        raise ProgressError(f"{out}: cannot be written ({exc}); nothing was changed") from exc


# --- one item as Anki's card columns, and back ----------------------------------------------


def last_review_ms(card: dict) -> int:
    return _ms(card["log"][-1][0]) if card["log"] else _ms(card["last_review"])


def anki_columns(card: dict, today_number: int, now_ms: int) -> dict:
    """Anki's columns for the reviewed ``card``, in a collection whose today is day number
    ``today_number`` at ``now_ms`` (see the top for the rules). ``last_ivl`` is for its last
    revlog row, in Anki's units (days, or negative seconds for a learning step)."""
    due_ms, last_ms = _ms(card["due"]), last_review_ms(card)
    state = card["state"]
    due_day = today_number + (review_day(due_ms) - review_day(now_ms)).days
    ivl = max(1, math.ceil(card["scheduled_days"])) if state in (2, 3) else 0
    if state == 2:
        queue, due, last_ivl = 2, due_day, ivl
    elif due_ms - last_ms < DAY_MS:
        queue, due, last_ivl = 1, due_ms // 1000, -max(1, (due_ms - last_ms) // 1000)
    else:
        queue, due, last_ivl = 3, due_day, max(1, ivl)
    steps = LEARNING_STEPS if state == 1 else RELEARNING_STEPS
    memory = {
        "s": card["stability"],
        "d": card["difficulty"],
        "dr": DESIRED_RETENTION,
        "decay": DECAY,
        "lrt": last_ms // 1000,
    }
    return {
        "type": state,
        "queue": queue,
        "due": due,
        "ivl": ivl,
        "factor": 2500 if state in (2, 3) else 0,
        "reps": int(card["reps"]),
        "lapses": int(card["lapses"]),
        "left": max(1, steps - int(card["learning_steps"])) if state in (1, 3) else 0,
        "data": json.dumps(memory, separators=(",", ":")),
        "last_ivl": last_ivl,
    }


def due_at_a_moment(row: dict) -> bool:
    """Whether Anki's ``due`` of the card ``row`` is a moment (seconds), not a day number."""
    return row["queue"] == 1 or (row["type"] in (1, 3) and row["due"] > 1_000_000_000)


def site_due_ms(row: dict, last_ms: int, due_day_ms: int) -> int:
    """When the site should show a card Anki holds as ``row`` (its type, queue, due, ivl),
    reviewed last at ``last_ms``; ``due_day_ms`` is the start of its due day (unused for a card
    due at a moment)."""
    if due_at_a_moment(row):
        return row["due"] * 1000 + last_ms % 1000
    exact = last_ms + row["ivl"] * DAY_MS
    return exact if review_day(exact) == review_day(due_day_ms) else due_day_ms


def site_scheduled_days(row: dict) -> int:
    """The site's ``scheduled_days`` for a card Anki holds as ``row``: the inverse of
    :func:`anki_columns`' ``ivl`` (see the top), so that a relearning card keeps its interval."""
    if row["type"] == 2:
        return max(0, row["ivl"])
    return row["ivl"] if row["type"] == 3 and row["ivl"] > 1 else 0


def site_steps(row: dict) -> int:
    """ts-fsrs's step index of a learning or relearning card Anki holds as ``row``."""
    steps = {1: LEARNING_STEPS, 3: RELEARNING_STEPS}.get(row["type"])
    return max(0, steps - row["left"] % 1000) if steps else 0


def revlog_kinds(log: list) -> list[int]:
    """Anki's revlog type of each review: 0 learning (the first day), 1 review, 2 relearning (a
    review after an Again on a later day)."""
    if not log:
        return []
    first = review_day(_ms(log[0][0]))
    kinds = []
    for i, entry in enumerate(log):
        if review_day(_ms(entry[0])) == first:
            kinds.append(0)
        else:
            kinds.append(2 if log[i - 1][1] == 1 and kinds[i - 1] != 0 else 1)
    return kinds


def revlog_rows(cards: dict[str, dict], last_ivls: dict[str, int]) -> list[tuple]:
    """``(id, guid, ease, ivl, type, time)`` of every review of ``cards``, for Anki's revlog.

    Revlog ids are unique times in ms: reviews sharing a millisecond take the next free ones, in
    one pass over the sorted times (a search for a free id per review is quadratic when many
    share one). ``last_ivls``: each card's ``last_ivl`` (:func:`anki_columns`)."""
    rows = []
    for guid, card in cards.items():
        log = card["log"]
        for i, (entry, kind) in enumerate(zip(log, revlog_kinds(log), strict=True)):
            ivl = last_ivls.get(guid, 0) if i == len(log) - 1 else 0
            took = int(entry[2]) if len(entry) > 2 else 0
            rows.append([_ms(entry[0]), guid, entry[1], ivl, kind, took])
    rows.sort(key=lambda row: row[0])
    for before, row in itertools.pairwise(rows):
        row[0] = max(row[0], before[0] + 1)
    return [tuple(row) for row in rows]
