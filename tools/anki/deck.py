"""The Anki renderer: the parsed course -> one reproducible ``.apkg`` (genanki).

Identity and time are what make a deck safe to import again and again. Anki matches imported
notes by GUID alone and replaces a matched note only when the incoming modification time is newer
(and then reports it as "updated" even when nothing in it changed). So:

- GUIDs are namespaced and stable, and made in one place (:mod:`tools.course.notes`): editing
  an answer keeps the GUID and so the learner's review history; renaming or moving a lesson
  keeps every note.
- A note's modification time is the time of the last commit that changed what it is made of
  (:mod:`tools.anki.note_dates`, which holds all the git work): a new commit that edits one answer
  updates exactly that note, and the same commit always gives the same times.
- Everything else that genanki stamps with a time (note types, cards, ids, zip entries) gets the
  build ``timestamp``, so the same commit gives a byte-identical file.
- Note-type and deck ids are fixed: Anki ties notes to their note type by id. The namespace,
  the note-type ids and the deck's name are the course's (``extra.course`` in its ``mkdocs.yml``,
  :mod:`tools.course.config`), so another course gets notes of its own.

The file is written to a temporary name next to the target and moved into place, so a failed
build never leaves a half-written or missing deck behind.
"""

from __future__ import annotations

import html
import io
import itertools
import json
import re
import sqlite3
import sys
import time
import zipfile
from collections.abc import Iterable, Iterator
from functools import cache
from pathlib import Path

import genanki

from ..buildkit.buildinfo import ROOT, write_atomically
from ..course import field_syntax, links, model, notes
from ..course.config import DECK_TEMPLATES, NOTE_FIELDS
from ..course.links import page_url
from ..course.model import Card, Course, CourseConfig, Page, Question
from ..course.notes import NoteItem, deck_id, note_items
from ..render import markdown_html, mathml
from ..render.markdown_html import render_markdown
from . import note_dates

# Note types: their ids come from the course's settings and are FIXED. Anki knows a note type by
# its id; a learner's notes stay tied to it across imports. Templates and CSS may change freely
# under the same id (a newer build updates them), but changing a note type's FIELDS (NOTE_FIELDS,
# beside the settings: the check of the templates reads them too) under the same id makes every
# existing note "conflicting" on import: when fields change, give the course new ids and bump the
# version in the name. tests/test_deck.py pins the field lists that belong to the ids.
NOTE_TYPE_VERSION = "v1"

# Deck ids come from keys that never change (not from titles, which may): see deck_id().

SOURCE_LABEL = "Open in the course ↗"

# The code that turns a card's Markdown into its fields, by module so that a rename cannot drop
# one: a commit to any of them re-dates every note (:func:`tools.anki.note_dates.note_times`), so
# learners receive the new rendering.
RENDERER_FILES = (
    *(
        Path(module.__file__)
        for module in (
            markdown_html,
            field_syntax,
            mathml,
            links,
            sys.modules[__name__],
            model,
            notes,
        )
    ),
    ROOT / "constraints.txt",
)
_ZIP_EPOCH = 315_532_800  # 1980-01-01, the earliest time a zip entry can hold


# --- writing ----------------------------------------------------------------------------------


def write_deck(
    course: Course,
    path: Path,
    *,
    timestamp: int,
    root: Path,
    site_url: str | None = None,
    items: list[NoteItem] | None = None,
    times: dict[str, int] | None = None,
) -> None:
    """Build the course's ``.apkg`` and move it into ``path`` atomically.

    ``root`` is the checkout the course was parsed from (its git history dates the notes, its
    ``deck_templates`` folder holds the note templates);
    ``site_url`` (default: the course's) makes the notes' links absolute; ``items`` and
    ``times`` as :func:`build_apkg` takes them.
    Raises ValueError for a course with errors (callers report them first): nothing is written
    and an existing file stays as it was.
    """
    if course.errors:
        raise ValueError(f"the course has {len(course.errors)} error(s); no deck written")
    data = build_apkg(
        course, site_url=site_url, timestamp=timestamp, root=root, items=items, times=times
    )
    write_atomically(Path(path), data, durable=True)


