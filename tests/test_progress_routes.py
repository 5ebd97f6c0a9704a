"""Every route of progress between the site and Anki, against Anki's own library: each direction
in each collection state (fresh; holding the course deck, new; holding it, part-studied) and
each format (a package for File > Import, the learner's collection written by into-anki; back:
Anki's current and legacy formats, .apkg and .colpkg).

``-s`` prints the table the issue asks for: notes added, cards scheduled, review-log rows, and
what differs from the source.
"""

from __future__ import annotations

import time
import zipfile
from pathlib import Path

import pytest
from anki_cards import card_id

pytestmark = pytest.mark.anki

pytest.importorskip("genanki", reason="the course engine's dependencies are not installed")
anki_collection = pytest.importorskip("anki.collection", reason="the anki package is not installed")

from mkdocs_course.anki import progress  # noqa: E402
from mkdocs_course.anki.progress_apkg import to_apkg  # noqa: E402
from mkdocs_course.anki.progress_merge import into_anki  # noqa: E402
from mkdocs_course.anki.progress_read import from_anki  # noqa: E402

Collection = anki_collection.Collection
DAY = progress.DAY_MS
MINUTE = 60_000
STATES = ("fresh", "deck, new", "deck, part-studied")


def site_card(now: int, state: int, steps: int, due: int, log: list, **more) -> dict:
    """A card as ts-fsrs leaves it: due ``due`` ms after its last review ``log[-1]``."""
    entries = [
        [progress._iso(now - ago), grade, *([took] if took else [])] for ago, grade, took in log
    ]
    last = now - log[-1][0]
    return {
        "due": progress._iso(last + due),
        "stability": more.get("stability", 3.1),
        "difficulty": more.get("difficulty", 5.25),
        "elapsed_days": more.get("elapsed", 0),
        "scheduled_days": due // DAY if state == 2 else 0,
        "learning_steps": steps,
        "reps": len(log),
        "lapses": more.get("lapses", 0),
        "state": state,
        "last_review": entries[-1][0],
        "log": entries,
    }


def site_cards(guids: list[str], now: int) -> dict[str, dict]:
    """Review, learning after Again (step 0, 1m), learning after Good (step 1, 10m),
    relearning (10m), a review due in the past, and one item the course does not have."""
    return {
        guids[0]: site_card(
            now, 2, 0, 5 * DAY, [(9 * DAY + 7, 3, 4100), (3 * DAY + 11, 3, 2300)], elapsed=6
        ),
        guids[1]: site_card(now, 1, 0, MINUTE, [(2 * MINUTE + 13, 1, 8000)], stability=0.2),
        guids[2]: site_card(now, 1, 1, 10 * MINUTE, [(5 * MINUTE + 17, 3, 3000)]),
        guids[3]: site_card(
            now,
            3,
            0,
            10 * MINUTE,
            [(20 * DAY + 19, 3, 1000), (15 * DAY + 23, 3, 900), (4 * MINUTE + 29, 1, 7000)],
            lapses=1,
        ),
        guids[4]: site_card(now, 2, 0, 2 * DAY, [(5 * DAY + 31, 3, 0), (4 * DAY + 37, 4, 1500)]),
        "not-in-this-course": site_card(now, 2, 0, DAY, [(2 * DAY, 3, 0)]),
    }


def import_package(col, path: Path, scheduling: bool):
    options = anki_collection.ImportAnkiPackageOptions(
        with_scheduling=scheduling, merge_notetypes=True
    )
    request = anki_collection.ImportAnkiPackageRequest(package_path=str(path), options=options)
    return col.import_anki_package(request).log


def collection_in(state: str, folder: Path, guids: list[str], apkg: bytes) -> Path:
    """A collection file in ``state``; part-studied: the first and the sixth card reviewed in
    Anki (the first an hour ago, earlier than the site's last review; the sixth only there)."""
    path = folder / "collection.anki2"
    col = Collection(str(path))
    if state != "fresh":
        (folder / "deck.apkg").write_bytes(apkg)
        import_package(col, folder / "deck.apkg", scheduling=False)
    if state == "deck, part-studied":
        col.set_config("fsrs", True)
        for guid in (guids[5], guids[0]):
            card = col.get_card(card_id(col, guid))
            card.start_timer()
            col.sched.answerCard(card, 3)
    col.close()
    return path


def anki_due_ms(col, card) -> int:
    if card.queue == 1:
        return card.due * 1000
    today = progress.review_day(time.time() * 1000)
    return progress.day_start_ms(today) + (card.due - col.sched.today) * DAY


