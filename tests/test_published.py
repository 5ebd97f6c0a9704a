"""Every file the site publishes from docs/ is checked: symlinks that leave docs/, files a browser
would run on the site's origin that the course does not list, and files git ignores."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from conftest import copy_course
from mkdocs_course.course import published
from test_build import run_check, run_cli


@pytest.fixture
def course(tmp_path: Path) -> Path:
    return copy_course(tmp_path)


def check_errors(root: Path) -> list[str]:
    result = run_check(root)
    assert result.returncode != 0, result.stdout
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()  # a quiz's cue warning fails nothing: not an error
    return [line for line in lines if line.startswith("docs/") and ": warning: " not in line]


def test_a_symlink_out_of_docs_is_an_error_naming_it(course):
    (course / "secret").write_text("token")
    os.symlink("../secret", course / "docs" / "leak.txt")
    os.symlink("../..", course / "docs" / "lessons" / "up")
    errors = check_errors(course)
    assert any(
        e.startswith("docs/leak.txt:1: a symlink to ../secret, outside docs/") for e in errors
    )
    assert any(e.startswith("docs/lessons/up:1: a symlink to ../..") for e in errors), errors


def test_a_symlink_inside_docs_is_fine(course):
    # Not a page (a page outside nav is refused on its own account: test_course_nav.py).
    os.symlink("index.md", course / "docs" / "same.txt")
    assert run_check(course).returncode == 0


@pytest.mark.parametrize(
    "name, body",
    [
        ("evil.html", "<script>alert(1)</script>"),
        (
            "assets/logo.svg",
            '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
        ),
        ("assets/extra.js", "alert(1)"),
        ("feed.XML", "<x/>"),
        ("assets/m.mjs", "alert(1)"),
    ],
)
def test_a_file_that_runs_in_the_browser_must_be_listed(course, name, body):
    (course / "docs" / name).parent.mkdir(exist_ok=True)
    (course / "docs" / name).write_text(body)
    errors = check_errors(course)
    assert [e.split(": ", 1)[0] for e in errors] == [f"docs/{name}:1"], errors
    assert "plugins.course.active_files" in errors[0]


@pytest.mark.parametrize(
    "css",
    [
        "@import url(https://e.org/a.css);",
        'p { background: url("//e.org/x.png") }',
        "p { background: \\75 rl(https://e.org/x.png) }",
        'p { background: image-set("https://e.org/x.png" 1x) }',
    ],
)
def test_a_style_sheet_that_loads_from_elsewhere_is_an_error_at_its_line(course, css):
    sheet = course / "docs" / "extra.css"
    sheet.write_text("p { margin: 0 }\n" + css + "\n")
    errors = check_errors(course)
    assert [e.split(": ", 1)[0] for e in errors] == ["docs/extra.css:2"], errors
    assert "from outside the site" in errors[0]


def test_the_course_publishes_no_script_of_its_own():
    """Its docs/ holds content only: the engine's scripts ship with the plugin
    (test_page_assets.py checks those the same way)."""
    from conftest import ROOT

    assert _listed(ROOT) == ()
    assert published.check(ROOT, "docs", ()) == []


def _listed(root: Path) -> tuple[str, ...]:
    from mkdocs_course.course import config as course_config

    return course_config.load(root).active_files


def test_git_ignored_files_under_docs_are_neither_published_nor_pages(course):
    subprocess.run(["git", "init", "-q"], cwd=course, check=True)
    (course / ".gitignore").write_text("docs/scratch*\n")
    (course / "docs" / "scratch.txt").write_text("local notes")
    (course / "docs" / "scratch-page.md").write_text("# Scratch\n\nLocal? ::: card\n")
    assert published.ignored(course, "docs") == {"scratch.txt", "scratch-page.md"}
    result = run_cli(course, "build")
    assert result.returncode == 0, result.stderr[-2000:]
    assert not (course / "site" / "scratch.txt").exists()
    assert not (course / "site" / "scratch-page.html").exists()
