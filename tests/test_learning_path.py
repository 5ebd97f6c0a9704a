"""The home page's learning path is made from ``nav``: every entry a step, in nav's order, with
the time its page gives; a page that gives none, or a section that is not there, stops the build
with the page's name."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from mkdocs_course.buildkit.buildinfo import ROOT
from mkdocs_course.plugin import learning_path

NAV = [
    {"Home": "index.md"},
    {
        "Path": [
            {"1 · One": "lessons/01-one.md"},
            {"Quiz | English": "quizzes/q-en.md"},
            {"Quiz (اردو)": "quizzes/q-ur.md"},
            {"2 · Two": "lessons/02-two.md"},
        ]
    },
]


def docs(tmp_path: Path, **times: str) -> Path:
    for file, text in {
        "lessons/01-one.md": "# One\n\n**Time:** about 30 minutes: 10 reading.\n",
        "quizzes/q-en.md": "# Quiz\n\nAbout 10 minutes.\n",
        "quizzes/q-ur.md": "# کوئز\n",
        "lessons/02-two.md": "# Two\n\n**Time:** about 45 minutes.\n",
        **times,
    }.items():
        (tmp_path / file).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / file).write_text(text, "utf-8")
    return tmp_path


def test_each_nav_entry_is_a_step_in_order_with_its_pages_time(tmp_path: Path):
    page = "# Home\n\n<!-- learning path: Path -->\n\nAfter.\n"
    out = learning_path.fill(page, page="index.md", nav=NAV, docs=docs(tmp_path))
    assert out.splitlines()[2:8] == [
        "| Step | Page | Time |",
        "| --- | --- | --- |",
        "| 1 | [1 · One](lessons/01-one.md) | 30 min |",
        # Language versions of one page are one step; a pipe in a title stays in its cell.
        r"| 2 | [Quiz \| English](quizzes/q-en.md) · [Quiz (اردو)](quizzes/q-ur.md) | 10 min |",
        "| 3 | [2 · Two](lessons/02-two.md) | 45 min |",
        "",
    ]
    assert out.endswith("\nAfter.\n")


def test_a_page_without_its_time_or_a_missing_section_is_an_error(tmp_path: Path):
    folder = docs(tmp_path, **{"lessons/02-two.md": "# Two\n"})
    with pytest.raises(learning_path.PathError, match=r"lessons/02-two\.md: .*'about N minutes'"):
        learning_path.fill("<!-- learning path: Path -->", page="index.md", nav=NAV, docs=folder)
    with pytest.raises(learning_path.PathError, match="nav has no section 'Lessons'"):
        learning_path.fill("<!-- learning path: Lessons -->", page="index.md", nav=NAV, docs=folder)


def test_the_home_page_asks_for_the_nav_section_that_holds_every_lesson():
    """The course's own home page: its path is nav's "Learning path", which lists every lesson."""
    home = (ROOT / "docs" / "index.md").read_text("utf-8")
    (section,) = learning_path.MARKER.findall(home)
    nav = yaml.safe_load((ROOT / "mkdocs.yml").read_text("utf-8"))["nav"]
    files = [file for step in learning_path.steps(section, nav) for _, file in step]
    lessons = sorted(
        p.relative_to(ROOT / "docs").as_posix() for p in ROOT.glob("docs/lessons/*.md")
    )
    assert sorted(f for f in files if f.startswith("lessons/")) == lessons
    out = learning_path.fill(home, page="index.md", nav=nav, docs=ROOT / "docs")
    assert all(f"]({file})" in out for file in files)
