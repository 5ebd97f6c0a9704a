"""Grading on lesson pages (tools/plugin/static/review/inline.js) and the Review page's Anki
export (tools/plugin/static/review/export.js), in headless Chromium; the export is imported
with Anki's library.

Every page opened through ``open_site`` is checked for console errors and for requests that leave
the local server when its test ends (conftest.py).
"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from conftest import activate, axe_violations, reviews_seen

pytestmark = pytest.mark.browser

LESSON = "lessons/02-part-3-measuring-and-choosing.html"  # Lesson 2's quiz and planner
REVIEW = "review.html"
STORAGE_KEY = "course-review:v1"
FORMAT = "contributing-to-open-source-ml/review-progress"
DAY = 86_400_000


def expect():
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect


def iso(ms: float) -> str:
    return datetime.fromtimestamp(int(ms) / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def due_card(due_ms: float, now_ms: float) -> dict:
    """A card as ts-fsrs leaves it after two Good reviews days apart."""
    log = [[iso(now_ms - 9 * DAY), 3], [iso(now_ms - 6 * DAY), 3]]
    return {
        "due": iso(due_ms),
        "stability": 3.2,
        "difficulty": 5.1,
        "elapsed_days": 3,
        "scheduled_days": 3,
        "learning_steps": 0,
        "reps": 2,
        "lapses": 0,
        "state": 2,
        "last_review": log[-1][0],
        "log": log,
    }


def progress(cards: dict) -> str:
    return json.dumps(
        {"format": FORMAT, "version": 1, "settings": {"newPerDay": 20}, "cards": cards}
    )


def stored(page) -> dict:
    text = page.evaluate(f"localStorage.getItem('{STORAGE_KEY}')")
    return json.loads(text)["cards"] if text else {}


def grades(page, guid: str) -> list[int]:
    return [entry[1] for entry in stored(page).get(guid, {"log": []})["log"]]


def lesson(open_site, *, on: bool = True, cards: dict | None = None):
    watched = open_site()
    page = watched.goto(LESSON)
    start(page, on=on, cards=cards)
    return watched, page


def nothing_stored(page) -> bool:
    """Whether this browser holds no review progress and no choice of grading: what a fresh
    one holds after its first visit to the lesson (the planner keeps its inputs, Material its
    palette, as they would there)."""
    return page.evaluate(
        "() => Object.keys(localStorage).every((key) => !key.startsWith('course-review:'))"
    )


def start(page, *, on: bool = True, cards: dict | None = None) -> None:
    """Store ``cards`` as the progress (reloading the page) and turn grading on, on a lesson page
    that has stored nothing yet: as a visit that begins with that progress stored."""
    if cards is not None:
        page.evaluate(f"localStorage.setItem('{STORAGE_KEY}', {json.dumps(progress(cards))})")
        page.reload()
    if on:
        activate(page.locator(".course-inline-switch"))
        expect()(page.locator(".course-inline-switch")).to_have_attribute("aria-checked", "true")


def guid_of(locator) -> str:
    guid = locator.get_attribute("data-course-guid")
    assert guid
    return guid


def reveal(card) -> None:
    """Open a card as a reader does and wait for its grading bar; if the bar never comes, say
    which step did not happen (grading on, the card open, the scheduler's scripts loaded)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    activate(card.locator("summary").first)
    expect()(card).to_have_attribute("open", "")
    try:
        card.locator(".course-inline-grades").wait_for(timeout=15_000)
    except PlaywrightTimeout:
        state = card.evaluate(
            """(card) => ({
              switch: document.querySelector('.course-inline-switch')?.getAttribute('aria-checked'),
              open: card.open, guid: card.getAttribute('data-course-guid'),
              gradedOnce: card.getAttribute('data-graded-once'),
              fsrs: typeof window.FSRS, schedule: typeof window.CourseSchedule,
              scripts: Array.from(document.scripts, (s) => s.src).filter(Boolean)
                .map((src) => src.split('/').pop()),
            })"""
        )
        raise AssertionError(f"no grading bar on the opened card: {state}") from None


def badge(page) -> int:
    return int(page.locator(".course-review-badge").get_attribute("data-due"))


def test_grading_is_off_until_turned_on_and_the_choice_is_remembered(open_site):
    watched, page = lesson(open_site, on=False)
    switch = page.locator(".course-inline-switch")
    expect()(switch).to_have_attribute("aria-checked", "false")
    card = page.locator("details.flashcard").first
    activate(card.locator("summary"))
    expect()(card).to_have_attribute("open", "")
    assert page.locator(".course-inline-grades").count() == 0
    assert not page.evaluate("Boolean(window.FSRS || window.CourseSchedule)")
    assert not [r.url for r in watched.requests if "ts-fsrs" in r.url]
    activate(switch)  # the open card is offered its grades at once
    expect()(switch).to_have_attribute("aria-checked", "true")
    expect()(card.locator(".course-inline-grades")).to_be_visible()
    page.reload()
    expect()(page.locator(".course-inline-switch")).to_have_attribute("aria-checked", "true")
    activate(page.locator(".course-inline-switch"))
    page.reload()
    expect()(page.locator(".course-inline-switch")).to_have_attribute("aria-checked", "false")
    assert stored(page) == {}


def test_a_revealed_flashcard_is_graded_with_keys_and_the_header_follows_at_once(open_site):
    _, page = lesson(open_site, on=False)
    first = page.locator("details.flashcard").nth(0)
    guid = guid_of(first)
    now = page.evaluate("Date.now()")
    assert nothing_stored(page)
    start(page, cards={guid: due_card(now - DAY, now)})
    assert badge(page) == 1
    first = page.locator("details.flashcard").nth(0)
    reveal(first)
    page.keyboard.press("3")  # focus is on the card's summary: Anki's keys grade it
    expect()(first.locator(".course-inline-done")).to_contain_text("Good: due again in")
    assert badge(page) == 0
    assert grades(page, guid) == [3, 3, 3]

    second = page.locator("details.flashcard").nth(1)
    reveal(second)
    took = page.evaluate(
        """(card) => {
          const again = card.querySelector(".course-inline-grade[data-rating='1']");
          const before = performance.now();
          again.click();
          const count = document.querySelector(".course-review-badge").getAttribute("data-due");
          return [performance.now() - before, count];
        }""",
        second.element_handle(),
    )
    print(f"grade to header count: {took[0]:.1f} ms")
    assert took[0] <= 50 and took[1] == "0"  # Again: due in a minute, not now
    assert grades(page, guid_of(second)) == [1]

    review = page.context.new_page()  # the Review page reads the same store
    review.goto(page.url.replace(LESSON, REVIEW))
    review.locator("#course-review[data-state='ready']").wait_for()
    assert set(review.evaluate(f"JSON.parse(localStorage.getItem('{STORAGE_KEY}')).cards")) == {
        guid,
        guid_of(second),
    }
    expect()(review.locator(".course-review-counts")).to_contain_text(
        "0 due · 19 new"
    )  # one new item used today


@pytest.mark.parametrize("path", [LESSON, "quizzes/checkpointing-ur.html"])
def test_every_prompt_is_paired_with_its_own_item(open_site, path):
    """Each flashcard and question gets the GUID whose item links to that very element."""
    page = open_site().goto(path)
    page.locator(".course-inline-switch").wait_for()
    pairs = page.evaluate(
        """() => window.CourseReview.need(["CourseReviewContent"]).then(() =>
          Array.from(document.querySelectorAll("[data-course-guid]"), (node) =>
            [node.id, window.CourseReviewContent[node.getAttribute("data-course-guid")].url]))"""
    )
    assert len(pairs) >= 5
    for anchor, url in pairs:
        assert url.endswith(f"{path}#{anchor}"), (anchor, url)


def test_skip_grades_nothing(open_site):
    _, page = lesson(open_site)
    card = page.locator("details.flashcard").first
    reveal(card)
    card.get_by_role("button", name="Skip").click()
    expect()(card.locator(".course-inline-done")).to_have_text("Skipped: not graded.")
    assert stored(page) == {}


def test_a_quiz_answer_counts_once_and_again_comes_back_at_the_end_once(open_site):
    _, page = lesson(open_site)
    questions = page.locator("fieldset.quiz-question")
    first = questions.nth(0)
    guid = guid_of(first)
    answer = int(first.get_attribute("data-answer"))
    first.locator(".quiz-option").nth((answer + 1) % 2).click()  # wrong: Again
    expect()(first.locator(".course-inline-done")).to_contain_text("Counted as a review. Again")
    assert grades(page, guid) == [1]
    retry = page.locator(".course-inline-retry")
    expect()(retry.locator("details")).to_have_count(1)
    # This lesson's prompts stand after its Key points, so the retry comes after its last one.
    assert page.evaluate(
        """() => {
          const retry = document.querySelector(".course-inline-retry");
          const blocks = document.querySelectorAll("article .flashcards, article section.quiz");
          const last = blocks[blocks.length - 1];
          return retry.previousElementSibling === last;
        }"""
    )
    copy = retry.locator("details").first
    reveal(copy)
    page.keyboard.press("3")
    expect()(copy.locator(".course-inline-done")).to_contain_text("Good")
    assert grades(page, guid) == [1, 3]
    copy_again = retry.locator("details")
    expect()(copy_again).to_have_count(1)  # graded in the retry: not offered a third time

    # A second answer (after "Try again") is not a first answer: not counted.
    page.locator(".quiz-retry").first.click()
    first.locator(".quiz-option").nth(answer).click()
    expect()(first.locator(".course-inline-done").last).to_contain_text("not counted again")
    assert grades(page, guid) == [1, 3]

    # Right is Good, and "Don't count it" takes the review back.
    second = questions.nth(1)
    second.locator(".quiz-option").nth(int(second.get_attribute("data-answer"))).click()
    expect()(second.locator(".course-inline-done")).to_contain_text("Counted as a review. Good")
    assert grades(page, guid_of(second)) == [3]
    second.get_by_role("button", name="Don't count it").click()
    expect()(second.locator(".course-inline-done")).to_have_text("Not counted.")
    assert guid_of(second) not in stored(page)


def test_two_pages_grading_at_once_lose_nothing(open_site):
    _, first = lesson(open_site)
    second = first.context.new_page()
    second.goto(first.url)
    expect()(second.locator(".course-inline-switch")).to_have_attribute("aria-checked", "true")
    a, b = first.locator("details.flashcard").nth(0), second.locator("details.flashcard").nth(0)
    reveal(a)
    reveal(b)  # both show the same card's grades; both grade it
    a.get_by_role("button", name="Good").click()
    # The second page grades once the first page's review has reached its copy of the storage:
    # its own state, from the reveal, is still the stale one.
    reviews_seen(second, STORAGE_KEY, {guid_of(a): 1})
    b.get_by_role("button", name="Again").click()
    other = second.locator("details.flashcard").nth(2)
    reveal(other)
    other.get_by_role("button", name="Easy").click()
    reviews_seen(first, STORAGE_KEY, {guid_of(a): 2, guid_of(other): 1})
    cards = stored(first)
    assert [g for _, g, *_ in cards[guid_of(a)]["log"]] == [3, 1]
    assert [g for _, g, *_ in cards[guid_of(other)]["log"]] == [4]


def import_with_scheduling(path, folder):
    anki_collection = pytest.importorskip("anki.collection")
    col = anki_collection.Collection(str(folder / "collection.anki2"))
    options = anki_collection.ImportAnkiPackageOptions(with_scheduling=True, merge_notetypes=True)
    request = anki_collection.ImportAnkiPackageRequest(package_path=str(path), options=options)
    col.import_anki_package(request)
    return col


@pytest.mark.anki
def test_progress_goes_to_anki_with_its_schedule_and_comes_back(open_site, tmp_path):
    from mkdocs_course.anki import progress as anki_progress
    from mkdocs_course.course import notes
    from mkdocs_course.course.parser import parse_course
    from mkdocs_course.plugin.syntax import MKDOCS

    watched, page = lesson(open_site, on=False)
    cards = page.locator("details.flashcard")
    due_guid, later_guid = guid_of(cards.nth(3)), guid_of(cards.nth(4))
    now = page.evaluate("Date.now()")
    preset = {due_guid: due_card(now - DAY, now), later_guid: due_card(now + 4 * DAY, now)}
    assert nothing_stored(page)
    start(page, cards=preset)
    cards = page.locator("details.flashcard")
    for n, key in ((0, "3"), (1, "1"), (2, "4")):  # three graded inline, new to the schedule
        reveal(cards.nth(n))
        page.keyboard.press(key)
        expect()(
            page.locator("details.flashcard").nth(n).locator(".course-inline-done")
        ).to_be_visible()
    page.goto(page.url.replace(LESSON, REVIEW))
    page.locator("#course-review[data-state='ready']").wait_for()
    assert not page.evaluate("Boolean(window.initSqlJs)")  # sql.js is not loaded with the page
    site = stored(page)
    activate(page.locator(".course-review-settings summary"))
    button = page.get_by_role("button", name="Export for Anki (.apkg)")
    with page.expect_download() as download:
        button.click()
    path = tmp_path / download.value.suggested_filename
    download.value.save_as(path)
    expect()(page.locator(".course-review-notice")).to_contain_text("Exported 5 reviewed items")
    print(
        f"export for Anki, 5 items, sql.js loaded on demand: {button.get_attribute('data-ms')} ms"
    )

    col = import_with_scheduling(path, tmp_path)
    today = anki_progress.review_day(time.time() * 1000)
    for guid, card in site.items():
        cid = col.db.scalar(
            "SELECT cards.id FROM cards JOIN notes ON notes.id = cards.nid WHERE notes.guid = ?",
            guid,
        )
        imported = col.get_card(cid)
        if imported.queue == 1:
            when = imported.due * 1000
        else:
            when = anki_progress.day_start_ms(today) + (imported.due - col.sched.today) * DAY
        assert abs(when - anki_progress._ms(card["due"])) < DAY, guid
        assert col.db.scalar("SELECT count() FROM revlog WHERE cid = ?", cid) == len(card["log"])
        assert imported.memory_state.stability == pytest.approx(card["stability"], rel=1e-4)

    # A review in Anki, in Anki's current export format, back on the site.
    col.set_config("fsrs", True)
    cid = col.db.scalar(
        "SELECT cards.id FROM cards JOIN notes ON notes.id = cards.nid WHERE notes.guid = ?",
        due_guid,
    )
    card = col.get_card(cid)
    card.start_timer()
    col.sched.answerCard(card, 3)
    export = tmp_path / "anki-export.apkg"
    anki_collection = pytest.importorskip("anki.collection")
    options = anki_collection.ExportAnkiPackageOptions(
        with_scheduling=True, with_deck_configs=True, with_media=False, legacy=False
    )
    col.export_anki_package(out_path=str(export), options=options, limit=None)
    col.close()
    course = parse_course(anki_progress.Path(__file__).resolve().parents[1], syntax=MKDOCS)
    guids = {item.guid for item in notes.note_items(course)}
    from mkdocs_course.anki.progress_read import from_anki

    back, counts = from_anki(export, guids, int(time.time() * 1000))
    assert counts["known"] == 5 and counts["unknown"] == 0
    document = anki_progress.progress_document(back, int(time.time() * 1000), 20)
    page.once("dialog", lambda dialog: dialog.accept())  # this browser holds progress: it asks
    page.locator(".course-review-file").set_input_files(
        {
            "name": "from-anki.json",
            "mimeType": "application/json",
            "buffer": json.dumps(document).encode(),
        }
    )
    expect()(page.locator(".course-review-notice")).to_contain_text(
        "Imported progress for 5 items."
    )
    assert grades(page, due_guid) == [3, 3, 3]
    assert anki_progress._ms(stored(page)[due_guid]["due"]) > time.time() * 1000 + DAY
    expect()(page.locator(".course-review-counts")).to_contain_text("0 due")  # the queue moved on
    assert watched  # the first page is checked at the end like every other


def review_page(open_site):
    page = open_site().goto(REVIEW)
    page.locator("#course-review[data-state='ready']").wait_for()
    return page


@pytest.mark.parametrize(
    ("name", "payload", "reason"),
    [
        (
            "deck.apkg",
            b"PK\x03\x04" + b"\0" * 100,
            "it is an Anki package; turn it into a progress file",
        ),
        (
            "other.json",
            progress(
                {"abc": due_card(DAY * 10, DAY * 20), "def": due_card(DAY * 10, DAY * 20)}
            ).encode(),
            "none of its 2 items is in this course",
        ),
        ("huge.json", b" " * (9 * 1024 * 1024), "more than a progress file can be (8 MB)"),
    ],
)
def test_an_import_that_is_not_this_courses_progress_changes_nothing(
    shared_site, name, payload, reason
):
    """The cases share one Review page: a refused import leaves the page as it found it, which
    is what each case checks. Each grades an item first, so that there is progress to keep."""
    page = shared_site.once("review page for imports", review_page)
    page.locator(".course-review-front").focus()  # after a case, focus is on the file input
    graded = page.locator(".course-review-card").get_attribute("data-guid")
    page.keyboard.press("Space")
    page.keyboard.press("3")
    expect()(page.locator(f".course-review-card[data-guid='{graded}']")).to_have_count(0)
    before = page.evaluate(f"localStorage.getItem('{STORAGE_KEY}')")
    settings = page.locator(".course-review-settings")
    if settings.get_attribute("open") is None:
        activate(settings.locator("summary"))
    page.locator(".course-review-file").set_input_files(
        {"name": name, "mimeType": "application/octet-stream", "buffer": payload}
    )
    message = page.locator(".course-review-message")
    expect()(message).to_contain_text(f"Could not import {name}")
    expect()(message).to_contain_text(reason)
    expect()(message).to_contain_text("Your progress was not changed.")
    assert page.evaluate(f"localStorage.getItem('{STORAGE_KEY}')") == before


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_grading_controls_have_no_serious_accessibility_violations(open_site, scheme):
    page = open_site(color_scheme=scheme).goto(LESSON)
    start(page)  # grading on, and seen to be on, before a card opens
    reveal(page.locator("details.flashcard").nth(0))
    reveal(page.locator("details.flashcard").nth(1))
    page.keyboard.press("1")  # a done note, and a copy in the retry section
    page.locator(".course-inline-retry details").wait_for()
    page.mouse.move(0, 0)
    violations = axe_violations(page)
    problems = [
        f"{v['id']}: " + "; ".join(str(node["target"]) for node in v["nodes"][:5])
        for v in violations
        if v["impact"] in ("serious", "critical")
    ]
    assert not problems, "\n".join(problems)


def test_grading_stays_within_its_weight_on_a_lesson_page(built_site):
    """The bar of issue #26: at most 20 KB gzipped, everything grading loads counted."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "bench_inline", Path(__file__).parent / "perf" / "bench_inline.py"
    )
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert sum(bench.added_bytes(built_site).values()) <= 20 * 1024


def test_again_before_the_key_points_comes_back_just_before_them(open_site):
    """A lesson whose prompts stand in its reading: the retry waits before its Key points."""
    watched = open_site()
    # Before the course's scripts start, move the first group of cards into the reading.
    watched.page.add_init_script(
        """document.addEventListener("DOMContentLoaded", () => {
          const keyPoints = document.getElementById("key-points");
          keyPoints.parentNode.insertBefore(document.querySelector(".flashcards"), keyPoints);
        });"""
    )
    page = watched.goto(LESSON)
    activate(page.locator(".course-inline-switch"))
    card = page.locator("details.flashcard").first
    reveal(card)
    page.keyboard.press("1")
    page.locator(".course-inline-retry").wait_for()
    assert (
        page.evaluate("document.querySelector('.course-inline-retry').nextElementSibling.id")
        == "key-points"
    )


def test_grading_and_the_anki_export_work_opened_from_disk(browser, built_site):
    from conftest import collect_errors

    context = browser.new_context(accept_downloads=True)
    page = context.new_page()
    errors = collect_errors(page)
    try:
        page.goto((built_site / LESSON).as_uri())
        activate(page.locator(".course-inline-switch"))
        reveal(page.locator("details.flashcard").first)  # ts-fsrs loads from disk
        page.keyboard.press("3")
        assert len(stored(page)) == 1
        page.goto((built_site / REVIEW).as_uri())
        page.locator("#course-review[data-state='ready']").wait_for()
        activate(page.locator(".course-review-settings summary"))
        with page.expect_download() as download:  # sql.js and the deck load from disk
            page.get_by_role("button", name="Export for Anki (.apkg)").click()
        assert download.value.suggested_filename.endswith(".apkg")
        assert not errors, errors
    finally:
        context.close()
