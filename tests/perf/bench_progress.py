"""Progress between the site and Anki at scale, and what it adds to the Review page: prints
figures, asserts nothing.

    .venv/bin/python tests/perf/bench_progress.py [--no-browser]

1. ``to-anki`` (tools.anki.progress_apkg.to_apkg with the course deck) for 5k, 20k and 200k
   reviews that all share one millisecond: the case a search for a free revlog id per review
   made quadratic. Linear means about 10x the time for 10x the reviews.
2. The Review page's "Export for Anki" (export.js with sql.js, in headless Chromium, from the
   built site/ over file://) for 10k and 40k such reviews.
3. Bytes the Review page loads before the learner clicks anything, against main (git show):
   the review scripts raw and gzipped; sql.js and the deck load only on the export click.
"""

from __future__ import annotations

import gzip
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from mkdocs_course.anki import deck, progress  # noqa: E402
from mkdocs_course.anki.progress_apkg import to_apkg  # noqa: E402
from mkdocs_course.course import notes  # noqa: E402
from mkdocs_course.course.parser import parse_course  # noqa: E402
from mkdocs_course.plugin.assets import STATIC  # noqa: E402
from mkdocs_course.plugin.syntax import MKDOCS  # noqa: E402

NOW = 1_796_000_000_000
ON_LOAD = ("store.js", "schedule.js", "page.js", "transfer.js")


def one_moment_cards(guids: list[str], reviews: int) -> dict[str, dict]:
    moment = progress._iso(NOW - 86_400_000)
    per_card = max(1, reviews // len(guids))
    card = {
        "due": progress._iso(NOW + 86_400_000),
        "stability": 3.0,
        "difficulty": 5.0,
        "elapsed_days": 1,
        "scheduled_days": 2,
        "learning_steps": 0,
        "reps": per_card,
        "lapses": 0,
        "state": 2,
        "last_review": moment,
        "log": [[moment, 3]] * per_card,
    }
    return {guid: card for guid in guids}


def bench_to_anki() -> None:
    course = parse_course(ROOT, syntax=MKDOCS)
    items = notes.note_items(course)
    guids = [item.guid for item in items]
    apkg = deck.build_apkg(course, timestamp=1_764_000_000, root=ROOT, items=items)
    print("to-anki, reviews all in one millisecond:")
    for reviews in (5_000, 20_000, 200_000):
        cards = one_moment_cards(guids, reviews)
        total = sum(len(card["log"]) for card in cards.values())
        started = time.perf_counter()
        to_apkg(apkg, cards, NOW)
        print(f"  {total:>7} reviews: {time.perf_counter() - started:6.2f} s")


def bench_browser() -> None:
    from playwright.sync_api import sync_playwright

    page_url = (ROOT / "site" / "review.html").as_uri()
    print("Export for Anki in Chromium (sql.js, the deck), reviews all in one millisecond:")
    with sync_playwright() as play:
        browser = play.chromium.launch(
            executable_path="/usr/bin/chromium", headless=True, args=["--no-sandbox"]
        )
        page = browser.new_page()
        page.goto(page_url)
        page.locator("#course-review[data-state='ready']").wait_for()
        for reviews in (10_000, 40_000):
            ms = page.evaluate(
                """(reviews) => window.CourseReview.need(
                    ["initSqlJs", "CourseReviewAnki", "CourseAnkiExport"]).then(() => {
                  const guids = window.CourseReviewIndex.items.map((row) => row[0]);
                  const at = "2026-11-30T09:00:00.000Z";
                  const per = Math.ceil(reviews / guids.length);
                  const cards = {};
                  guids.forEach((g) => { cards[g] = {due: "2026-12-03T09:00:00.000Z",
                    stability: 3, difficulty: 5, elapsed_days: 0, scheduled_days: 3,
                    learning_steps: 0, reps: per, lapses: 0, state: 2, last_review: at,
                    log: Array.from({length: per}, () => [at, 3])}; });
                  const started = performance.now();
                  return window.CourseAnkiExport.toApkg(cards, Date.parse(at) + 1000)
                    .then(() => [per * guids.length, performance.now() - started]);
                })""",
                reviews,
            )
            print(f"  {ms[0]:>7} reviews: {ms[1] / 1000:6.2f} s")
        browser.close()


def gzipped(data: bytes) -> int:
    return len(gzip.compress(data, compresslevel=9, mtime=0))


def bench_weight() -> None:
    print("Review page scripts before any click (raw / gzipped bytes), main -> this tree:")
    added = 0
    for name in ON_LOAD:
        now = (STATIC / "review" / name).read_bytes()
        shown = subprocess.run(
            ["git", "show", f"main:docs/assets/review/{name}"], cwd=ROOT, capture_output=True
        )
        before = shown.stdout if shown.returncode == 0 else b""
        added += gzipped(now) - gzipped(before) if before else gzipped(now)
        print(
            f"  {name:<12} {len(before):>6} / {gzipped(before) if before else 0:>5} -> "
            f"{len(now):>6} / {gzipped(now):>5}"
        )
    print(f"  added, gzipped (separate files): {added} bytes (budget 20 KB = 20480)")


if __name__ == "__main__":
    bench_weight()
    bench_to_anki()
    if "--no-browser" not in sys.argv:
        bench_browser()