def check_fidelity(col, guid: str, site: dict) -> None:
    """The card Anki holds is the site's: type, step, due moment (to the second for a step, the
    day for a review), FSRS memory state, and its reviews with their grades and answer times."""
    card = col.get_card(card_id(col, guid))
    due = progress._ms(site["due"])
    assert card.type == site["state"], guid
    if site["state"] in (1, 3):
        assert card.queue == 1 and card.due == due // 1000, guid
        steps = progress.LEARNING_STEPS if site["state"] == 1 else progress.RELEARNING_STEPS
        assert card.left == steps - site["learning_steps"], guid
    else:
        assert progress.review_day(anki_due_ms(col, card)) == progress.review_day(due), guid
    assert card.memory_state.stability == pytest.approx(site["stability"], rel=1e-5)
    assert card.memory_state.difficulty == pytest.approx(site["difficulty"], rel=1e-5)
    assert card.last_review_time == progress.last_review_ms(site) // 1000
    rows = col.db.all("SELECT id, ease, time FROM revlog WHERE cid = ? ORDER BY id", card.id)
    expected = [[progress._ms(t), grade, (took or [0])[0]] for t, grade, *took in site["log"]]
    assert [list(row) for row in rows][-len(expected) :] == expected, guid


TABLE: list[str] = []


def row(direction: str, state: str, route: str, notes_added, scheduled, revlog, differs) -> None:
    TABLE.append(
        f"| {direction} | {state} | {route} | {notes_added} | {scheduled} | {revlog} | {differs} |"
    )


@pytest.fixture(scope="module", autouse=True)
def print_table():
    yield
    print(
        "\n| direction | collection | format | notes added | cards scheduled | revlog | "
        "differs |\n|---|---|---|---|---|---|---|"
    )
    print("\n".join(TABLE))


@pytest.mark.parametrize("state", STATES)
def test_a_package_brings_the_schedule_only_into_a_collection_without_the_deck(
    course_deck, tmp_path, state
):
    guids, apkg = course_deck
    now = int(time.time() * 1000)
    cards = site_cards(guids, now)
    package, scheduled = to_apkg(apkg, cards, now)
    assert scheduled == 5  # the unknown item is left out
    (tmp_path / "progress.apkg").write_bytes(package)
    path = collection_in(state, tmp_path, guids, apkg)
    col = Collection(str(path))
    before = col.db.scalar("SELECT count() FROM revlog")
    log = import_package(col, tmp_path / "progress.apkg", scheduling=True)
    revlog = col.db.scalar("SELECT count() FROM revlog") - before
    if state == "fresh":
        assert len(log.new) == len(guids)
        assert revlog == sum(len(cards[g]["log"]) for g in guids[:5])
        for guid in guids[:5]:
            check_fidelity(col, guid, cards[guid])
        moved = 5
    else:  # Anki's importer leaves the cards it has as they are: the reason for into-anki
        assert len(log.new) == 0 and len(log.duplicate) == len(guids)
        assert revlog == 0
        assert col.get_card(card_id(col, guids[2])).type == 0
        moved = 0
    col.close()
    row(
        "site → Anki",
        state,
        ".apkg (CLI to-anki)",
        len(log.new),
        moved,
        revlog,
        "—" if moved else "nothing moves (importer keeps existing cards)",
    )


@pytest.mark.parametrize("state", STATES)
def test_into_anki_merges_the_schedule_in_every_collection_state(course_deck, tmp_path, state):
    guids, apkg = course_deck
    now = int(time.time() * 1000)
    cards = site_cards(guids, now)
    path = collection_in(state, tmp_path, guids, apkg)
    col = Collection(str(path))
    before = col.db.scalar("SELECT count() FROM revlog")
    studied = col.db.all("SELECT id, ease FROM revlog WHERE cid = ?", card_id(col, guids[5]))
    anki_first = col.get_card(card_id(col, guids[0]))
    col.close()

    counts = into_anki(path, cards, apkg, set(guids), now)
    assert Path(counts["backup"]).is_file()
    assert counts["notes_added"] == (len(guids) if state == "fresh" else 0)
    assert counts["unknown"] == 1
    col = Collection(str(path))
    revlog = col.db.scalar("SELECT count() FROM revlog") - before
    site_reviews = sum(len(cards[g]["log"]) for g in guids[:5])
    assert counts["reviews_added"] == revlog == site_reviews  # the union: none dropped
    if state == "deck, part-studied":
        # The first card was reviewed in Anki just now, after the site's last review three days
        # ago: Anki's schedule is kept; its log gains the site's reviews.
        assert counts == counts | {"scheduled": 4, "kept": 1}
        kept = col.get_card(card_id(col, guids[0]))
        assert (kept.type, kept.due, kept.queue) == (
            anki_first.type,
            anki_first.due,
            anki_first.queue,
        )
        newest = col.db.scalar("SELECT max(id) FROM revlog WHERE cid = ?", kept.id)
        assert newest > progress.last_review_ms(cards[guids[0]])  # Anki's review stays last
        assert (
            col.db.all("SELECT id, ease FROM revlog WHERE cid = ?", card_id(col, guids[5]))
            == studied
        )  # a card the site never saw is untouched
        checked = guids[1:5]
    else:
        assert counts == counts | {"scheduled": 5, "kept": 0}
        checked = guids[:5]
    for guid in checked:
        check_fidelity(col, guid, cards[guid])
    assert col.db.scalar("SELECT count() FROM notes") == len(guids)
    col.close()
    again = into_anki(path, cards, apkg, set(guids), now)  # a second run adds nothing
    assert (again["notes_added"], again["scheduled"], again["reviews_added"]) == (0, 0, 0)
    assert again["backup"] != counts["backup"]
    row(
        "site → Anki",
        state,
        "collection (CLI into-anki)",
        counts["notes_added"],
        counts["scheduled"],
        revlog,
        "Anki's newer card kept (1)" if counts["kept"] else "—",
    )


