"""The deck's Urdu font: packed as media, imported by the real Anki library, used by Chromium.

The deck carries the Noto Nastaliq Urdu files the site serves (tools/anki/deck.py, DECK_MEDIA) and
its CSS loads them for Urdu runs only. These tests import the deck into a fresh collection and
show its cards the way Anki does, in Chromium on a font setup with no Urdu font at all, so the
card's own font is the only way its Urdu can be set in Nastaliq.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from anki_render import (
    CARD_PAGE,
    MEASURE_URDU,
    MEDIA_ORIGIN,
    URDU_FAMILY,
    card_page,
    launch_without_urdu,
    serve_media,
)

pytestmark = pytest.mark.anki

pytest.importorskip("genanki", reason="the course engine's dependencies are not installed")
anki_collection = pytest.importorskip("anki.collection", reason="the anki package is not installed")

from conftest import skip_or_fail  # noqa: E402
from mkdocs_course.anki import deck  # noqa: E402
from mkdocs_course.course.parser import parse_course  # noqa: E402
from mkdocs_course.plugin.syntax import MKDOCS  # noqa: E402
from test_deck import SITE, T1, build, find_card, import_apkg, make_course  # noqa: E402

Collection = anki_collection.Collection

# Anki keeps the file it already has under a name, so a changed font needs a new name (see
# tools/anki/deck.py). Update a hash here only together with a new name in DECK_MEDIA and cards.css.
PINNED_MEDIA = {
    "_noto-nastaliq-urdu-400.woff2": "fecd45d69436d911",
    "_noto-nastaliq-urdu-700.woff2": "315f55145f2ce0c9",
    "_noto-nastaliq-urdu-OFL.txt": "7bf7d1817212a17c",
}


def source_bytes(name: str) -> bytes:
    return (deck.FONTS / deck.DECK_MEDIA[name]).read_bytes()


def media_files(col: Any) -> dict[str, bytes]:
    folder = Path(col.media.dir())
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir()) if path.is_file()}


def without_media(apkg: bytes) -> bytes:
    """The same package with no media: what learners imported before the deck had a font."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(apkg)) as source, zipfile.ZipFile(out, "w") as target:
        target.writestr("collection.anki2", source.read("collection.anki2"))
        target.writestr("media", "{}")
    return out.getvalue()


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory):
    root = make_course(tmp_path_factory.mktemp("course"))
    apkg = build(root, root / "out" / "deck.apkg", T1)
    col = Collection(str(tmp_path_factory.mktemp("anki") / "collection.anki2"))
    import_apkg(col, apkg)
    yield {"apkg": apkg, "col": col}
    col.close()


# --- the package and the import -----------------------------------------------------------------


def test_the_package_carries_the_sites_font_files_as_underscore_media(imported):
    with zipfile.ZipFile(imported["apkg"]) as archive:
        index = json.loads(archive.read("media"))
        packed = {name: archive.read(number) for number, name in index.items()}
    assert sorted(packed) == sorted(deck.DECK_MEDIA)
    assert all(name.startswith("_") for name in packed)  # Anki keeps unreferenced "_" files
    for name, data in packed.items():
        assert data == source_bytes(name), name
    assert b"SIL OPEN FONT LICENSE" in packed["_noto-nastaliq-urdu-OFL.txt"].upper()


def test_media_names_are_pinned_to_their_files():
    hashes = {name: hashlib.sha256(source_bytes(name)).hexdigest()[:16] for name in deck.DECK_MEDIA}
    assert hashes == PINNED_MEDIA, "a changed font file needs a new media name (tools/anki/deck.py)"


def test_the_flashcards_page_names_the_files_learners_find_in_their_media_folder():
    page = (deck.ROOT / "docs" / "flashcards.md").read_text("utf-8")
    assert "### Urdu cards on a phone" in page
    for name in deck.DECK_MEDIA:
        assert f"`{name}`" in page, name


def test_every_css_url_is_a_media_file_of_the_deck():
    css = (deck.ROOT / "deck" / "cards.css").read_text("utf-8")  # this course's templates
    urls = [part.split(")", 1)[0].strip("\"' ") for part in css.split("url(")[1:]]
    assert urls and set(urls) == {n for n in deck.DECK_MEDIA if n.endswith(".woff2")}


def test_import_puts_one_copy_of_each_font_file_in_the_media_folder(imported):
    col = imported["col"]
    expected = {name: source_bytes(name) for name in deck.DECK_MEDIA}
    assert media_files(col) == expected
    log = import_apkg(col, imported["apkg"])
    assert len(log.new) == 0 and len(log.updated) == 0
    assert media_files(col) == expected  # no second copy under another name
    check = col.media.check()
    assert list(check.unused) == [] and list(check.missing) == []  # "Check Media" keeps them