def build_apkg(
    course: Course,
    *,
    timestamp: int,
    root: Path,
    site_url: str | None = None,
    items: list[NoteItem] | None = None,
    times: dict[str, int] | None = None,
) -> bytes:
    """The ``.apkg`` bytes: a zip of genanki's collection database, with pinned metadata.

    ``items`` and ``times``: the notes (:func:`tools.course.notes.note_items`) and each note's
    modification time by GUID, when the caller has them already, as a build does
    (:func:`tools.anki.note_dates.note_times` works the times out from ``root``'s git history).
    """
    config = notes.settings(course)
    items = note_items(course) if items is None else items
    if times is None:
        times = note_dates.note_times(
            items, root=root, timestamp=timestamp, renderer=RENDERER_FILES
        )
    written = write_notes(config, items, timestamp=timestamp, root=root, site_url=site_url)
    return written.apkg(times)


def write_notes(
    config: CourseConfig,
    items: Iterable[NoteItem],
    *,
    timestamp: int,
    root: Path,
    site_url: str | None = None,
) -> WrittenNotes:
    """:func:`build_apkg` up to the notes' modification times: every note of ``items`` written
    into genanki's collection database as ``items`` yields it, so a caller that is still parsing
    the pages after them (``python -m tools deck``) has the notes written meanwhile. ``items``
    in reading order, each deck's notes together (as :func:`tools.course.notes.note_items` has
    them); ``site_url`` and the rest as :func:`build_apkg` takes them."""
    models = note_models(config, templates(root, config))
    decks = _decks(items, config, models, config.site_url if site_url is None else site_url)
    conn = sqlite3.connect(":memory:")
    try:
        # No rollback journal: the database lives in memory and is dropped, never rolled back,
        # when a build fails, so the copy of each page a journal keeps would be work for
        # nothing. The journal is no part of the database's bytes.
        conn.execute("PRAGMA journal_mode=OFF")
        # genanki numbers notes and cards from the clock; from the build time they are reproducible.
        _write_package(conn.cursor(), decks, timestamp, itertools.count(int(timestamp) * 1000))
    except BaseException:
        conn.close()
        raise
    return WrittenNotes(conn, timestamp)


class WrittenNotes:
    """The collection database with every note written (:func:`write_notes`), until
    :meth:`apkg` packs it with the notes' modification times."""

    def __init__(self, conn: sqlite3.Connection, timestamp: int) -> None:
        self._conn, self._timestamp = conn, timestamp

    def apkg(self, times: dict[str, int]) -> bytes:
        """The ``.apkg`` bytes, each note's modification time from ``times`` (GUID -> time)."""
        conn = self._conn
        try:
            cursor = conn.cursor()
            # Anki's schema has no index on guid: without one each UPDATE scans every note
            # (quadratic in the deck's size). It is dropped again, so the file is Anki's own.
            cursor.execute("CREATE INDEX course_notes_guid ON notes (guid)")
            cursor.executemany(
                "UPDATE notes SET mod = ? WHERE guid = ?",
                [(t, g) for g, t in sorted(times.items())],
            )
            cursor.execute("DROP INDEX course_notes_guid")
            conn.commit()
            database = conn.serialize()
        finally:
            conn.close()
        return _zip({"collection.anki2": database, **media_entries()}, self._timestamp)


def _write_package(
    cursor: sqlite3.Cursor, decks: Iterable[genanki.Deck], timestamp: int, id_gen: Iterator[int]
) -> None:
    """``genanki.Package(decks).write_to_db``: the same statements in the same order, so the same
    database bytes, without its cost per subdeck. For every deck genanki decodes the collection's
    decks and note types, adds its own and encodes them all again, which is quadratic in the
    number of subdecks; here each entry is encoded once and the texts are joined. The note types'
    text keeps genanki's quirk: an id read back as text and written again as a number is in it
    twice (the same key; a reader keeps the last value). Each deck is written as ``decks``
    yields it."""
    cursor.executescript(genanki.package.APKG_SCHEMA)
    cursor.executescript(genanki.package.APKG_COL)
    read = {
        column: {key: json.dumps(value) for key, value in json.loads(text).items()}
        for column, text in zip(
            ("decks", "models"),
            cursor.execute("SELECT decks, models FROM col").fetchone(),
            strict=True,
        )
    }
    saved_models = read["models"]
    # Each deck's entry is encoded once: the text after each deck is then one join.
    saved_decks = {key: _json_entry(key, value) for key, value in read["decks"].items()}
    for deck in decks:
        key = str(deck.deck_id)
        saved_decks[key] = _json_entry(key, json.dumps(deck.to_json()))
        cursor.execute("UPDATE col SET decks = ?", ("{" + ", ".join(saved_decks.values()) + "}",))
        for note in deck.notes:
            deck.add_model(note.model)
        models = {
            str(m.model_id): json.dumps(m.to_json(timestamp, deck.deck_id))
            for m in deck.models.values()
        }
        written = _json_object([*saved_models.items(), *models.items()])
        cursor.execute("UPDATE col SET models = ?", (written,))
        saved_models.update(models)
        for note in deck.notes:
            note.write_to_db(cursor, timestamp, deck.deck_id, id_gen)


