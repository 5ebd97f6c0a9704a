"""The note templates are checked as Anki reads them (tools/course/note_templates.py): a section
left open, a field the note type lacks or a file that is not UTF-8 is ``check``'s error at the
template's line, not a traceback from ``deck`` or an error on every card in Anki."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT
from mkdocs_course.anki import deck
from mkdocs_course.course import check
from mkdocs_course.course import config as course_config
from mkdocs_course.course.note_templates import template_problems
from mkdocs_course.plugin.syntax import MKDOCS

FIXTURE = ROOT / "tests" / "fixtures" / "second-course"
FIELDS = course_config.NOTE_FIELDS["basic"]
ANKI = "Anki adds FrontSide, Card, CardFlag, CardID, Deck, Subdeck, Tags, Type"


def checked(course: Path) -> str:
    return check.report(check.load_checked_course(course, syntax=MKDOCS))


@pytest.fixture
def course(tmp_path: Path) -> Path:
    root = tmp_path / "course"
    shutil.copytree(FIXTURE, root)
    return root


def append(path: Path, data: bytes) -> int:
    """Append ``data`` to the file; the line it starts on."""
    old = path.read_bytes()
    path.write_bytes(old + data)
    return old.count(b"\n") + 1


@pytest.mark.parametrize(
    ("file", "added", "message"),
    [
        ("basic.front.html", b"{{#Front}} unclosed\n",
         "{{#Front}} is never closed: end the section with {{/Front}}"),
        ("basic.front.html", b"{{NoSuchField}}\n",
         f"{{{{NoSuchField}}}}: no field 'NoSuchField' (the note type has Front, Back, Source, "
         f"Extra; {ANKI})"),
        ("choice.back.html", b"{{Front}}\n",
         "{{Front}}: no field 'Front' (the note type has Question, Options, Answer, Explanation, "
         f"Source; {ANKI})"),
        ("cards.css", b"\xff\xfe", "not UTF-8 (byte 0xff); save it as UTF-8"),
        ("basic.back.html", b"caf\xe9\n", "not UTF-8 (byte 0xe9); save it as UTF-8"),
    ],
)  # fmt: skip
def test_a_broken_template_is_an_error_at_its_line(course, file, added, message):
    """Each was passed by check: then a chevron or UnicodeDecodeError traceback from deck, the
    whole stylesheet's repr from build, or (the unknown field) an error on every card in Anki."""
    line = append(course / "note-templates" / file, added)
    assert checked(course) == f"note-templates/{file}:{line}: {message}"


def test_deck_reports_a_section_left_open_instead_of_a_traceback(course, tmp_path):
    """deck writes notes while the pages parse: the templates are judged before it starts (a
    section left open stopped genanki's chevron with a traceback)."""
    line = append(course / "note-templates" / "basic.front.html", b"{{#Front}} unclosed\n")
    out = tmp_path / "deck.apkg"
    command = ["deck", "--course", str(course), "-o", str(out)]
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs_course.cli", *command], capture_output=True, text=True
    )
    assert (result.returncode, result.stderr) == (
        1,
        f"note-templates/basic.front.html:{line}: {{{{#Front}}}} is never closed: end the section "
        "with {{/Front}}\n1 problem(s); nothing was written.\n",
    )
    assert not out.exists()


def test_every_template_problem_is_reported_in_one_run(course):
    front = append(course / "note-templates" / "basic.front.html", b"{{#Extra}}\n")
    css = append(course / "note-templates" / "cards.css", b"\xff\n")
    assert checked(course).splitlines() == [
        f"note-templates/basic.front.html:{front}: {{{{#Extra}}}} is never closed: end the "
        "section with {{/Extra}}",
        f"note-templates/cards.css:{css}: not UTF-8 (byte 0xff); save it as UTF-8",
    ]