def test_a_collection_imported_before_the_font_gets_it_with_the_next_import(tmp_path, imported):
    col = Collection(str(tmp_path / "collection.anki2"))
    try:
        old = tmp_path / "old.apkg"
        old.write_bytes(without_media(imported["apkg"].read_bytes()))
        assert len(import_apkg(col, old).new) == 8 and media_files(col) == {}
        log = import_apkg(col, imported["apkg"])
        assert len(log.new) == 0
        assert sorted(media_files(col)) == sorted(deck.DECK_MEDIA)
    finally:
        col.close()


# --- in the browser -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def chromium(playwright: Any, tmp_path_factory: pytest.TempPathFactory):
    try:
        browser = launch_without_urdu(playwright, tmp_path_factory.mktemp("fontconfig"))
    except RuntimeError as error:
        skip_or_fail(str(error))
    try:
        yield browser
    finally:
        browser.close()


def show(chromium: Any, col: Any, side_html: str, script: str) -> tuple[Any, list[str]]:
    """Open one card side as Anki does and run ``script`` on it (called with the Urdu family).

    Returns what the script returned and every URL the page requested.
    """
    context = chromium.new_context(viewport={"width": 800, "height": 900})
    try:
        requested = serve_media(context, Path(col.media.dir()), {CARD_PAGE: card_page(side_html)})
        page = context.new_page()
        page.goto(MEDIA_ORIGIN + CARD_PAGE, wait_until="load")
        page.evaluate("document.fonts.ready.then(() => true)")
        return page.evaluate(script, URDU_FAMILY), requested
    finally:
        context.close()


def assert_set_in_the_decks_font(facts: dict[str, Any]) -> None:
    """Every Urdu run is set in the loaded course face, not in a fallback font."""
    assert ["400", "loaded"] in facts["faces"], facts["faces"]
    assert facts["runs"], "no Urdu element on the card"
    for run in facts["runs"]:
        assert run["stack"].strip("\"'").startswith(URDU_FAMILY), run
        assert run["check"], run
        assert run["own"] > 0 and run["fallback"] > 0, run
        assert abs(run["own"] - run["fallback"]) > 1, run  # Nastaliq, not a fallback font
        assert run["lineHeight"] >= 2.0, run


URDU_CARDS = {
    "flashcard": "tag:kind::flashcard tag:lang::ur",
    "quiz question": "tag:kind::quiz tag:lang::ur",
}


@pytest.mark.browser
@pytest.mark.parametrize("side", ["question", "answer"])
@pytest.mark.parametrize("search", URDU_CARDS.values(), ids=URDU_CARDS.keys())
def test_urdu_card_is_set_in_the_decks_font_without_an_urdu_system_font(
    chromium, imported, search, side
):
    col = imported["col"]
    card = find_card(col, search)
    facts, requested = show(chromium, col, getattr(card, side)(), MEASURE_URDU)
    assert_set_in_the_decks_font(facts)
    assert MEDIA_ORIGIN + "_noto-nastaliq-urdu-400.woff2" in requested
    assert all(url.startswith(MEDIA_ORIGIN) for url in requested), requested


@pytest.mark.browser
def test_english_card_keeps_the_system_font_and_never_loads_the_urdu_one(chromium, imported):
    col = imported["col"]
    card = find_card(col, "card-em")
    facts, requested = show(
        chromium,
        col,
        card.answer(),
        """(family) => ({
          stack: getComputedStyle(document.querySelector('#qa .answer')).fontFamily,
          faces: [...document.fonts]
            .filter((f) => f.family.replace(/["']/g, '') === family).map((f) => f.status),
        })""",
    )
    assert facts["faces"] == ["unloaded", "unloaded"]
    assert URDU_FAMILY not in facts["stack"] and "system-ui" in facts["stack"]
    assert requested == [MEDIA_ORIGIN + CARD_PAGE]


@pytest.mark.browser
def test_the_real_urdu_quiz_options_are_set_in_the_decks_font(chromium, tmp_path):
    """The course's own Urdu questions, options included (their ے showed as boxes before)."""
    course = parse_course(deck.ROOT, syntax=MKDOCS)
    if course.errors or not [q for q in course.questions if q.lang == "ur"]:
        pytest.skip("docs/ has no cleanly parsed Urdu question; tools/cli.py check says why")
    apkg = tmp_path / "real.apkg"
    deck.write_deck(course, apkg, site_url=SITE, timestamp=T1, root=deck.ROOT)
    col = Collection(str(tmp_path / "collection.anki2"))
    try:
        import_apkg(col, apkg)
        card_ids = col.find_cards("tag:kind::quiz tag:lang::ur")
        assert len(card_ids) == len([q for q in course.questions if q.lang == "ur"])
        measured = []
        for card_id in card_ids:
            facts, _ = show(chromium, col, col.get_card(card_id).answer(), MEASURE_URDU)
            assert_set_in_the_decks_font(facts)
            measured += [run["tag"] for run in facts["runs"]]
        assert "ol" in measured  # an options list in Urdu
    finally:
        col.close()
