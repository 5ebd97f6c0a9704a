"""Bad input fails the build with a message naming the file, and never loses what was built.

Each test copies the course into a temporary folder, breaks one thing, runs the real CLI there
and checks both the message and that the previously built ``site/`` survived.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tools.buildinfo import ROOT

COPIED = [
    "docs",
    "snippets",
    "tools",
    "deck",
    "overrides",
    "mkdocs.yml",
    "pyproject.toml",
    ".cache",
]

pytestmark = pytest.mark.slow


@pytest.fixture
def course_copy(tmp_path: Path) -> Path:
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
        elif source.exists():
            shutil.copy2(source, tmp_path / name)
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "built-before.txt").write_text("keep me")
    return tmp_path


def run_cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tools.cli", *args],
        cwd=root,
        capture_output=True,
        text=True,
        env={**_env(), "SOURCE_DATE_EPOCH": "1767225600"},
    )


def _env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k != "COURSE_STRICT_RESULTS"}


def lesson(root: Path) -> Path:
    return sorted((root / "docs" / "lessons").glob("*.md"))[0]


def append(path: Path, text: str) -> int:
    """Append text to a page and return the 1-based line number where it starts."""
    before = path.read_text("utf-8")
    path.write_text(before.rstrip("\n") + "\n\n" + text + "\n", "utf-8")
    return before.rstrip("\n").count("\n") + 3


def assert_site_kept(root: Path) -> None:
    assert (root / "site" / "built-before.txt").read_text() == "keep me"


def test_bad_flashcard_is_reported_with_file_and_line_and_nothing_is_written(course_copy):
    page = lesson(course_copy)
    line = append(page, "Question ::: answer ::: more")
    deck = course_copy / "build" / "deck.apkg"
    deck.parent.mkdir()
    deck.write_bytes(b"previous deck")

    for args in (["check"], ["deck", "-o", str(deck)], ["build"]):
        result = run_cli(course_copy, *args)
        assert result.returncode != 0, args
        assert f"{page.relative_to(course_copy).as_posix()}:{line}:" in result.stderr, args
    assert deck.read_bytes() == b"previous deck"
    assert_site_kept(course_copy)


def test_broken_link_fails_the_build_naming_the_page(course_copy):
    page = lesson(course_copy)
    append(page, "See [the missing page](no-such-page.md).")
    result = run_cli(course_copy, "build")
    assert result.returncode != 0
    assert page.name in result.stdout + result.stderr
    assert "no-such-page.md" in result.stdout + result.stderr
    assert_site_kept(course_copy)


def test_missing_snippet_fails_the_build_naming_the_file(course_copy):
    append(lesson(course_copy), '```python\n--8<-- "snippets/no_such_snippet.py:part"\n```')
    result = run_cli(course_copy, "build")
    assert result.returncode != 0
    assert "no_such_snippet.py" in result.stdout + result.stderr
    assert_site_kept(course_copy)


def test_failing_notebook_cell_fails_the_build(course_copy):
    notebook = course_copy / "docs" / "lab" / "checkpointing-lab.py"
    notebook.write_text(
        notebook.read_text("utf-8") + '\n# %%\nraise RuntimeError("lab cell broke")\n', "utf-8"
    )
    result = run_cli(course_copy, "build")
    assert result.returncode != 0
    assert "lab cell broke" in result.stdout + result.stderr
    assert_site_kept(course_copy)
