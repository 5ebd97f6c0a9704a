"""The Review page's progress files in headless Chromium: the Anki package it makes, imported
with Anki's library into a fresh collection and into one that already holds the deck; an import
that asks first and says what changes; the ring of backups and its one-click restore.
"""

from __future__ import annotations

import json
import zipfile
from datetime import timedelta

import pytest
from anki_cards import card_id
from test_review_browser import (
    BACKUP_KEY,
    T0,
    expect,
    grade_shown,
    open_review,
    open_settings,
    progress_file,
    put_stored,
    raw,
    review_card,
    review_index,
    stored,
)

pytestmark = pytest.mark.browser
DAY = 86_400_000


def iso(at) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def download_apkg(page, tmp_path):
    open_settings(page)
    with page.expect_download() as download:
        page.get_by_role("button", name="Export for Anki (.apkg)").click()
    path = tmp_path / download.value.suggested_filename
    download.value.save_as(path)
    return path


@pytest.mark.anki
def test_the_browser_package_carries_steps_memory_answer_times_and_the_font(open_site, tmp_path):
    """Into a fresh collection every card is the page's; into one that holds the deck Anki's
    importer moves nothing, and the page said so and named the command that does."""
    anki_collection = pytest.importorskip("anki.collection")
    from mkdocs_course.anki import deck, progress

    watched = open_site()
    page = watched.goto("review.html")  # the real clock: Anki's importer counts from today
    page.locator("#course-review[data-state='ready']").wait_for()
    graded = [grade_shown(page, key) for key in ("1", "3", "4")]  # step 0, step 1, review
    site = stored(page)["cards"]
    path = download_apkg(page, tmp_path)
    notice = page.locator(".course-review-notice")
    expect()(notice).to_contain_text("Exported 3 reviewed items")
    expect()(notice).to_contain_text("only into an Anki that does not have the course's deck yet")
    expect()(notice).to_contain_text("python3 -m tools progress into-anki")
    expect()(notice).to_contain_text("turn on FSRS")

    with zipfile.ZipFile(path) as archive:
        media = {
            name: archive.read(name) for name in archive.namelist() if name != "collection.anki2"
        }
    assert media == deck.media_entries()  # the same font files and index as the command's

    (tmp_path / "fresh").mkdir()
    col = anki_collection.Collection(str(tmp_path / "fresh" / "collection.anki2"))
    options = anki_collection.ImportAnkiPackageOptions(with_scheduling=True, merge_notetypes=True)
    request = anki_collection.ImportAnkiPackageRequest(package_path=str(path), options=options)
    col.import_anki_package(request)
    assert sorted(p.name for p in (tmp_path / "fresh" / "collection.media").iterdir()) == sorted(
        json.loads(media["media"]).values()
    )
    for guid in graded:
        card, want = col.get_card(card_id(col, guid)), site[guid]
        assert card.type == want["state"], guid
        if want["state"] == 1:
            assert card.queue == 1 and card.due == progress._ms(want["due"]) // 1000
            assert card.left == progress.LEARNING_STEPS - want["learning_steps"]
        assert card.memory_state.stability == pytest.approx(want["stability"], rel=1e-5)
        assert card.last_review_time == progress.last_review_ms(want) // 1000
        times = col.db.list("SELECT time FROM revlog WHERE cid = ?", card.id)
        assert times == [entry[2] for entry in want["log"]]
    assert [site[g]["learning_steps"] for g in graded[:2]] == [0, 1]
    col.close()

    (tmp_path / "has").mkdir()
    has = anki_collection.Collection(str(tmp_path / "has" / "collection.anki2"))
    deck_only = anki_collection.ImportAnkiPackageOptions(merge_notetypes=True)  # the deck alone
    has.import_anki_package(
        anki_collection.ImportAnkiPackageRequest(package_path=str(path), options=deck_only)
    )
    log = has.import_anki_package(request).log
    assert len(log.new) == 0 and has.db.scalar("SELECT count() FROM revlog") == 0
    assert has.get_card(card_id(has, graded[2])).type == 0  # nothing moved, as the page said
    has.close()