def _json_object(entries: Iterable[tuple[str, str]]) -> str:
    """``json.dumps`` of an object whose values are encoded already (its default separators)."""
    return "{" + ", ".join(_json_entry(key, value) for key, value in entries) + "}"


def _json_entry(key: str, value: str) -> str:
    """One member of :func:`_json_object`: the key encoded, the value as it is."""
    return f"{json.dumps(key)}: {value}"


def _decks(
    items: Iterable[NoteItem], config: CourseConfig, models: dict[str, genanki.Model], site_url: str
) -> Iterator[genanki.Deck]:
    """The top deck, then each subdeck once its notes are in (the next note is another deck's),
    in reading order, so the package is written while ``items`` still comes."""
    namespace, deck_name = config.guid_namespace, config.deck_name
    top = genanki.Deck(
        deck_id("", namespace), deck_name, description=_description(deck_name, site_url)
    )
    yield top
    decks: dict[str, genanki.Deck] = {"": top}
    names = {deck_name}
    guids: set[str] = set()
    deck = top
    for due, entry in enumerate(items, start=1):  # new cards come up in reading order
        if decks.get(entry.deck_key) is not deck:
            if entry.deck_key in decks:  # its deck is written: a quiz id used twice, reported
                raise ValueError(f"{entry.item.location}: deck {entry.deck_name} comes twice")
            if deck is not top:
                yield deck
            name = entry.deck_name
            if name in names:  # two pages or quizzes with one title: the key tells them apart
                name = f"{name} ({entry.deck_key.partition(':')[2]})"
            names.add(name)
            deck = decks[entry.deck_key] = genanki.Deck(deck_id(entry.deck_key, namespace), name)
        note = _note(entry, models, site_url, due)
        if note.guid in guids:  # Anki would silently keep only one of the two
            raise ValueError(f"{entry.item.location}: two notes share GUID {note.guid}")
        guids.add(note.guid)
        deck.add_note(note)
    if len({deck.deck_id for deck in decks.values()}) != len(decks):
        raise ValueError("two subdecks share a deck id; rename a quiz id or a page")
    if deck is not top:
        yield deck


def _note(
    entry: NoteItem, models: dict[str, genanki.Model], site_url: str, due: int
) -> genanki.Note:
    item = entry.item
    url = page_url(site_url, entry.page.docs_path)
    where = {"page": entry.page.docs_path, "site_url": site_url}
    source = (
        f'<a href="{html.escape(url)}#{html.escape(item.anchor)}">{SOURCE_LABEL}</a>' if url else ""
    )
    if isinstance(item, Card):
        return genanki.Note(
            model=models["basic"],
            fields=[
                # Block HTML: an Urdu side is then a right-to-left, right-aligned block.
                render_markdown(item.front, target="anki", **where),
                render_markdown(item.back, target="anki", **where),
                source,
                "",
            ],
            tags=_tags(entry.page, "flashcard", item.lang),
            guid=entry.guid,
            due=due,
        )
    return genanki.Note(
        model=models["choice"],
        fields=[
            render_markdown(item.prompt, target="anki", **where),
            _options_html(item, marked=False, **where),
            _options_html(item, marked=True, **where),
            render_markdown(item.explanation, target="anki", **where),
            source,
        ],
        tags=_tags(entry.page, "quiz", item.lang),
        guid=entry.guid,
        due=due,
    )


def _options_html(question: Question, *, marked: bool, page: str, site_url: str) -> str:
    """The options as a list; ``marked`` shows the correct one (tick, bold, box: not colour only).

    The list runs in the question's direction; an option in the other script is isolated.
    """
    rtl = question.lang == "ur"
    items = []
    for option in question.options:
        text = render_markdown(
            option.text, target="anki", inline=True, page=page, site_url=site_url
        )
        if rtl and option.lang == "en":
            text = f'<bdi dir="ltr" lang="en">{text}</bdi>'
        if marked and option.correct:
            items.append(f'<li class="correct"><span class="tick">✓</span>{text}</li>')
        else:
            items.append(f"<li>{text}</li>")
    direction = ' dir="rtl" lang="ur"' if rtl else ""
    kind = "options answer" if marked else "options"
    return f'<ol class="{kind}"{direction}>{"".join(items)}</ol>'


