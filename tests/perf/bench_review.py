"""The review page's weight and the cost of its due queue: prints figures, asserts nothing.

    .venv/bin/python tests/perf/bench_review.py [items]

1. Bytes the review page adds to a site page, raw and gzipped (level 9): the vendored ts-fsrs,
   the review scripts, and the two data files generated from today's course
   (``tools.plugin.review.site_files``). Budget: 60 KB gzipped for the JS and data.
2. Building the due queue in headless Chromium for a synthetic course of ``items`` items
   (default 5,000), half of them already reviewed: the first call in a fresh page (reads and
   parses the stored progress, builds the item list) and repeated calls. Budget: 50 ms.
"""

from __future__ import annotations

import gzip
import json
import random
import statistics
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from mkdocs_course.course import notes  # noqa: E402
from mkdocs_course.course.parser import parse_course  # noqa: E402
from mkdocs_course.plugin import review  # noqa: E402  (needs the repository root on the path)
from mkdocs_course.plugin.assets import STATIC  # noqa: E402
from mkdocs_course.plugin.syntax import MKDOCS  # noqa: E402

ASSETS = STATIC  # the plugin's files, served as assets/
SCRIPTS = ("vendor/ts-fsrs/index.umd.js", "review/store.js", "review/page.js")
ORIGIN = "http://review-bench.invalid/"


def _gzipped(data: bytes) -> int:
    return len(gzip.compress(data, compresslevel=9, mtime=0))


def weights() -> None:
    files = {name: (ASSETS / name).read_bytes() for name in SCRIPTS}
    generated = review.site_files(
        notes.note_items(parse_course(ROOT, syntax=MKDOCS)), "review.html"
    )
    files |= {name.removeprefix("assets/"): text.encode() for name, text in generated.items()}
    css = (ASSETS / "review" / "review.css").read_bytes()
    print("review page, added JS and data (raw / gzipped bytes):")
    for name, data in files.items():
        print(f"  {name:<28} {len(data):>7} / {_gzipped(data):>6}")
    raw = sum(len(data) for data in files.values())
    packed = sum(_gzipped(data) for data in files.values())
    print(f"  {'total':<28} {raw:>7} / {packed:>6}  (budget 60 KB = 61440 gzipped)")
    print(f"  {'(and review.css)':<28} {len(css):>7} / {_gzipped(css):>6}")


def _synthetic(count: int, now: datetime) -> tuple[dict, dict]:
    rng = random.Random(13)
    lessons = [{"path": f"lessons/{n:02d}.md", "title": f"Lesson {n}"} for n in range(20)]
    items = [[f"g{n:06d}", n % 20, "quiz" if n % 3 == 0 else "flashcard"] for n in range(count)]
    cards = {}
    for guid, _, _ in items[: count // 2]:
        due = now + timedelta(days=rng.uniform(-30, 30))
        first = due - timedelta(days=rng.uniform(1, 200))
        cards[guid] = {
            "due": due.isoformat().replace("+00:00", "Z"),
            "stability": rng.uniform(0.5, 100),
            "difficulty": rng.uniform(1, 10),
            "elapsed_days": 0,
            "scheduled_days": rng.randint(1, 60),
            "learning_steps": 0,
            "reps": 3,
            "lapses": 0,
            "state": 2,
            "last_review": first.isoformat().replace("+00:00", "Z"),
            "log": [[first.isoformat().replace("+00:00", "Z"), 3]],
        }
    index = {"page": "review.html", "lessons": lessons, "items": items}
    state = {
        "format": "contributing-to-open-source-ml/review-progress",
        "version": 1,
        "settings": {"newPerDay": 20},
        "cards": cards,
    }
    return index, state


def queue_times(count: int) -> None:
    from playwright.sync_api import sync_playwright

    sys.path.insert(0, str(ROOT / "tests"))
    from conftest import CHROMIUM_ARGS, chromium_path

    now = datetime(2026, 12, 1, 9, tzinfo=UTC)
    index, state = _synthetic(count, now)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS
        )
        page = browser.new_page()
        page.route(
            ORIGIN + "**", lambda route: route.fulfill(body="<!doctype html><title>b</title>")
        )
        page.goto(ORIGIN)
        page.evaluate(
            "([key, value]) => localStorage.setItem(key, value)",
            ["course-review:v1", json.dumps(state)],
        )
        page.evaluate("index => { window.CourseReviewIndex = index; }", index)
        page.add_script_tag(path=str(ASSETS / "review" / "store.js"))
        measured = page.evaluate(
            """(now) => {
              const R = window.CourseReview, index = window.CourseReviewIndex;
              let t = performance.now();
              const first = R.queue(index, R.load(), now, null);
              const cold = performance.now() - t;
              const warm = [];
              for (let i = 0; i < 20; i += 1) {
                t = performance.now();
                R.queue(index, R.load(), now, null);
                warm.push(performance.now() - t);
              }
              const state = R.load();
              const queueOnly = [];
              for (let i = 0; i < 20; i += 1) {
                t = performance.now();
                R.queue(index, state, now, {lesson: 3, kind: "quiz"});
                queueOnly.push(performance.now() - t);
              }
              return {cold, warm, queueOnly, due: first.due, fresh: first.fresh};
            }""",
            now.timestamp() * 1000,
        )
        browser.close()
    print(f"due queue for {count} items ({len(state['cards'])} reviewed), Chromium:")
    print(f"  first call, with reading stored progress: {measured['cold']:.1f} ms (budget 50 ms)")
    print(
        f"  later calls, with reading stored progress: median "
        f"{statistics.median(measured['warm']):.1f} ms, max {max(measured['warm']):.1f} ms"
    )
    print(
        f"  queue only, filtered by lesson and kind: median "
        f"{statistics.median(measured['queueOnly']):.2f} ms"
    )
    print(f"  queue: {measured['due']} due, {measured['fresh']} new")


if __name__ == "__main__":
    weights()
    queue_times(int(sys.argv[1]) if len(sys.argv) > 1 else 5000)