def test_an_import_asks_says_what_changes_and_restore_undoes_it(open_site):
    _, page = open_review(open_site)
    older, newer = grade_shown(page, "3"), grade_shown(page, "1")
    before = stored(page)["cards"]
    added = next(row[0] for row in review_index(page)["items"] if row[0] not in before)
    earlier, later = iso(T0 - timedelta(days=1)), iso(T0 + timedelta(minutes=1))
    payload = progress_file(
        **{
            older: review_card(last=earlier),
            newer: review_card(due=iso(T0 + timedelta(days=3)), last=later),
            added: review_card(),
        }
    )
    questions = []
    open_settings(page)

    def answer(accept: bool):
        def handle(dialog):
            questions.append(dialog.message)
            dialog.accept() if accept else dialog.dismiss()

        page.once("dialog", handle)

    answer(False)
    files = page.locator(".course-review-file")
    files.set_input_files({"name": "p.json", "mimeType": "application/json", "buffer": payload})
    expect()(page.locator(".course-review-notice")).to_have_text(
        "Import cancelled; your progress was not changed."
    )
    assert stored(page)["cards"] == before
    assert "1 item added, 1 updated (the file's review is newer), 1 kept" in questions[0]

    answer(True)
    files.set_input_files({"name": "p.json", "mimeType": "application/json", "buffer": payload})
    expect()(page.locator(".course-review-notice")).to_contain_text(
        "Imported progress for 3 items. 1 item added, 1 updated"
    )
    after = stored(page)["cards"]
    assert after[older] == before[older]  # the page's review is newer: kept
    assert after[newer]["last_review"] == later and added in after

    restore = page.locator(".course-review-restore")
    expect()(restore).to_contain_text("Restore the progress kept before an import")
    restore.click()
    expect()(page.locator(".course-review-notice")).to_contain_text("Restored the progress kept")
    assert stored(page)["cards"] == before
    restore.click()  # the restore is undone the same way
    assert stored(page)["cards"] == after


def test_damaged_reads_in_a_row_never_overwrite_an_earlier_backup(open_site):
    _, page = open_review(open_site)
    guids = [row[0] for row in review_index(page)["items"]]
    texts = []
    for n in range(7):
        good = {guid: review_card() for guid in guids[n : n + 4]}  # four reviews each time
        texts.append(progress_file(**good, **{guids[40]: review_card(state=7)}).decode())
        put_stored(page, texts[-1])
        grade_shown(page, "3")  # a save over the damaged text keeps it first
        ring = json.loads(raw(page, BACKUP_KEY))
        assert [b["text"] for b in ring] == texts[-5:], f"after damaged read {n + 1}"
        assert {b["why"] for b in ring} == {"damaged"}
    page.reload()
    page.locator("#course-review[data-state='ready']").wait_for()
    open_settings(page)
    page.locator(".course-review-restore").click()
    assert raw(page) == texts[-1]  # the newest damaged text, as it was


def test_export_ids_stay_unique_for_many_reviews_in_one_millisecond(open_site):
    """The case that froze the tab: 40,000 reviews at one moment. The time it takes is printed
    by tests/perf/bench_progress.py; here, what it gives."""
    _, page = open_review(open_site)
    ids = page.evaluate(
        """() => window.CourseReview.need(["CourseAnkiExport"]).then(() => {
          const at = "2026-11-30T09:00:00.000Z";
          const log = Array.from({length: 40000}, () => [at, 3]);
          const card = {due: "2026-12-03T09:00:00.000Z", stability: 3, difficulty: 5,
            elapsed_days: 0, scheduled_days: 3, learning_steps: 0, reps: 40000, lapses: 0,
            state: 2, last_review: at, log: log};
          const now = Date.parse(at) + 1000;
          const rows = window.CourseAnkiExport.scheduleRows({g: card}, now).revlog;
          return [rows.length, rows[0][0], rows[rows.length - 1][0],
                  rows.every((r, i) => i === 0 || r[0] === rows[i - 1][0] + 1)];
        })"""
    )
    assert ids[0] == 40000 and ids[3] is True and ids[2] - ids[1] == 39999
