"""Each note's identity: its GUID, its deck, and the list of notes in reading order.

The deck (:mod:`tools.anki.deck`), its dating (:mod:`tools.anki.note_dates`) and the site's
review page (:mod:`tools.plugin.review`) all name an item by the GUID made here, so a learner's
history follows an item the same way in Anki and in the browser. A build makes the list once
(:func:`note_items`) and hands it to the deck and to the review data.

Anki matches imported notes by GUID alone, so GUIDs are namespaced and stable:
``guid(namespace, explicit_id)`` when the author gave an id, else ``guid(namespace, "card",
key)`` for a flashcard and ``guid(namespace, "quiz", quiz id, key)`` for a question, where
``key`` is the normalized question. Editing an answer keeps the GUID and so the learner's review
history. No GUID holds the page's file name: renaming or moving a lesson keeps every note
(explicit ids, quiz ids and flashcard questions are unique in the whole course).

The GUID is written the way genanki's ``guid_for`` writes it (the first eight bytes of the
SHA-256 of the parts joined by ``__``, in Anki's base-91 digits), computed here so that naming a
note needs no genanki; ``tests/test_deck.py`` checks the two agree.
"""

from __future__ import annotations

import hashlib
import re
import string
from dataclasses import dataclass

from .model import Card, Course, CourseConfig, Page, Question, Quiz

_DECK_ID_BASE = 1 << 30
_LEADING_NUMBER = re.compile(r"^(\d+)[-_]")
_GUID_DIGITS = string.ascii_letters + string.digits + "!#$%&()*+,-./:;<=>?@[]^_`{|}~"


@dataclass(frozen=True)
class NoteItem:
    """One future note: a flashcard or a question, with its GUID and its deck."""

    page: Page
    deck_key: str
    deck_name: str
    item: Card | Question
    quiz: Quiz | None
    guid: str


def guid(*parts: str) -> str:
    """Anki's GUID form of ``parts``: base-91 digits of a hash, never a file name or a time."""
    number = int.from_bytes(hashlib.sha256("__".join(parts).encode()).digest()[:8], "big")
    digits = ""
    while number:
        number, digit = divmod(number, len(_GUID_DIGITS))
        digits = _GUID_DIGITS[digit] + digits
    return digits


def note_guid(item: Card | Question, quiz: Quiz | None = None, *, namespace: str) -> str:
    """The GUID of a flashcard, or of a question of ``quiz``: the one function that computes it.

    Nothing in it depends on the page's file, so a renamed or moved lesson keeps its notes. The
    quiz id is part of a question's name: the parser allows one question text in two quizzes.
    ``namespace`` is the course's (``extra.course.guid_namespace``): two courses never share one.
    """
    if item.explicit_id:
        return guid(namespace, item.explicit_id)
    if isinstance(item, Card):
        return guid(namespace, "card", item.key)
    if quiz is None:
        raise ValueError(f"{item.location}: a question's GUID needs its quiz")
    return guid(namespace, "quiz", quiz.quiz_id, item.key)


def deck_id(key: str, namespace: str) -> int:
    """A fixed Anki deck id from a stable key, in the course's namespace.

    Keys: ``""`` for the top deck, ``"page:<docs path>"`` for a lesson's flashcards,
    ``"quiz:<quiz id>"`` for a quiz.
    """
    digest = hashlib.sha256(f"{namespace}:deck:{key}".encode()).digest()
    return _DECK_ID_BASE + int.from_bytes(digest[:4], "big") % _DECK_ID_BASE


def lesson_deck_name(page: Page, deck_name: str) -> str:
    """``<top>::01 Finding and claiming work``: the file's number, then the page title."""
    title = plain_title(page.title)
    number = _LEADING_NUMBER.match(page.slug)
    # "Lesson 1 · Finding work" already says its number; "Finding work" gets "01 " in front.
    if number and not re.match(rf"^\D{{0,12}}0*{int(number.group(1))}\b", title):
        title = f"{number.group(1)} {title}"
    return f"{deck_name}::{title}"


# "Quiz" in each language a quiz may be written in (tools.course.model.LANGUAGES), as a word.
_QUIZ_WORD = re.compile(r"(?<!\w)(quiz|کوئز)(?!\w)", re.IGNORECASE)


def quiz_deck_name(quiz: Quiz, deck_name: str) -> str:
    """``<top>::<quiz title>``, with ``Quiz: `` in front only of a title that does not say so
    ("Lesson 1 quiz: ..." is not "Quiz: Lesson 1 quiz: ...")."""
    title = plain_title(quiz.title)
    return f"{deck_name}::{title if _QUIZ_WORD.search(title) else 'Quiz: ' + title}"


def plain_title(markdown: str) -> str:
    """A title as plain text for a deck name (no Markdown marks, no '::' nesting)."""
    text = re.sub(r"[`*_]", "", markdown)
    return " ".join(text.replace("::", ":").split())


def settings(course: Course) -> CourseConfig:
    """The course's settings; a course whose ``mkdocs.yml`` settings have errors has no notes."""
    if course.config is None:
        raise ValueError("the course settings in mkdocs.yml have errors; no deck")
    return course.config


def note_items(course: Course) -> list[NoteItem]:
    """Every note of the course, in reading order (pages, then each page's cards, quizzes)."""
    config = settings(course)
    return [entry for page in course.pages for entry in page_notes(page, config)]


def page_notes(page: Page, config: CourseConfig) -> list[NoteItem]:
    """The notes of one page, in :func:`note_items`' order: a caller that has the pages one by
    one (the deck, while the pages after them parse) names their notes as they come."""
    namespace, deck_name = config.guid_namespace, config.deck_name
    lesson = lesson_deck_name(page, deck_name)
    items: list[NoteItem] = []
    for card in page.cards:
        guid_ = note_guid(card, namespace=namespace)
        items.append(NoteItem(page, "page:" + page.docs_path, lesson, card, None, guid_))
    for quiz in page.quizzes:
        name = quiz_deck_name(quiz, deck_name)
        for question in quiz.questions:
            guid_ = note_guid(question, quiz, namespace=namespace)
            items.append(NoteItem(page, "quiz:" + quiz.quiz_id, name, question, quiz, guid_))
    return items
