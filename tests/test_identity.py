"""A changed guid_namespace or note_type_ids is a check error unless a migration says so."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from conftest import with_course_settings
from mkdocs_course.course.parser import parse_course
from mkdocs_course.plugin.syntax import MKDOCS


def git(root: Path, *args: str) -> None:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@e", "PATH": "/usr/bin:/bin"}  # fmt: skip
    subprocess.run(["git", *args], cwd=root, check=True, env=env, capture_output=True)


@pytest.fixture
def course(tmp_path: Path) -> Path:
    with_course_settings(tmp_path)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n\nQ? ::: A\n")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "first release")
    return tmp_path


def errors(root: Path) -> list[str]:
    return [str(e) for e in parse_course(root, syntax=MKDOCS).errors]


def edit(root: Path, pattern: str, replacement: str) -> None:
    path = root / "mkdocs.yml"
    text, n = re.subn(pattern, replacement, path.read_text(), flags=re.M)
    assert n == 1
    path.write_text(text)


@pytest.mark.parametrize(
    "pattern, replacement, key",
    [
        (r"^(\s*guid_namespace:).*$", r"\1 another-name", "guid_namespace"),
        (r"(basic: )\d+", r"\g<1>42", "note_type_ids"),
    ],
)
def test_a_changed_identity_is_an_error_at_its_line(course, pattern, replacement, key):
    assert errors(course) == []
    edit(course, pattern, replacement)
    line = next(
        n
        for n, row in enumerate((course / "mkdocs.yml").read_text().splitlines(), 1)
        if row.strip().startswith(f"{key}:")
    )
    found = errors(course)
    assert found and found[0].startswith(f"mkdocs.yml:{line}: plugins.course.{key} is "), found
    git(course, "commit", "-qam", "committed, still an error")
    assert errors(course) == found


def test_an_explicit_migration_allows_the_change(course):
    edit(course, r"^(\s*guid_namespace:) (.*)$", r"\1 another-name")
    old = "contributing-to-open-source-ml"
    ids = re.search(r"note_type_ids: (\{.*\})", (course / "mkdocs.yml").read_text()).group(1)
    edit(
        course,
        r"^(\s*)(languages:.*)$",
        rf"\1\2\n\1identity_migration:\n\1  from: {{guid_namespace: {old}, note_type_ids: {ids}}}"
        rf"\n\1  reason: the course was split in two",
    )
    assert errors(course) == []
    edit(course, r"^(\s*reason:).*$", r"\1 ''")  # a migration without a reason is not one
    assert errors(course) != []