@pytest.mark.parametrize(
    ("template", "line", "message"),
    [
        ("a\n{{/Front}}", 2, "{{/Front}} closes no open section"),
        ("{{#Back}}\n{{^Front}}\n{{/Back}}", 3,
         "{{/Back}} closes no open section ({{^Front}} is open)"),
        ("{{#Nope}}{{/Nope}}", 1,
         "{{#Nope}}: no field 'Nope' to test (a section tests one of: Front, Back, Source, Extra, "
         "Card, CardFlag, CardID, Deck, Subdeck, Tags, Type)"),
        ("{{#FrontSide}}{{/FrontSide}}", 1,
         "{{#FrontSide}}: no field 'FrontSide' to test (a section tests one of: Front, Back, "
         "Source, Extra, Card, CardFlag, CardID, Deck, Subdeck, Tags, Type)"),
        ("{{text: Front}}", 1,
         f"{{{{text: Front}}}}: no field ' Front' (the note type has Front, Back, Source, Extra; "
         f"{ANKI})"),
        ("<p>\n{{Front</p>", 2, "'{{' with no '}}' after it to close the tag"),
        ("<!--\n{{#Back}} -->{{Front}}", 2,
         "a tag inside an HTML comment: Anki skips it, genanki reads it; remove it"),
        ("{{ #Back }}{{/Back}}", 1,
         "write {{#Back}} with '#' right after '{{': genanki reads {{ #Back }} as a field, Anki "
         "as a section"),
    ],
)  # fmt: skip
def test_each_problem_names_its_line(template, line, message):
    assert [str(e) for e in template_problems("t.html", template, FIELDS)] == [
        f"t.html:{line}: {message}"
    ]


# Templates Anki renders without an error: its filters, its own fields, a filter without a field,
# the three-brace form, comments, the legacy <% %> syntax.
VALID = [
    "{{Front}}{{#Back}}<b>{{Back}}</b>{{/Back}}{{^Extra}}none{{/Extra}}",
    "{{text:Front}} {{type:Back}} {{hint:Extra}} {{cloze:Source}} {{tts en_US:}} {{furigana:Back}}",
    "{{FrontSide}}<hr id=answer>{{Tags}} {{Deck}} {{Subdeck}} {{Card}} {{CardFlag}} {{Type}}",
    "{{{Front}}} {{ Back }} {{#Extra }}x{{/ Extra}} {{#c2}}{{c1}}{{/c2}} {{#Tags}}{{/Tags}}",
    "<!-- a note for the template's authors --> }} {Front}",
    "{{=<% %>=}}<%Front%><%#Back%><%Back%><%/Back%> {{NotATag",
]
INVALID = [
    "{{#Front}}",
    "{{/Front}}",
    "{{#Front}}{{#Back}}{{/Front}}{{/Back}}",
    "{{Nope}}",
    "{{text:Nope}}",
    "{{}}",
    "{{#FrontSide}}{{/FrontSide}}",
    "{{#Nope}}{{/Nope}}",
    "{{c2}}",
    "{{#Front}}<!-- {{/Front}} -->",
]


@pytest.mark.parametrize("template", VALID + INVALID)
def test_the_check_agrees_with_anki(tmp_path: Path, template: str):
    """Anki's own renderer (the anki package) shows an error for exactly the templates the
    check refuses, leaving out what only genanki refuses."""
    collection = pytest.importorskip("anki.collection", reason="the anki package is not installed")
    from anki.template import TemplateRenderContext

    col = collection.Collection(str(tmp_path / "collection.anki2"))
    try:
        notetype = col.models.new("T")
        for field in FIELDS:
            col.models.add_field(notetype, col.models.new_field(field))
        card = col.models.new_template("Card")
        card["qfmt"], card["afmt"] = "{{Front}}", "{{Back}}"  # Anki refuses to store a bad one
        col.models.add_template(notetype, card)
        col.models.add(notetype)
        notetype = col.models.by_name("T")
        note = col.new_note(notetype)
        note["Front"] = "front"
        card = {**notetype["tmpls"][0], "qfmt": template, "afmt": template}
        shown = TemplateRenderContext(
            col,
            note.ephemeral_card(custom_note_type=notetype, custom_template=card),
            note,
            notetype=notetype,
            template=card,
        ).render()
    finally:
        col.close()
    refused = "template has a problem" in shown.question_text
    assert refused == (template in INVALID) == bool(template_problems("t", template, FIELDS))


@pytest.mark.parametrize("template", VALID)
def test_genanki_makes_a_deck_of_every_template_the_check_passes(template: str):
    """genanki reads the front with chevron (a Mustache parser) to find the fields a card needs;
    a template the check passes never stops it."""
    config = course_config.load(FIXTURE)
    templates = {**deck.templates(FIXTURE, config), "basic.front.html": template}
    for model in deck.note_models(config, templates).values():
        assert model._req  # chevron has read the front
