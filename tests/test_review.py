"""The review page's data (tools/plugin/review.py) and the vendored scheduler
(tools/plugin/vendor.py).

The review page must hold exactly the deck's notes under the deck's GUIDs, or progress kept in
the browser would not follow the items the way Anki's history follows notes. The vendored
ts-fsrs must be byte-for-byte the file its record names, and a refresh must refuse a tarball
that does not match the registry's integrity.
"""

from __future__ import annotations

import io
import json
import shutil
import tarfile

import pytest
from conftest import deck_query

pytest.importorskip("genanki", reason="the course engine's dependencies are not installed")

from mkdocs_course.anki import deck
from mkdocs_course.buildkit.buildinfo import ROOT
from mkdocs_course.course import config as course_config
from mkdocs_course.course import notes as course_notes
from mkdocs_course.course.model import Course
from mkdocs_course.course.parser import parse_course, parse_page
from mkdocs_course.plugin import review, vendor
from mkdocs_course.plugin.syntax import MKDOCS

LESSON = """\
# Lesson

## Flashcards

What does checkpointing trade? ::: Compute for memory
Which segment is never checkpointed? ::: The last one
"""


def _deck_notes(course: Course) -> dict[str, str]:
    """GUID -> tags of every note in the built ``.apkg``, read back from its database."""
    data = deck.build_apkg(course, site_url="", timestamp=1_700_000_000, root=ROOT)
    return dict(deck_query(data, "select guid, tags from notes"))


def _course(text: str) -> Course:
    page, errors = parse_page(
        "docs/lessons/01-lesson.md", "lessons/01-lesson.md", text, syntax=MKDOCS
    )
    assert not errors
    return Course(pages=[page], errors=[], config=course_config.load(ROOT))


def test_review_items_are_the_deck_notes_under_the_same_guids():
    course = parse_course(ROOT, syntax=MKDOCS)
    index, content = review.review_data(course_notes.note_items(course), "review.html")
    notes = _deck_notes(course)
    guids = [row[0] for row in index["items"]]
    assert len(guids) == len(set(guids)) == len(notes) == len(course.cards) + len(course.questions)
    assert set(guids) == set(notes) == set(content)
    for guid, lesson, kind in index["items"]:
        assert f"kind::{kind}" in notes[guid].split()
        page = index["lessons"][lesson]["path"].removesuffix(".md")
        assert content[guid]["url"].startswith(f"./{page}.html#")
    assert index["page"] == "review.html"


def test_an_edited_answer_keeps_its_guid_and_a_removed_item_disappears():
    before_index, before = review.review_data(
        course_notes.note_items(_course(LESSON)), "review.html"
    )
    edited = LESSON.replace("Compute for memory", "Extra compute for less memory").replace(
        "Which segment is never checkpointed? ::: The last one\n", ""
    )
    after_index, after = review.review_data(course_notes.note_items(_course(edited)), "review.html")
    kept = after_index["items"][0][0]
    assert kept == before_index["items"][0][0]
    assert "Extra compute" in after[kept]["back"][0]
    assert "Extra compute" not in before[kept]["back"][0]
    assert len(before) == 2 and len(after) == 1


def test_urdu_items_carry_their_language_and_math_is_mathml():
    _, content = review.review_data(
        course_notes.note_items(parse_course(ROOT, syntax=MKDOCS)), "review.html"
    )
    urdu = [item for item in content.values() if item["lang"] == "ur"]
    assert urdu, "the Urdu quiz is part of the review"
    assert all(item["front"][1] == "ur" for item in urdu)
    pieces = [item["front"][0] + item["back"][0] for item in content.values()]
    assert any("<math" in html for html in pieces), "some item shows a formula"
    assert not any("\\(" in html or "$" in html for html in pieces), "TeX left unrendered"


def test_generated_files_are_scripts_that_assign_the_data():
    course = parse_course(ROOT, syntax=MKDOCS)
    files = review.site_files(course_notes.note_items(course), "review.html")
    index, content = review.review_data(course_notes.note_items(course), "review.html")
    for path, name, value in (
        (review.INDEX_FILE, "CourseReviewIndex", index),
        (review.CONTENT_FILE, "CourseReviewContent", content),
    ):
        prefix = f"window.{name}="
        text = files[path]
        assert text.startswith(prefix) and text.endswith(";\n")
        assert json.loads(text[len(prefix) : -2]) == value


