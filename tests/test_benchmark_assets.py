"""A course's benchmark may declare page assets of its own (``assets`` of its entry): checked
with the other settings, served at ``assets/``, and loaded only on the pages holding the element
each drives (tools/benchmarks/registry.py, tools/plugin/assets.py). Shown on a copy of the second
course (tests/fixtures/second-course/), which declares none itself.

The page-only links are written by the first course's ``overrides/main.html`` (the template that
puts the hook's lists into a page's head): the copy that shows them gets that template too."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import page_scripts
from mkdocs_course.buildkit.buildinfo import ROOT

FIXTURE = ROOT / "tests" / "fixtures" / "second-course"
LESSON = "lessons/01-finding-your-way.html"  # its benchmark's table
ANCHOR = "          views: reading.views:VIEWS\n"


def _course(course: Path, *assets: str, template: bool = False) -> Path:
    """A copy of the second course whose benchmark declares ``assets`` (YAML flow mappings),
    with the first course's page template when ``template``."""
    shutil.copytree(FIXTURE, course, ignore=shutil.ignore_patterns("__pycache__"))
    listed = "".join(f"            - {asset}\n" for asset in assets)
    text = (course / "mkdocs.yml").read_text("utf-8")
    assert ANCHOR in text
    text = text.replace(ANCHOR, f"{ANCHOR}          assets:\n{listed}")
    if template:
        (course / "overrides").mkdir()
        shutil.copy(ROOT / "overrides" / "main.html", course / "overrides" / "main.html")
        theme = "  name: material\n"
        assert theme in text
        text = text.replace(theme, f"{theme}  custom_dir: overrides\n")
    (course / "mkdocs.yml").write_text(text, "utf-8")
    return course


def _build(course: Path, site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "-q", "-d", str(site)],
        cwd=course, capture_output=True, text=True,
    )  # fmt: skip


def _check(course: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs_course.cli", "check", "--course", str(course)],
        cwd=ROOT, capture_output=True, text=True,
    )  # fmt: skip


def _line(course: Path, text: str) -> int:
    lines = (course / "mkdocs.yml").read_text("utf-8").splitlines()
    return next(n for n, row in enumerate(lines, 1) if row.strip() == text)


def test_a_missing_asset_file_names_the_setting_and_the_file(tmp_path: Path):
    course = _course(tmp_path / "course", "{file: reading/missing.js, drives: table}")
    message = "plugins.course.benchmarks.search.assets: 'reading/missing.js': no such file"
    checked = _check(course)
    assert checked.returncode == 1
    assert f"mkdocs.yml:{_line(course, 'assets:')}: {message}" in checked.stderr, checked.stderr
    built = _build(course, tmp_path / "site")
    assert built.returncode == 1 and message in built.stderr, built.stderr
    assert not (tmp_path / "site").exists()


def test_a_misshapen_asset_is_mkdocs_own_config_error_and_checks(tmp_path: Path):
    course = _course(tmp_path / "course", "{file: reading/views.py, drives: table}")
    problem = "search: assets[0].file: 'reading/views.py' must be a .css or .js file"
    built = _build(course, tmp_path / "site")
    assert built.returncode == 1, built.stderr
    assert f"Plugin 'course' option 'benchmarks': {problem}" in built.stderr, built.stderr
    checked = _check(course)
    assert checked.returncode == 1 and f"plugins.course.benchmarks: {problem}" in checked.stderr


def test_declared_assets_are_served_and_load_only_on_the_pages_holding_their_element(
    tmp_path: Path,
):
    course = _course(
        tmp_path / "course",
        "{file: reading/search.css, drives: table}",
        "{file: reading/search.js, drives: table}",
        template=True,
    )
    (course / "reading" / "search.css").write_text("table { font-variant: tabular-nums; }\n")
    (course / "reading" / "search.js").write_text('"use strict";\n')
    site = tmp_path / "site"
    built = _build(course, site)
    assert built.returncode == 0, built.stderr
    for name in ("search.css", "search.js"):
        assert (site / "assets" / name).read_bytes() == (course / "reading" / name).read_bytes()
    lesson = (site / LESSON).read_text("utf-8")
    assert "<table" in lesson
    head = lesson.split("</head>")[0]
    assert '<link rel="stylesheet" href="../assets/search.css">' in head
    assert "assets/search.js" in page_scripts(head)
    assert not re.search(r"<script\b[^>]*assets/search\.js", lesson)  # startup.js runs it
    index = (site / "index.html").read_text("utf-8")
    assert "<table" not in index and "assets/search." not in index