def _tags(page: Page, kind: str, lang: str) -> list[str]:
    """Anki tags hold no spaces (genanki refuses them): a file name's spaces become ``_``."""
    lesson = re.sub(r"\s+", "_", page.slug)
    return [f"lesson::{lesson}", f"kind::{kind}", f"lang::{lang}"]


def _description(deck_name: str, site_url: str) -> str:
    text = f"Flashcards and quizzes of the course {html.escape(deck_name)}."
    if site_url:
        return f'{text} <a href="{html.escape(site_url)}">Read the course</a>.'
    return text


# --- note types -------------------------------------------------------------------------------


def templates(root: Path, config: CourseConfig) -> dict[str, str]:
    """The course's note templates, by file name, from its ``deck_templates`` folder (which
    ``check`` has found holds them all: :func:`tools.course.config.load`)."""
    folder = root / config.deck_templates
    return {name: (folder / name).read_text("utf-8") for name in DECK_TEMPLATES}


def note_models(config: CourseConfig, templates: dict[str, str]) -> dict[str, genanki.Model]:
    """The course's two note types, ``basic`` and ``choice``, made from ``templates``."""

    def model(kind: str, title: str, fields: tuple[str, ...], template: str) -> genanki.Model:
        name = f"{config.deck_name}: {title} ({NOTE_TYPE_VERSION})"
        front, back = templates[f"{kind}.front.html"], templates[f"{kind}.back.html"]
        return _model(
            config.note_type_ids[kind], name, fields, template, front, back, templates["cards.css"]
        )

    return {
        "basic": model("basic", "basic", NOTE_FIELDS["basic"], "Card"),
        "choice": model("choice", "multiple choice", NOTE_FIELDS["choice"], "Multiple choice"),
    }


@cache
def _model(
    model_id: int,
    name: str,
    fields: tuple[str, ...],
    template: str,
    front: str,
    back: str,
    css: str,
) -> genanki.Model:
    return genanki.Model(
        model_id,
        name,
        fields=[{"name": field} for field in fields],
        templates=[{"name": template, "qfmt": front, "afmt": back}],
        css=css,
    )


# --- media: the course's Urdu font ----------------------------------------------------------
#
# Urdu cards are set in the font the site serves (tools/plugin/static/fonts, one copy in the
# repository); cards.css loads it with @font-face for Urdu runs only. Anki keeps a media file that
# no field references only when its name starts with "_", so every name here does (the licence too:
# the OFL asks for it to travel with the font). Anki matches media by name on import: a name it
# already has is not imported again (re-importing adds no copy), even when the incoming file
# differs, so learners would keep the old font. A changed font file therefore needs a new name here
# and in cards.css; tests/test_deck_fonts.py pins each name to its file's hash.

FONTS = Path(__file__).resolve().parents[1] / "plugin" / "static" / "fonts"  # the package's
DECK_MEDIA = {  # name in the deck -> file in FONTS
    "_noto-nastaliq-urdu-400.woff2": "noto-nastaliq-urdu-arabic-400-normal.woff2",
    "_noto-nastaliq-urdu-700.woff2": "noto-nastaliq-urdu-arabic-700-normal.woff2",
    "_noto-nastaliq-urdu-OFL.txt": "OFL.txt",
}


def media_entries() -> dict[str, bytes]:
    """The package's media as zip entries: files "0", "1", ... and the "media" index naming them.

    The layout genanki writes and Anki's importer reads; fixed order and JSON, so the same files
    always give the same bytes.
    """
    entries: dict[str, bytes] = {}
    index: dict[str, str] = {}
    for number, (name, source) in enumerate(DECK_MEDIA.items()):
        path = FONTS / source
        if not path.is_file():
            raise FileNotFoundError(f"{path}: the deck's media file {name} is made from it")
        entries[str(number)] = path.read_bytes()
        index[str(number)] = name
    return {"media": json.dumps(index, sort_keys=True).encode(), **entries}


# --- packing ----------------------------------------------------------------------------------


def _zip(entries: dict[str, bytes], timestamp: int) -> bytes:
    """A zip whose every byte depends only on the entries and the build time."""
    stamp = time.gmtime(max(int(timestamp), _ZIP_EPOCH))[:6]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in entries.items():
            info = zipfile.ZipInfo(name, date_time=stamp)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)
    return buffer.getvalue()
