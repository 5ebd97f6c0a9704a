"""The data behind the site's review page: every note of the Anki deck, as the site renders it.

The review page schedules the same items as the deck: both are handed the build's one list of
notes (:func:`tools.course.notes.note_items`), keyed by GUID. A learner's progress, stored in the
browser under those GUIDs, therefore follows an item exactly as Anki's history follows a note:
an edited answer keeps it, a removed item leaves an entry the page ignores. GUIDs are never
computed here.

Two generated scripts, because ``fetch()`` of a local file fails when the site is opened from
``file://`` while ``<script src>`` works everywhere:

- ``assets/review/index.js`` (every page, small): each item's GUID, lesson and kind, in the
  deck's reading order, enough for the header's due count, the review page's queue and filters,
  and grading an item where it stands on its lesson's page (``tools/plugin/static/review/inline.js``
  pairs a lesson's items of each kind with its flashcards and questions in page order);
- ``assets/review/anki.js`` (only when the learner exports progress for Anki): the built deck's
  collection database, which ``tools/plugin/static/review/export.js`` fills with the schedule;
- ``assets/review/content.js`` (the review page only): each item's front and back as HTML from
  the site renderer (:func:`tools.plugin.pages.course_html`: escaped course text, MathML, ``dir`` on
  code), with the language of every piece so Urdu is right-to-left in Nastaliq.
"""

from __future__ import annotations

import base64
import io
import json
import zipfile

from ..course import links
from ..course.model import Card, script_lang
from ..course.notes import NoteItem
from .pages import course_html

REVIEW_PAGE = "review.md"
INDEX_FILE = "assets/review/index.js"
CONTENT_FILE = "assets/review/content.js"
SITE_FILES = (INDEX_FILE, CONTENT_FILE)  # what site_files() writes, known before it runs
ANKI_FILE = "assets/review/anki.js"  # anki_script() of the deck, written with the deck


def _piece(text: str, page: str, *, inline: bool = True) -> list[str]:
    """``[html, lang]`` for one piece of course text written on page ``page``."""
    return [course_html(text, inline=inline, page=page), script_lang(text)]


def review_data(notes: list[NoteItem], page_url: str) -> tuple[dict, dict]:
    """``(index, content)``: what the two generated scripts hold, for the course's ``notes``, in
    the deck's reading order.

    ``page_url`` is the review page's address relative to the site root (MkDocs names it).
    """
    lessons: list[dict[str, str]] = []
    lesson_of: dict[str, int] = {}
    items: list[list] = []
    content: dict[str, dict] = {}
    for entry in notes:
        page, item = entry.page, entry.item
        if page.docs_path not in lesson_of:
            lesson_of[page.docs_path] = len(lessons)
            lessons.append({"path": page.docs_path, "title": page.title})
        kind = "flashcard" if isinstance(item, Card) else "quiz"
        items.append([entry.guid, lesson_of[page.docs_path], kind])
        shown = {
            "lang": item.lang,
            # "./" keeps the deck's page address relative: the review page sits at the site root.
            "url": f"{links.page_url('./', page.docs_path)}#{item.anchor}",
        }
        if isinstance(item, Card):
            shown |= {
                "front": _piece(item.front, page.docs_path),
                "back": _piece(item.back, page.docs_path),
            }
        else:
            shown |= {
                "front": _piece(item.prompt, page.docs_path),
                "options": [_piece(option.text, page.docs_path) for option in item.options],
                # The labels the explanation names the options by (the model's shown order).
                "labels": [item.label(index) for index in range(len(item.options))],
                "answer": item.answer,
                "back": _piece(item.explanation, page.docs_path, inline=False),
            }
        content[entry.guid] = shown
    return {"page": page_url, "lessons": lessons, "items": items}, content


def site_files(notes: list[NoteItem], page_url: str) -> dict[str, str]:
    """Generated file path (relative to the site) -> its text."""
    index, content = review_data(notes, page_url)
    return {
        INDEX_FILE: _script("CourseReviewIndex", index),
        CONTENT_FILE: _script("CourseReviewContent", content),
    }


def anki_script(apkg: bytes) -> str:
    """The script that hands the browser the built deck ``apkg``: its collection database and
    every other entry (the media index and the font files), so the browser's package carries
    the same media as the command's.

    Base64 in a script, not the file itself: ``fetch()`` of a local file fails from ``file://``.
    """
    with zipfile.ZipFile(io.BytesIO(apkg)) as archive:
        entries = {
            name: base64.b64encode(archive.read(name)).decode() for name in archive.namelist()
        }
    database = entries.pop("collection.anki2")
    return _script("CourseReviewAnki", {"collection": database, "media": entries})


def _script(name: str, value: object) -> str:
    # UTF-8, not \\u escapes: an Urdu letter takes two bytes, not six. The pages declare UTF-8,
    # which classic scripts inherit, from a server or from disk.
    data = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return f"window.{name}={data};\n"
