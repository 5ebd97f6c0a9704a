"""What the deck's Urdu font costs: deck size, and Urdu card render time (prints, asserts nothing).

    .venv/bin/python tests/perf/bench_deck_fonts.py

Size: the real course's deck built twice at one timestamp, with its media and with none (what
the deck was before it carried a font); the growth is compared with the font files' own size
(the files named in tools/anki/deck.py, DECK_MEDIA). Bar: growth at most that size.

Render: the deck is imported into a fresh collection with the real Anki library and every Urdu
card side (``card.question()`` / ``card.answer()``) is shown the way Anki shows a new card, in
Debian Chromium with no Urdu font on the machine (tests/anki_render.py). Once the font has loaded,
each side goes into the card element for the first time; the time runs from the swap to the
forced layout (text shaped) and to the next painted frame. Bar: 100 ms to the painted frame.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from anki.collection import Collection  # noqa: E402
from anki_render import (  # noqa: E402
    CARD_PAGE,
    MEDIA_ORIGIN,
    URDU_FAMILY,
    card_page,
    launch_without_urdu,
    serve_media,
)
from mkdocs_course.anki import deck  # noqa: E402
from mkdocs_course.course.parser import parse_course  # noqa: E402
from mkdocs_course.plugin.syntax import MKDOCS  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402
from test_deck import import_apkg  # noqa: E402

TIMESTAMP = 1_800_000_000
SIZE_BAR_NOTE = "bar: growth <= the font files' own size"
RENDER_BAR_MS = 100.0

# Swap one card side into #qa, force layout, then wait for the frame after the next paint.
RENDER_SIDE = """async (html) => {
  const qa = document.getElementById('qa');
  const start = performance.now();
  qa.innerHTML = html;
  qa.getBoundingClientRect();
  const laidOut = performance.now();
  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  return [laidOut - start, performance.now() - start];
}"""

LOAD_FONT = """async (family) => {
  const start = performance.now();
  await Promise.all([document.fonts.load(`20px "${family}"`, 'اردو'),
                     document.fonts.load(`bold 20px "${family}"`, 'اردو')]);
  await document.fonts.ready;
  return [performance.now() - start, document.fonts.check(`20px "${family}"`, 'اردو')];
}"""


def sizes(course, folder: Path) -> Path:
    with_fonts = folder / "with-fonts.apkg"
    deck.write_deck(
        course, with_fonts, site_url="https://example.org/", timestamp=TIMESTAMP, root=ROOT
    )
    bare = folder / "without-fonts.apkg"
    with mock.patch.object(deck, "media_entries", return_value={"media": b"{}"}):
        deck.write_deck(
            course, bare, site_url="https://example.org/", timestamp=TIMESTAMP, root=ROOT
        )
    fonts = sum((deck.FONTS / source).stat().st_size for source in deck.DECK_MEDIA.values())
    grown = with_fonts.stat().st_size - bare.stat().st_size
    print(f"deck without fonts: {bare.stat().st_size:>9,} bytes")
    print(f"deck with fonts:    {with_fonts.stat().st_size:>9,} bytes")
    print(f"growth:             {grown:>9,} bytes")
    print(f"font files' size:   {fonts:>9,} bytes ({len(deck.DECK_MEDIA)} files, OFL included)")
    verdict = "within" if grown <= fonts else "OVER"
    print(f"{verdict} the {SIZE_BAR_NOTE} (margin {fonts - grown:,} bytes)")
    with zipfile.ZipFile(with_fonts) as archive:
        index = json.loads(archive.read("media"))
        for number, name in sorted(index.items()):
            info = archive.getinfo(number)
            print(f"  {name:<32} {info.file_size:>9,} bytes, {info.compress_size:>9,} packed")
    return with_fonts


def urdu_sides(col) -> list[str]:
    sides = []
    for card_id in col.find_cards("tag:lang::ur"):
        card = col.get_card(card_id)
        sides += [card.question(), card.answer()]
    return sides


def render_times(col, sides: list[str], folder: Path) -> None:
    with sync_playwright() as playwright:
        browser = launch_without_urdu(playwright, folder)
        try:
            context = browser.new_context(viewport={"width": 800, "height": 900})
            serve_media(context, Path(col.media.dir()), {CARD_PAGE: card_page("")})
            page = context.new_page()
            started = time.perf_counter()
            page.goto(MEDIA_ORIGIN + CARD_PAGE, wait_until="load")
            page.evaluate(RENDER_SIDE, sides[0])  # the CSS with its @font-face is now in place
            font_ms, loaded = page.evaluate(LOAD_FONT, URDU_FAMILY)
            cold_ms = (time.perf_counter() - started) * 1e3
            if not loaded:
                raise SystemExit("the Urdu font did not load: no render figures")
            print(f"first card page, font load included: {cold_ms:.0f} ms (font {font_ms:.0f} ms)")
            layout, painted = [], []
            for side in sides[1:]:
                layout_ms, paint_ms = page.evaluate(RENDER_SIDE, side)
                layout.append(layout_ms)
                painted.append(paint_ms)
            context.close()
        finally:
            browser.close()
    print(f"Urdu card sides rendered after the font loaded: {len(painted)}")
    print(
        f"  to layout: median {statistics.median(layout):.1f} ms, max {max(layout):.1f} ms; "
        f"to painted frame: median {statistics.median(painted):.1f} ms, "
        f"max {max(painted):.1f} ms"
    )
    verdict = "within" if max(painted) <= RENDER_BAR_MS else "OVER"
    print(f"{verdict} the bar: first render <= {RENDER_BAR_MS:.0f} ms after the font has loaded")


def main() -> None:
    course = parse_course(ROOT, syntax=MKDOCS)
    if course.errors:
        raise SystemExit(f"the course has errors: {course.errors[0]}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        apkg = sizes(course, folder)
        (folder / "anki").mkdir()
        col = Collection(str(folder / "anki" / "collection.anki2"))
        try:
            import_apkg(col, apkg)
            sides = urdu_sides(col)
            if len(sides) < 2:
                raise SystemExit("the course has no Urdu cards to render")
            render_times(col, sides, folder / "fontconfig")
        finally:
            col.close()


if __name__ == "__main__":
    main()
