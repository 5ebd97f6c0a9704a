"""``check`` judges mkdocs.yml's ``nav`` as the strict build does (tools/course/navigation.py): an
entry that names no file, and a page that no entry names, were found only by ``build``, after
``deck`` had written cards linking to a page the site never publishes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import ROOT
from mkdocs_course.course import check
from mkdocs_course.plugin.syntax import MKDOCS

FIXTURE = ROOT / "tests" / "fixtures" / "second-course"
FIRST = "lessons/01-finding-your-way.md"
LESSON = f"  - 1 · Finding your way: {FIRST}\n"
EXTRA = "docs/lessons/02-extra.md"
OUTSIDE = (
    f"{EXTRA}:1: no entry of mkdocs.yml's nav names this page, and the strict build refuses a "
    "page outside it: add it to nav (or its path to not_in_nav)"
)


def checked(course: Path) -> str:
    return check.report(check.load_checked_course(course, syntax=MKDOCS))


def second_course(tmp_path: Path, old: str = "", new: str = "") -> Path:
    """A copy of the second course, ``old`` replaced by ``new`` in its mkdocs.yml."""
    course = tmp_path / "course"
    shutil.copytree(FIXTURE, course)
    settings = course / "mkdocs.yml"
    settings.write_text(settings.read_text("utf-8").replace(old, new), "utf-8")
    return course


def line_of(course: Path, text: str) -> int:
    lines = (course / "mkdocs.yml").read_text("utf-8").splitlines()
    return next(n for n, line in enumerate(lines, 1) if text in line)


def test_a_nav_entry_to_a_missing_page_is_an_error_at_its_line(tmp_path: Path):
    missing = "  - 2 · Not written yet: lessons/02-missing.md\n"
    course = second_course(tmp_path, LESSON, LESSON + missing)
    assert checked(course) == (
        f"mkdocs.yml:{line_of(course, '02-missing')}: nav: 'lessons/02-missing.md': there is no "
        "page docs/lessons/02-missing.md"
    )


def test_addresses_and_existing_files_in_nav_are_not_judged(tmp_path: Path):
    """MkDocs links an address as it is (an absolute path only at its "info" level)."""
    more = "  - Elsewhere: https://example.org/\n  - Root: /somewhere/\n  - ./index.md\n"
    assert checked(second_course(tmp_path, LESSON, LESSON + more)) == ""


@pytest.mark.parametrize(
    ("entry", "environment", "missing"),
    [
        ("!ENV [COURSE_NAV_PAGE, lessons/01-finding-your-way.md]", {}, None),
        (
            "!ENV [COURSE_NAV_PAGE, lessons/01-finding-your-way.md]",
            {"COURSE_NAV_PAGE": "x.md"},
            "x.md",
        ),
        ("!ENV [COURSE_NAV_PAGE, lessons/02-missing.md]", {}, "lessons/02-missing.md"),
        ("!ENV COURSE_NAV_PAGE", {"COURSE_NAV_PAGE": "lessons/01-finding-your-way.md"}, None),
    ],
)
def test_a_nav_entry_read_from_the_environment_is_judged_by_the_path_mkdocs_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, entry, environment, missing
):
    """``!ENV [NAME, default]`` is the variable's value, or the default: never NAME itself."""
    monkeypatch.delenv("COURSE_NAV_PAGE", raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    course = second_course(tmp_path, LESSON, f"  - Read from the environment: {entry}\n")
    found = checked(course).splitlines()
    if missing is None:
        assert found == []
    else:
        line = line_of(course, "Read from the environment")
        assert found[0] == (
            f"mkdocs.yml:{line}: nav: '{missing}': there is no page docs/{missing}"
        ), found


WARN = "validation:\n  omitted_files: warn\n"


@pytest.mark.parametrize(
    ("settings", "reported"),
    [
        (WARN, OUTSIDE),
        ("validation:\n  nav:\n    omitted_files: warn\n", OUTSIDE),
        (WARN + "not_in_nav: |\n  lessons/02-extra.md\n", ""),
        (WARN + "not_in_nav: |\n  /lessons/*-extra.md\n", ""),
        (WARN + "exclude_docs: |\n  *-extra.md\n", ""),
        ("validation:\n  nav:\n    omitted_files: info\n", ""),
        ("", ""),
    ],
)
def test_a_page_outside_the_nav_is_an_error_where_the_build_refuses_it(
    tmp_path: Path, settings: str, reported: str
):
    """The first course sets validation.omitted_files to warn: its strict build refuses such a
    page, so deck must not make cards that link to it. MkDocs' own level is info, and its
    not_in_nav and exclude_docs patterns (gitignore's syntax) let a page pass, as they let the
    build pass."""
    course = second_course(tmp_path)
    with (course / "mkdocs.yml").open("a", encoding="utf-8") as file:
        file.write(settings)
    (course / EXTRA).write_text("# Extra\n\nWhat is extra? ::: A page outside the nav.\n")
    assert checked(course) == reported
