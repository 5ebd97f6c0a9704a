"""No published note loses its identity: every GUID the course has shipped is still in the deck.

Anki matches an imported note to a learner's note by GUID alone, and the review page keeps a
learner's progress under the same GUID, so a GUID the course stops making is a note whose history
is lost (and, if the item still exists under another GUID, a duplicate). Splitting or renaming a
page must keep every one: ``tests/published_notes.tsv`` records each GUID with what names it,
and this test builds the deck and finds each there.

Decks are the other way round: Anki files an imported card under its deck's name, not the deck
id, and never moves a card it already holds. A page or quiz whose title changes would put its new
cards in a new deck beside the old one, which keeps the learner's existing cards: a split that no
import mends. ``tests/published_decks.txt`` records each published deck's name.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import deck_query

pytest.importorskip("genanki", reason="the course engine's dependencies are not installed")

from mkdocs_course.anki import deck
from mkdocs_course.buildkit.buildinfo import ROOT
from mkdocs_course.course import notes
from mkdocs_course.course.model import Course, normalize
from mkdocs_course.course.parser import parse_course
from mkdocs_course.plugin.syntax import MKDOCS

RECORD = Path(__file__).with_name("published_notes.tsv")
DECKS = Path(__file__).with_name("published_decks.txt")


def published() -> dict[str, str]:
    """GUID -> what names the item (for the message), from the record."""
    return dict(line.split("\t", 1) for line in _lines(RECORD))


def _lines(record: Path) -> list[str]:
    return [line for line in record.read_text("utf-8").splitlines() if line and line[0] != "#"]


@pytest.fixture(scope="module")
def built() -> tuple[Course, bytes]:
    course = parse_course(ROOT, syntax=MKDOCS)
    return course, deck.build_apkg(course, site_url="", timestamp=1_700_000_000, root=ROOT)


def test_every_published_note_keeps_its_guid_in_the_built_deck(built):
    course, data = built
    in_deck = {guid for (guid,) in deck_query(data, "select guid from notes")}
    assert in_deck == {item.guid for item in notes.note_items(course)}
    lost = {guid: name for guid, name in published().items() if guid not in in_deck}
    assert not lost, (
        "these published notes are no longer made by the course (a changed question, quiz id "
        f"or explicit id makes a new note and orphans the learner's history): {lost}"
    )


def test_the_record_names_each_item_by_what_makes_its_guid():
    """The record is not a copy of a build's output: each line's name recomputes its GUID."""
    namespace = notes.settings(parse_course(ROOT, syntax=MKDOCS)).guid_namespace
    for guid, name in published().items():
        if name.startswith("#"):
            parts = (name[1:],)
        elif name.startswith("card: "):
            parts = ("card", normalize(name.removeprefix("card: ")))
        else:
            quiz, _, prompt = name.removeprefix("quiz ").partition(": ")
            parts = ("quiz", quiz, normalize(prompt))
        assert notes.guid(namespace, *parts) == guid, name


def test_lesson_subdecks_are_listed_in_reading_order():
    """Anki lists subdecks by name: a lesson split into parts ("Lesson 2, part 1 · ...") keeps
    its parts together and in order, between the lessons around it."""
    course = parse_course(ROOT, syntax=MKDOCS)
    names = []
    for item in notes.note_items(course):
        if item.deck_key.startswith("page:lessons/") and item.deck_name not in names:
            names.append(item.deck_name)
    parts = [name for name in names if ", part " in name]
    assert len(parts) >= 2
    assert names == sorted(names, key=str.casefold)


def test_every_published_deck_keeps_its_name_in_the_built_deck(built):
    _, data = built
    ((decks,),) = deck_query(data, "select decks from col")
    names = {entry["name"] for entry in json.loads(decks).values()}
    renamed = [name for name in _lines(DECKS) if name not in names]
    assert not renamed, (
        "these published decks are no longer in the deck (a page or quiz title changed?): Anki "
        "files a card by its deck's name and never moves one it holds, so learners would find "
        "their existing cards in the old deck and new ones in a new deck. Keep the title, or, "
        f"for a rename that is meant, change its line in {DECKS.name} and say in the release "
        f"notes that decks split: {renamed}"
    )
