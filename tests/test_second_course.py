"""A second course reuses the engine: tests/fixtures/second-course has only a mkdocs.yml and docs/.

It is built with the same ``tools/`` (``python -m tools.cli build --course DIR``), and its deck is
imported into one Anki collection together with this course's: its own deck name, note types and
GUIDs, so neither course touches the other's notes.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import deck_query

from tools.anki import deck
from tools.build.buildinfo import ROOT
from tools.course import config as course_config
from tools.course import notes as course_notes
from tools.course.parser import parse_course
from tools.plugin.syntax import MKDOCS

FIXTURE = ROOT / "tests" / "fixtures" / "second-course"
SECOND = course_config.load(FIXTURE)
FIRST = course_config.load(ROOT)


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tools.cli", *args], cwd=ROOT, capture_output=True, text=True
    )


@pytest.fixture(scope="module")
def second_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    course = tmp_path_factory.mktemp("second") / "course"
    # The fixture names the hook by a path relative to its mkdocs.yml: keep that path valid.
    shutil.copytree(FIXTURE, course)
    text = (course / "mkdocs.yml").read_text("utf-8")
    hook = (ROOT / "tools" / "site" / "hook.py").as_posix()
    (course / "mkdocs.yml").write_text(text.replace("../../../tools/plugin/hook.py", hook))
    result = run_cli("build", "--course", str(course))
    assert result.returncode == 0, result.stdout + result.stderr
    return course / "site"


def notes(apkg: Path) -> list[tuple]:
    """``(guid, note type id, tags)`` of every note in a deck file."""
    return deck_query(apkg, "select guid, mid, tags from notes order by id")


def test_the_settings_are_the_second_courses_own():
    assert SECOND.deck_name == "Reading Other People's Code"
    assert SECOND.guid_namespace != FIRST.guid_namespace
    assert set(SECOND.note_type_ids.values()).isdisjoint(FIRST.note_type_ids.values())
    assert SECOND.languages == ("en",)


def test_the_second_course_builds_with_its_own_pages_and_deck(second_site: Path):
    lesson = (second_site / "lessons" / "01-finding-your-way.html").read_text("utf-8")
    assert 'class="flashcard"' in lesson and 'class="quiz"' in lesson
    assert "<math" in lesson  # the quiz's $O(n)$, as MathML
    assert "Reading Other People" in (second_site / "index.html").read_text("utf-8")
    assert not (second_site / "assets" / "review").exists()  # it has no review page
    apkg = second_site / SECOND.deck_file
    course = parse_course(FIXTURE, syntax=MKDOCS)
    expected = [item.guid for item in course_notes.note_items(course)]
    found = notes(apkg)
    assert [guid for guid, _, _ in found] == expected
    assert {mid for _, mid, _ in found} == set(SECOND.note_type_ids.values())


def test_guids_come_from_the_courses_namespace():
    course = parse_course(FIXTURE, syntax=MKDOCS)
    card = course.cards[0]
    mine = course_notes.note_guid(card, namespace=SECOND.guid_namespace)
    theirs = course_notes.note_guid(card, namespace=FIRST.guid_namespace)
    assert next(item.guid for item in course_notes.note_items(course)) == mine != theirs


def test_both_courses_live_in_one_anki_collection(second_site: Path, tmp_path: Path):
    collection = pytest.importorskip("anki.collection", reason="the anki package is not installed")
    first = tmp_path / "first.apkg"
    deck.write_deck(parse_course(ROOT, syntax=MKDOCS), first, timestamp=1_700_000_000)
    col = collection.Collection(str(tmp_path / "collection.anki2"))
    try:
        for apkg in (first, second_site / SECOND.deck_file):
            request = collection.ImportAnkiPackageRequest(
                package_path=str(apkg),
                options=collection.ImportAnkiPackageOptions(with_scheduling=False),
            )
            col.import_anki_package(request)
        assert col.note_count() == len(notes(first)) + len(notes(second_site / SECOND.deck_file))
        tops = {name.split("::")[0] for name in col.decks.all_names()}
        assert {FIRST.deck_name, SECOND.deck_name} <= tops
    finally:
        col.close()


def test_a_course_without_settings_is_refused_with_the_file_named(tmp_path: Path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n", "utf-8")
    (tmp_path / "mkdocs.yml").write_text("site_name: Nameless\n", "utf-8")
    result = run_cli("check", "--course", str(tmp_path))
    assert result.returncode == 1
    assert "mkdocs.yml:1: no 'extra: course:' settings" in result.stderr


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("guid_namespace: Has Spaces", "extra.course.guid_namespace 'Has Spaces'"),
        ("deck_file: ../outside.apkg", "must stay inside the site"),
        ("note_type_ids: {basic: 5, choice: 5}", "each note type needs its own id"),
        ("languages: [en, fr]", "extra.course.languages: ['fr'] unknown"),
    ],
)
def test_bad_settings_name_file_line_and_key(tmp_path: Path, setting: str, message: str):
    shutil.copytree(FIXTURE / "docs", tmp_path / "docs")
    text = (FIXTURE / "mkdocs.yml").read_text("utf-8")
    key = setting.split(":")[0]
    lines = [
        f"    {setting}" if line.strip().startswith(key + ":") else line
        for line in text.splitlines()
    ]
    (tmp_path / "mkdocs.yml").write_text("\n".join(lines) + "\n", "utf-8")
    result = run_cli("check", "--course", str(tmp_path))
    assert result.returncode == 1
    line = next(n for n, row in enumerate(lines, 1) if row.strip().startswith(key + ":"))
    assert f"mkdocs.yml:{line}: " in result.stderr and message in result.stderr


def test_the_deck_command_writes_the_second_courses_deck(tmp_path: Path):
    course = tmp_path / "course"
    shutil.copytree(FIXTURE, course)
    out = tmp_path / "second.apkg"
    result = run_cli("deck", "--course", str(course), "-o", str(out))
    assert result.returncode == 0, result.stderr
    expected = [item.guid for item in course_notes.note_items(parse_course(course, syntax=MKDOCS))]
    assert [guid for guid, _, _ in notes(out)] == expected
    names = deck_query(out, "select decks from col")[0][0]
    assert SECOND.deck_name in names and FIRST.deck_name not in names
