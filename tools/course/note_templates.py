"""The deck's note templates, read as Anki reads them, so a mistake is ``check``'s error at its
line rather than a traceback in ``deck`` or an error on every card in a learner's Anki.

A template is HTML with Anki's tags (``rslib/src/template.rs`` in Anki's source): ``{{Field}}``,
``{{filter:Field}}`` (filters such as ``text:``, ``type:``, ``cloze:``, ``hint:``, and
``{{tts en_US:}}``, a filter with no field), the sections ``{{#Field}}`` and ``{{^Field}}``
closed by ``{{/Field}}``, and ``<!-- -->`` comments, whose text Anki leaves alone. A tag names
one of the note type's fields (:data:`~tools.course.config.NOTE_FIELDS`) or one Anki adds;
Anki shows an unknown field or a section left open as an error on every card
(``tests/test_note_templates.py`` holds the check to Anki's own renderer). genanki reads the
front templates with a Mustache parser of its own (chevron) to work out which fields a card
needs, and stops the deck where Anki does not: at a ``{{`` that is never closed, at a section
that a comment opens or closes, and at ``{{ #Field}}``, a section to Anki and a field to chevron.
Those are errors here too. The stylesheet only has to be UTF-8.
"""

from __future__ import annotations

import re
from pathlib import Path

from .config import DECK_TEMPLATES, NOTE_FIELDS
from .model import CourseError, Location
from .parser import decode

# Fields Anki adds to every note's own (notetype/render.rs): names a tag may use. FrontSide is
# the question side, shown in place of a tag; a section cannot test it.
_ANKI_FIELDS = ("Card", "CardFlag", "CardID", "Deck", "Subdeck", "Tags", "Type")
_FRONT_SIDE = "FrontSide"
_CARD_NUMBER = "c1"  # Anki's field of the card's number: each note type has one card
_CLOZE_SECTION = re.compile(r"c\d+")  # {{#c2}}: whether the card is cloze 2 (any number)
# Anki's legacy syntax: a template that starts with it writes <% %> for {{ }}.
_LEGACY = "{{=<% %>=}}"
_TOKENS = {  # a tag, or a comment (tried second, as Anki does at each position)
    "{{": re.compile(r"\{\{(.*?)\}\}|<!--(.*?)-->", re.S),
    "<%": re.compile(r"<%(.*?)%>|<!--(.*?)-->", re.S),
}


def problems(root: Path, folder: str) -> list[CourseError]:
    """Every problem of the note templates in ``root/folder`` (the ``deck_templates`` setting,
    whose files :func:`tools.course.config.load` has found), each at its file and line."""
    found = []
    for name in DECK_TEMPLATES:
        path = f"{folder}/{name}"
        try:
            data = (root / folder / name).read_bytes()
        except OSError as exc:
            found.append(CourseError(Location(path, 1), f"cannot read: {exc.strerror}"))
            continue
        text, error = decode(path, data)
        if error:
            found.append(error)
        elif name.endswith(".html"):
            found += template_problems(path, text, NOTE_FIELDS[name.split(".")[0]])
    return found


def template_problems(path: str, text: str, fields: tuple[str, ...]) -> list[CourseError]:
    """What Anki or genanki refuses in one template (``path`` names it) of a note type with
    ``fields``."""
    start = len(text) - len(text.lstrip())
    opening, closing = ("<%", "%>") if text.startswith(_LEGACY, start) else ("{{", "}}")
    while text.startswith(_LEGACY, start):  # Anki takes it off as often as it is there
        start += len(_LEGACY)
    tested = (*fields, *_ANKI_FIELDS)  # what a section may test; a tag may also show FrontSide
    found: list[CourseError] = []

    def error(position: int, message: str) -> None:
        found.append(CourseError(Location(path, text.count("\n", 0, position) + 1), message))

    def unclosed(end: int) -> None:
        """A tag's opening in the text up to ``end``, with nothing after it to close it."""
        position = text.find(opening, start, end)
        if position >= 0:
            error(position, f"{opening!r} with no {closing!r} after it to close the tag")

    sections: list[tuple[str, int]] = []  # each open section as written, and its position
    for token in _TOKENS[opening].finditer(text, start):
        unclosed(token.start())
        start = token.end()
        tag, comment = token.groups()
        if comment is not None:
            if opening in comment:
                error(
                    token.start() + len("<!--") + comment.index(opening),
                    "a tag inside an HTML comment: Anki skips it, genanki reads it; remove it",
                )
            continue
        inner = tag.lstrip("{").strip()
        kind = inner[0] if len(inner) > 1 and inner[0] in "#^/" else ""
        key = inner[1:].lstrip() if kind else inner
        if kind and not tag.startswith(kind):
            error(
                token.start(),
                f"write {{{{{kind}{key}}}}} with {kind!r} right after {opening!r}: genanki reads "
                f"{opening}{tag}{closing} as a field, Anki as a section",
            )
        if kind == "/":
            if not sections or sections[-1][0][1:] != key:
                shown = f" ({{{{{sections[-1][0]}}}}} is open)" if sections else ""
                error(token.start(), f"{{{{/{key}}}}} closes no open section{shown}")
            opened = [section[1:] for section, _ in sections]
            if key in opened:  # the sections inside it end with it: said once, just above
                del sections[len(opened) - 1 - opened[::-1].index(key) :]
        elif kind:
            sections.append((kind + key, token.start()))
            if key not in tested and not _CLOZE_SECTION.fullmatch(key):
                error(
                    token.start(),
                    f"{{{{{kind}{key}}}}}: no field {key!r} to test (a section tests one of: "
                    f"{', '.join(tested)})",
                )
        else:
            field = key.rpartition(":")[2]
            if field not in (*tested, _FRONT_SIDE, _CARD_NUMBER) and not (":" in key and not field):
                error(
                    token.start(),
                    f"{{{{{key}}}}}: no field {field!r} (the note type has {', '.join(fields)}; "
                    f"Anki adds {_FRONT_SIDE}, {', '.join(_ANKI_FIELDS)})",
                )
    unclosed(len(text))
    for section, position in sections:
        error(
            position,
            f"{{{{{section}}}}} is never closed: end the section with {{{{/{section[1:]}}}}}",
        )
    return found