FORMATS = [(".apkg", False), (".apkg", True), (".colpkg", False), (".colpkg", True)]


def export(col, folder: Path, suffix: str, legacy: bool) -> Path:
    path = folder / f"export{'-legacy' if legacy else ''}{suffix}"
    if suffix == ".colpkg":
        col.export_collection_package(str(path), include_media=False, legacy=legacy)
    else:
        options = anki_collection.ExportAnkiPackageOptions(
            with_scheduling=True, with_deck_configs=True, with_media=False, legacy=legacy
        )
        col.export_anki_package(out_path=str(path), options=options, limit=None)
    return path


@pytest.mark.parametrize(("suffix", "legacy"), FORMATS)
@pytest.mark.parametrize("state", ["fresh", "deck, part-studied"])
def test_anki_to_site_round_trips_exactly(course_deck, tmp_path, suffix, legacy, state):
    """The site's progress, written into Anki and exported: every card comes back as it was
    (due to the millisecond, step, memory state, log with answer times); a card reviewed in Anki
    after comes back with that review."""
    guids, apkg = course_deck
    now = int(time.time() * 1000)
    cards = {g: c for g, c in site_cards(guids, now).items() if g in guids}
    path = collection_in(state, tmp_path, guids, apkg)
    into_anki(path, cards, apkg, set(guids), now)
    col = Collection(str(path))
    exported = export(col, tmp_path, suffix, legacy)
    col.close()
    names = zipfile.ZipFile(exported).namelist()
    assert ("collection.anki21b" in names) is not legacy

    back, counts = from_anki(exported, set(guids), int(time.time() * 1000))
    studied = state == "deck, part-studied"
    assert counts["known"] == 5 + studied and counts["damaged"] == 0
    same = guids[1:5] if studied else guids[:5]
    for guid in same:
        assert back[guid] == cards[guid] | {"elapsed_days": back[guid]["elapsed_days"]}, guid
    differs = "elapsed_days only (Anki keeps no such column; recomputed from the log)"
    if studied:  # Anki's newer review of the first card comes back with the site's before it
        assert [g for _, g, *_ in back[guids[0]]["log"]] == [3, 3, 3]
        assert [g for _, g, *_ in back[guids[5]]["log"]] == [3]
        differs += "; cards reviewed in Anki come back with Anki's schedule"
    kind = f"{suffix} {'legacy' if legacy else 'current (zstd)'}"
    row(
        "Anki → site",
        state,
        kind,
        "—",
        counts["known"],
        sum(len(c["log"]) for c in back.values()),
        differs,
    )


def test_a_relearning_cards_interval_comes_back_to_anki(course_deck, tmp_path):
    """Anki holds the interval a relearning card goes back to in ``ivl``; through the site's
    file (``scheduled_days``) it comes back to Anki as it was, not as one day."""
    guids, apkg = course_deck
    relearning = guids[3]
    now = int(time.time() * 1000)
    path = collection_in("deck, new", tmp_path, guids, apkg)
    into_anki(path, {relearning: site_cards(guids, now)[relearning]}, apkg, set(guids), now)
    col = Collection(str(path))
    card = col.get_card(card_id(col, relearning))
    card.ivl = 7
    col.update_card(card)
    exported = export(col, tmp_path, ".colpkg", legacy=True)
    col.close()
    back, _ = from_anki(exported, set(guids), int(time.time() * 1000))
    (tmp_path / "again").mkdir()
    path = collection_in("deck, new", tmp_path / "again", guids, apkg)
    into_anki(path, back, apkg, set(guids), int(time.time() * 1000))
    col = Collection(str(path))
    card = col.get_card(card_id(col, relearning))
    col.close()
    assert (card.type, card.ivl) == (3, 7)
