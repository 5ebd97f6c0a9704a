"""Print the figures of grading in lessons and of the Anki export (a benchmark, not a test).

Run after a build: ``.venv/bin/python tests/perf/bench_inline.py [--site site]``. It prints

- the bytes (gzipped) grading adds to a lesson page: the scripts a lesson loads once grading is
  on (inline.js, schedule.js, ts-fsrs) plus what grew in files every page loads (the styles in
  course.css, the quiz's answer event in course.js);
- the time from a grade to the header's new count (median over the lesson's flashcards,
  headless Chromium);
- the time the Review page's "Export for Anki" takes for 500 reviewed items, sql.js and the
  deck loaded on demand by that click (the deck is given extra notes to reach 500 items).
"""

from __future__ import annotations

import argparse
import base64
import gzip
import json
import re
import sqlite3
import statistics
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from mkdocs_course.plugin.css_minify import minified

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
LESSON = "lessons/02-part-3-measuring-and-choosing.html"  # Lesson 2's quiz and planner
FORMAT = "contributing-to-open-source-ml/review-progress"
ITEMS = 500


def gz(data: bytes) -> int:
    return len(gzip.compress(data, 9))


def added_bytes(site: Path) -> dict[str, int]:
    assets = site / "assets"
    loaded = {
        name: gz((assets / name).read_bytes())
        for name in ("review/inline.js", "review/schedule.js", "vendor/ts-fsrs/index.umd.js")
    }
    # The site serves course.css minified (tools/plugin/css_minify.py): the grading styles are
    # the source's section of them, and the bytes they add are those of the served sheet.
    source = (ROOT / "tools" / "plugin" / "static" / "course.css").read_text("utf-8")
    start = source.index("/* --- Grading on lesson pages")
    grading = source[start : source.index("/* --- ", start + 1)]
    css = (assets / "course.css").read_text("utf-8")
    assert css == minified(source, "course.css"), "the site's course.css is not this checkout's"
    without = minified(source.replace(grading, ""), "course.css")
    course = (assets / "course.js").read_text("utf-8")
    event = re.search(r"\n *// A new answer, for the grading.*\n.*\n", course).group()
    return {
        **loaded,
        "course.css (grading styles)": gz(css.encode()) - gz(without.encode()),
        "course.js (answer event)": gz(course.encode()) - gz(course.replace(event, "\n").encode()),
    }


def serve(site: Path) -> tuple[ThreadingHTTPServer, str]:
    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}/"


def grade_times(browser, url: str) -> list[float]:
    page = browser.new_page()
    page.goto(url + LESSON)
    page.locator(".course-inline-switch").click()
    times = []
    for n in range(page.locator("details.flashcard").count()):
        card = page.locator("details.flashcard").nth(n)
        card.locator("summary").click()
        card.locator(".course-inline-grades").wait_for()
        times.append(
            page.evaluate(
                """(card) => {
                  const button = card.querySelector(".course-inline-grade[data-rating='3']");
                  const before = performance.now();
                  button.click();
                  document.querySelector(".course-review-badge").getAttribute("data-due");
                  return performance.now() - before;
                }""",
                card.element_handle(),
            )
        )
    page.close()
    return times


def bigger_deck(site: Path, items: int) -> tuple[str, list[str]]:
    """anki.js with the deck's notes copied until it has ``items`` cards, and every GUID."""
    text = (site / "assets" / "review" / "anki.js").read_text("utf-8")
    deck = json.loads(text[text.index("=") + 1 : -2])
    collection = base64.b64decode(deck["collection"])
    conn = sqlite3.connect(":memory:")
    conn.deserialize(collection)
    notes = conn.execute("SELECT * FROM notes").fetchall()
    cards = {row[1]: row for row in conn.execute("SELECT * FROM cards")}
    top = max(row[0] for row in notes) + 1
    for n in range(items - len(notes)):
        note = list(notes[n % len(notes)])
        card = list(cards[note[0]])
        note[0], note[1], card[0], card[1] = top + 2 * n, f"bench-{n}", top + 2 * n + 1, top + 2 * n
        conn.execute(f"INSERT INTO notes VALUES ({','.join('?' * len(note))})", note)
        conn.execute(f"INSERT INTO cards VALUES ({','.join('?' * len(card))})", card)
    guids = [row[0] for row in conn.execute("SELECT guid FROM notes")]
    script = (
        "window.CourseReviewAnki="
        + json.dumps(
            {"collection": base64.b64encode(conn.serialize()).decode(), "media": deck["media"]}
        )
        + ";\n"
    )
    return script, guids


def export_time(browser, url: str, site: Path) -> tuple[int, int]:
    script, guids = bigger_deck(site, ITEMS)
    context = browser.new_context(accept_downloads=True)
    context.route(
        "**/assets/review/anki.js",
        lambda route: route.fulfill(body=script, content_type="text/javascript"),
    )
    page = context.new_page()
    page.goto(url + "review.html")
    page.locator("#course-review[data-state='ready']").wait_for()
    now = page.evaluate("Date.now()")
    day = 86_400_000
    stamp = lambda ms: page.evaluate("(ms) => new Date(ms).toISOString()", ms)  # noqa: E731
    log = [
        [stamp(now - k * 7 * day), grade] for k, grade in ((5, 3), (4, 3), (3, 1), (2, 3), (1, 3))
    ]
    card = {
        "due": stamp(now + 5 * day), "stability": 9.5, "difficulty": 5.2, "elapsed_days": 7,
        "scheduled_days": 5, "learning_steps": 0, "reps": 5, "lapses": 1, "state": 2,
        "last_review": log[-1][0], "log": log,
    }  # fmt: skip
    progress = {
        "format": FORMAT,
        "version": 1,
        "settings": {"newPerDay": 20},
        "cards": dict.fromkeys(guids, card),
    }
    page.evaluate("(text) => localStorage.setItem('course-review:v1', text)", json.dumps(progress))
    page.reload()
    page.locator("#course-review[data-state='ready']").wait_for()
    loaded_before = page.evaluate("Boolean(window.initSqlJs || window.CourseReviewAnki)")
    page.locator(".course-review-settings summary").click()
    button = page.get_by_role("button", name="Export for Anki (.apkg)")
    with page.expect_download():
        button.click()
    page.wait_for_function("document.querySelector('[data-ms]')")
    ms = int(button.get_attribute("data-ms"))
    context.close()
    if loaded_before:
        raise SystemExit("sql.js or the deck was loaded with the page: the export is not on demand")
    return ms, len(guids)


def main() -> None:
    from playwright.sync_api import sync_playwright

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--site", type=Path, default=ROOT / "site")
    site = ap.parse_args().site.resolve()
    sizes = added_bytes(site)
    for name, size in sizes.items():
        print(f"  {name:36} {size:6} B gzipped")
    print(
        f"inline grading adds to a lesson page: {sum(sizes.values()) / 1024:.2f} KB gzipped "
        "(bar: 20 KB)"
    )
    server, url = serve(site)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=CHROMIUM, headless=True, args=["--no-sandbox"]
            )
            times = grade_times(browser, url)
            print(
                f"grade to header count: median {statistics.median(times):.1f} ms, "
                f"max {max(times):.1f} ms over {len(times)} grades (bar: 50 ms)"
            )
            ms, items = export_time(browser, url, site)
            print(
                f"export for Anki, {items} reviewed items, sql.js loaded by the click: {ms} ms "
                "(bar: 3000 ms)"
            )
            browser.close()
    finally:
        server.shutdown()


if __name__ == "__main__":
    main()
