"""Progress between the Review page and Anki (tools/anki/progress.py), checked with Anki's library.

Progress files here are in the page's format (the browser tests make real ones). The package is
imported into a fresh collection with scheduling, as a learner's Anki would; reviews done in Anki
are exported in Anki's current format and read back.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import time
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from anki_cards import card_id

pytestmark = pytest.mark.anki

pytest.importorskip("genanki", reason="the course engine's dependencies are not installed")
anki_collection = pytest.importorskip("anki.collection", reason="the anki package is not installed")

from mkdocs_course.anki import progress, progress_read  # noqa: E402
from mkdocs_course.anki.progress_apkg import to_apkg  # noqa: E402
from mkdocs_course.anki.progress_read import from_anki  # noqa: E402
from mkdocs_course.buildkit.buildinfo import ROOT  # noqa: E402
from mkdocs_course.plugin.assets import STATIC  # noqa: E402

Collection = anki_collection.Collection
DAY = 86_400_000


def iso(ms: float) -> str:
    """A time as the page writes it (JavaScript's toISOString)."""
    return datetime.fromtimestamp(int(ms) / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def site_cards(guids: list[str], now: int) -> dict[str, dict]:
    """Progress as the page leaves it: review, learning, relearning (due in days) and an unknown."""

    def card(state: int, due: int, stability: float, log_days: list[float], **more) -> dict:
        log = [
            [iso(now - days * DAY), grade]
            for days, grade in zip(log_days, [3, 3, 1, 3][: len(log_days)], strict=True)
        ]
        return {
            "due": iso(due),
            "stability": stability,
            "difficulty": 5.5,
            "elapsed_days": 3,
            "scheduled_days": max(0, round((due - now) / DAY)),
            "learning_steps": 0,
            "reps": len(log),
            "lapses": more.get("lapses", 0),
            "state": state,
            "last_review": log[-1][0],
            "log": log,
        }

    return {
        guids[0]: card(2, now + 5 * DAY, 7.2, [9, 6, 3]),
        guids[1]: card(1, now + 10 * 60_000, 0.4, [0.001]),
        guids[2]: card(3, now + 2 * DAY + 3_600_000, 1.9, [20, 15, 1, 0.5], lapses=1),
        guids[3]: card(2, now - 2 * DAY, 3.0, [5, 4]),  # overdue
        "not-in-this-course": card(2, now + DAY, 2.0, [2]),
    }


def import_with_scheduling(col, path: Path):
    options = anki_collection.ImportAnkiPackageOptions(with_scheduling=True, merge_notetypes=True)
    request = anki_collection.ImportAnkiPackageRequest(package_path=str(path), options=options)
    return col.import_anki_package(request).log


def anki_due_ms(col, card) -> int:
    """When Anki will show ``card``: a moment for intraday learning, else its day's start."""
    if card.queue == 1:
        return card.due * 1000
    today = progress.review_day(time.time() * 1000)
    return progress.day_start_ms(today + timedelta(days=card.due - col.sched.today))


def test_reviews_in_anki_come_back_as_a_progress_file(course_deck, tmp_path):
    guids, apkg = course_deck
    now = int(time.time() * 1000)
    cards = site_cards(guids, now)
    (tmp_path / "progress.apkg").write_bytes(to_apkg(apkg, cards, now)[0])
    col = Collection(str(tmp_path / "anki.anki2"))
    import_with_scheduling(col, tmp_path / "progress.apkg")
    col.set_config("fsrs", True)
    # A note the course does not know: ignored and counted.
    basic = col.models.by_name("Basic")
    stray = col.new_note(basic)
    stray["Front"], stray["Back"] = "elsewhere", "not the course"
    col.add_note(stray, col.decks.id("Other"))
    overdue = card_id(col, guids[3])
    card = col.get_card(overdue)
    card.start_timer()
    col.sched.answerCard(card, 3)
    export = tmp_path / "from-anki.apkg"
    options = anki_collection.ExportAnkiPackageOptions(
        with_scheduling=True, with_deck_configs=True, with_media=False, legacy=False
    )
    col.export_anki_package(out_path=str(export), options=options, limit=None)
    answered = col.get_card(overdue)
    expected_due = anki_due_ms(col, answered)
    col.close()
    assert "collection.anki21b" in zipfile.ZipFile(export).namelist()  # Anki's current format

    back, counts = from_anki(export, set(guids), int(time.time() * 1000))
    assert counts == {
        "known": 4,
        "unknown": 1,
        "new": len(guids) - 4,
        "estimated": 0,
        "damaged": 0,
    }
    reviewed = back[guids[3]]
    assert [g for _, g, *_ in reviewed["log"]] == [3, 3, 3]
    assert abs(progress._ms(reviewed["due"]) - expected_due) < DAY
    assert progress._ms(reviewed["due"]) > now + DAY  # no longer overdue
    for guid in guids[:3]:
        assert abs(progress._ms(back[guid]["due"]) - progress._ms(cards[guid]["due"])) < DAY
        assert back[guid]["stability"] == pytest.approx(cards[guid]["stability"], rel=1e-4)
    document = progress.progress_document(back, now, 20)
    path = tmp_path / "back.json"
    progress.write_output(path, progress.encode_progress(document))
    assert progress.read_progress(path, now)["cards"] == back  # what the page checks, checked here


@pytest.mark.parametrize("legacy", [False, True])
def test_a_whole_collection_export_is_read_too(course_deck, tmp_path, legacy):
    """A .colpkg: Anki's current (compressed) format through the Anki library, the legacy one
    with SQLite alone."""
    guids, apkg = course_deck
    now = int(time.time() * 1000)
    cards = site_cards(guids, now)
    (tmp_path / "progress.apkg").write_bytes(to_apkg(apkg, cards, now)[0])
    col = Collection(str(tmp_path / "anki.anki2"))
    import_with_scheduling(col, tmp_path / "progress.apkg")
    export = tmp_path / "collection.colpkg"
    col.export_collection_package(str(export), include_media=False, legacy=legacy)
    col.close()
    back, counts = from_anki(export, set(guids), now)
    assert counts["known"] == 4 and counts["unknown"] == 0
    assert {g: len(c["log"]) for g, c in back.items()} == {g: len(cards[g]["log"]) for g in back}


# Run in a child under another TZ: the Anki library and Python read the zone at start-up.
STUDY_ELSEWHERE = """
import sys
from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest

deck, folder, legacy = sys.argv[1], sys.argv[2], sys.argv[3] == "legacy"
col = Collection(folder + "/collection.anki2")
options = ImportAnkiPackageOptions(with_scheduling=False, merge_notetypes=True)
col.import_anki_package(ImportAnkiPackageRequest(package_path=deck, options=options))
col.set_config("fsrs", True)
for cid in sorted(col.find_cards(""))[:5]:
    card = col.get_card(cid)
    card.start_timer()
    col.sched.answerCard(card, 4)
col.sched.set_due_date([card.id], "3")
col.export_collection_package(
    out_path=folder + "/export.colpkg", include_media=False, legacy=legacy
)
col.close()
"""
READ_HERE = """
import json, sys, time
from datetime import timedelta
from anki.collection import Collection
from mkdocs_course.anki import progress
from mkdocs_course.anki.progress_read import from_anki

folder, guids = sys.argv[1], json.loads(sys.argv[2])
now = int(time.time() * 1000)
today = progress.review_day(now)
col = Collection(folder + "/collection.anki2")
anki = {
    guid: str(today + timedelta(days=due - col.sched.today))
    for guid, due in col.db.all(
        "SELECT notes.guid, cards.due FROM cards JOIN notes ON notes.id = cards.nid "
        "WHERE cards.queue = 2"
    )
}
col.close()
cards, _ = from_anki(folder + "/export.colpkg", set(guids), now)
site = {guid: str(progress.review_day(progress._ms(card["due"]))) for guid, card in cards.items()}
print(json.dumps({"anki": anki, "site": site}))
"""


@pytest.mark.parametrize("legacy", [False, True])
def test_a_collection_made_in_another_zone_keeps_its_due_dates(course_deck, tmp_path, legacy):
    """Anki counts a collection's days from the date it was made in its own zone
    (``creationOffset``), not from ``crt`` in the reader's zone: the site shows each card on the
    date Anki shows it, here in UTC for a collection made in Karachi (UTC+5)."""
    guids, apkg = course_deck
    (tmp_path / "deck.apkg").write_bytes(apkg)
    for zone, script, args in (
        ("Asia/Karachi", STUDY_ELSEWHERE, [tmp_path / "deck.apkg", tmp_path, legacy * "legacy"]),
        ("UTC", READ_HERE, [tmp_path, json.dumps(guids)]),
    ):
        done = subprocess.run(
            [sys.executable, "-c", script, *map(str, args)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            env={**os.environ, "TZ": zone},
        )
        assert done.returncode == 0, done.stderr
    dates = json.loads(done.stdout)
    assert len(dates["anki"]) == 5
    assert dates["site"] == dates["anki"]


# Anki's own cases (rslib/src/scheduler/timing.rs's tests): its zone, crt, now, the collection's
# settings, and the day number Anki counts.
ANKI_TIMING = [
    ("Australia/Brisbane", 1575226800, 1584491078, {}, 107),  # the old scheduler: whole days
    ("Australia/Brisbane", 1533564000, 1584491078, {"schedVer": 2, "rollover": 0}, 589),
    ("Australia/Brisbane", 1524038400, 1584491078, {"schedVer": 2}, 700),
    # Made at midnight in MDT, read in MST: dates, so the hour DST moved changes nothing.
    ("America/Phoenix", 1533535200, 1577415600, {"schedVer": 2, "creationOffset": 360}, 507),
    # Made at 3 a.m. on the 6th: on the 9th it is day 2 until 4 a.m., then day 3.
    ("America/Phoenix", 1533546000, 1533812399, {"schedVer": 2, "creationOffset": 360}, 2),
    ("America/Phoenix", 1533546000, 1533812400, {"schedVer": 2, "creationOffset": 360}, 3),
]


@pytest.mark.parametrize("zone", sorted({case[0] for case in ANKI_TIMING}))
def test_days_are_counted_as_ankis_own_tests_count_them(zone):
    cases = [case[1:] for case in ANKI_TIMING if case[0] == zone]
    script = (
        "import json, sys\n"
        "from mkdocs_course.anki.progress_read import anki_today\n"
        "cases = json.loads(sys.argv[1])\n"
        "print(json.dumps([anki_today(crt, settings, now) for crt, now, settings, _ in cases]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, json.dumps(cases)],
        capture_output=True,
        text=True,
        env={**os.environ, "TZ": zone},
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [case[-1] for case in cases]


def test_an_export_of_another_deck_is_refused(course_deck, tmp_path):
    col = Collection(str(tmp_path / "other.anki2"))
    note = col.new_note(col.models.by_name("Basic"))
    note["Front"], note["Back"] = "a", "b"
    col.add_note(note, col.decks.id("Other"))
    export = tmp_path / "other.colpkg"
    col.export_collection_package(str(export), include_media=False, legacy=False)
    col.close()
    with pytest.raises(
        progress.ProgressError, match="none of its 1 cards is a note of this course"
    ):
        from_anki(export, set(course_deck[0]), int(time.time() * 1000))


def progress_file(guids: list[str], folder: Path) -> tuple[dict, Path]:
    """The site's cards of ``site_cards`` (the course's only) and the page's file of them."""
    now = int(time.time() * 1000)
    cards = {g: c for g, c in site_cards(guids, now).items() if g in guids}
    source = folder / "course-review.json"
    source.write_text(json.dumps(progress.progress_document(cards, now, 20)), "utf-8")
    return cards, source


def test_the_command_converts_both_ways(course_deck, tmp_path):
    guids, _ = course_deck
    cards, source = progress_file(guids, tmp_path)
    run = [sys.executable, "-m", "tools", "progress"]
    made = subprocess.run([*run, "to-anki", str(source)], cwd=ROOT, capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    assert "4 cards with their schedule" in made.stdout
    back = subprocess.run(
        [*run, "from-anki", str(source.with_suffix(".apkg")), "-o", str(tmp_path / "b.json")],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert back.returncode == 0, back.stderr
    assert "4 reviewed cards" in back.stdout and "0 cards the course does not know" in back.stdout
    read = progress.read_progress(tmp_path / "b.json", int(time.time() * 1000))["cards"]
    assert set(read) == set(cards)
    for guid, card in cards.items():
        assert read[guid]["log"] == card["log"]


def test_to_anki_gives_each_card_left_out_its_reason(course_deck, tmp_path):
    """A course card never reviewed is new in Anki, not 'not in this version of the course'."""
    guids, _ = course_deck
    cards, source = progress_file(guids, tmp_path)
    unreviewed = {**cards[guids[0]], "log": [], "last_review": None}
    stray = site_cards(guids, int(time.time() * 1000))["not-in-this-course"]
    document = json.loads(source.read_text("utf-8"))
    document["cards"] |= {guids[0]: unreviewed, "not-in-this-course": stray}
    source.write_text(json.dumps(document), "utf-8")
    run = [sys.executable, "-m", "tools", "progress", "to-anki", str(source)]
    made = subprocess.run(run, cwd=ROOT, capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    assert (
        "3 cards with their schedule; 1 never reviewed (new in Anki); 1 not in this " in made.stdout
    )


def test_the_page_and_this_module_read_one_format():
    store = (STATIC / "review" / "store.js").read_text("utf-8")
    assert f'var FORMAT = "{progress.FORMAT}";' in store
    assert f"var VERSION = {progress.VERSION};" in store
    transfer = (STATIC / "review" / "transfer.js").read_text("utf-8")
    assert progress.MAX_PROGRESS_BYTES == 8 * 1024 * 1024
    assert "var MAX_IMPORT_BYTES = 8 * 1024 * 1024;" in transfer  # one limit for a progress file
    assert f"var CLOCK_SKEW = {progress.CLOCK_SKEW_MS // 60_000} * 60 * 1000;" in store
    # One bound for a count or an interval, one range of dates: a file the page takes and
    # exports is one the Python tools take too.
    assert progress.LARGEST_NUMBER == 1e9
    assert "var LARGEST_NUMBER = 1e9;" in store
    assert f"var LATEST_YEAR = {progress.LATEST_YEAR};" in store
    assert "var LATEST_MS = Date.UTC(LATEST_YEAR, 0, 1);" in store
    # The card's numbers both check, in one order: a field one side adds is checked by both.
    numbers = re.search(r"var CARD_NUMBERS = \[(.*?)\];", store, re.S)
    assert numbers, "store.js has no CARD_NUMBERS list"
    assert tuple(re.findall(r'"(\w+)"', numbers.group(1))) == progress.CARD_NUMBERS


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"not a zip", "not an Anki export"),
        (b"PK\x03\x04 truncated", "the zip file is cut short"),
        ("zip-without-collection", "this one has none"),
        ("zip-with-garbage", "its collection is damaged"),
    ],
)
def test_a_bad_anki_export_gets_a_plain_message(tmp_path, content, message):
    path = tmp_path / "export.apkg"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            archive.writestr("media", "{}")
            if content == "zip-with-garbage":
                archive.writestr("collection.anki2", b"this is no database" * 100)
        path.write_bytes(buffer.getvalue())
    with pytest.raises(progress.ProgressError, match=message):
        from_anki(path, set(), 0)


def test_too_large_inputs_are_refused_before_reading(tmp_path, monkeypatch):
    big = tmp_path / "big.json"
    big.write_text("{}" + " " * 2000, "utf-8")
    monkeypatch.setattr(progress, "MAX_PROGRESS_BYTES", 1000)
    monkeypatch.setattr(progress_read, "MAX_EXPORT_BYTES", 1000)
    with pytest.raises(progress.ProgressError, match="too large for a progress file"):
        progress.read_progress(big, 0)
    with pytest.raises(progress.ProgressError, match="more than an Anki export may be here"):
        from_anki(big, set(), 0)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{\n  oops", r"progress\.json:2: not a JSON file"),
        ('{"format": "another/course", "version": 1, "cards": {}}', "not review progress"),
        (
            json.dumps({"format": progress.FORMAT, "version": 1, "cards": {"x": {"due": "no"}}}),
            'the item "x" has no valid due date',
        ),
    ],
)
def test_a_bad_progress_file_gets_a_plain_message(tmp_path, text, message):
    path = tmp_path / "progress.json"
    path.write_text(text, "utf-8")
    with pytest.raises(progress.ProgressError, match=message):
        progress.read_progress(path, int(time.time() * 1000))


def test_into_anki_says_what_moved_and_then_that_nothing_did(course_deck, tmp_path):
    guids, _ = course_deck
    _, source = progress_file(guids, tmp_path)
    collection = tmp_path / "profile" / "collection.anki2"
    collection.parent.mkdir()
    Collection(str(collection)).close()
    run = [sys.executable, "-m", "tools", "progress", "into-anki", str(source), str(collection)]
    first = subprocess.run(run, cwd=ROOT, capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    assert f"{len(guids)} course notes added; 4 cards given the site's schedule" in first.stdout
    assert "Deck options > Advanced > FSRS" in first.stdout  # FSRS is off in a new collection
    again = subprocess.run(run, cwd=ROOT, capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    assert "nothing moved: Anki already has every review" in again.stdout
    assert len(list((collection.parent / "backups").glob("*.colpkg"))) == 2


def test_the_commands_that_need_ankis_library_install_it():
    from mkdocs_course import bootstrap

    assert bootstrap.extras_for(["progress", "from-anki", "x.apkg"]) == ("anki",)
    assert bootstrap.extras_for(["progress", "into-anki", "x.json", "c.anki2"]) == ("anki",)
    assert bootstrap.extras_for(["progress", "to-anki", "x.json"]) == ()
    assert any(req.startswith("anki") for req in bootstrap.requirements(["anki"]))