# --- the vendored scheduler -------------------------------------------------------------------


def test_vendored_ts_fsrs_is_the_recorded_release():
    record = vendor.verify()
    assert (record["package"], record["version"], record["license"]) == ("ts-fsrs", "5.4.2", "MIT")
    assert record["integrity"].startswith("sha512-")
    assert "MIT License" in (vendor.TS_FSRS.folder / "LICENSE").read_text("utf-8")


def test_vendored_sql_js_is_the_recorded_release():
    record = vendor.verify(vendor.SQL_JS)
    assert (record["package"], record["version"], record["license"]) == ("sql.js", "1.17.0", "MIT")
    assert "MIT" in (vendor.SQL_JS.folder / "LICENSE").read_text("utf-8")
    # The build with its WebAssembly inline: a separate .wasm cannot be fetched from file://.
    assert "sql-wasm-inline.js" in record["files"]


def test_an_edited_vendored_file_fails_verification(tmp_path):
    folder = tmp_path / "ts-fsrs"
    shutil.copytree(vendor.TS_FSRS.folder, folder)
    copy = vendor.Vendored("ts-fsrs", folder, vendor.TS_FSRS.files)
    vendor.verify(copy)
    with (folder / "index.umd.js").open("a") as out:
        out.write("\n// edited by hand\n")
    with pytest.raises(vendor.VendorError, match=r"index\.umd\.js: differs from ts-fsrs@5\.4\.2"):
        vendor.verify(copy)


def _tarball(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def test_unpack_checks_the_registry_integrity_before_taking_files():
    files = {"package/dist/index.umd.js": b"var FSRS = {};\n", "package/LICENSE": b"MIT License\n"}
    tarball = _tarball(files)
    integrity = vendor.sha512_integrity(tarball)
    assert vendor.unpack(tarball, integrity) == {
        "index.umd.js": b"var FSRS = {};\n",
        "LICENSE": b"MIT License\n",
    }
    tampered = _tarball({**files, "package/dist/index.umd.js": b"var FSRS = evil;\n"})
    with pytest.raises(vendor.VendorError, match="the registry says sha512-"):
        vendor.unpack(tampered, integrity)
    partial = _tarball({"package/LICENSE": b"MIT License\n"})
    with pytest.raises(vendor.VendorError, match=r"has no package/dist/index\.umd\.js"):
        vendor.unpack(partial, vendor.sha512_integrity(partial))


def test_links_in_items_are_resolved_against_their_own_page_for_the_review_page():
    """The review page sits at the site root; an item's relative link was written on its lesson."""
    course = _course(
        "# Lesson\n\n## Flashcards\n\n"
        "Where is the glossary? ::: In [the glossary](../glossary.md#c) and [2.4](02-two.md#l2-4)\n"
    )
    _, content = review.review_data(course_notes.note_items(course), "review.html")
    (shown,) = content.values()
    back = shown["back"][0]
    assert 'href="glossary.html#c"' in back
    assert 'href="lessons/02-two.html#l2-4"' in back
    assert shown["url"].startswith("./lessons/01-lesson.html#")


def test_review_options_carry_the_labels_their_explanation_names_them_by():
    """A seed quiz shows its options in a stored order and its explanation names them by the shown
    labels ({option:X}); the Review page must show the same labels, or "option C" points nowhere."""
    course = parse_course(ROOT, syntax=MKDOCS)
    _, content = review.review_data(course_notes.note_items(course), "review.html")
    shown = [item for item in content.values() if "options" in item]
    assert len(shown) == len(course.questions)
    assert all(len(item["labels"]) == len(item["options"]) for item in shown)
    labels = {tuple(item["labels"]) for item in shown}
    assert ("A", "B", "C", "D") in labels
    assert ("۱", "۲", "۳", "۴") in labels, "Urdu questions label their options in Urdu digits"
