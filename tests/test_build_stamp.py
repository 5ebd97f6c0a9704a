"""The no-op rebuild (tools/buildkit/stamp.py): skipped only when no input changed and the site
folder is as the last build left it; any other change builds."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from conftest import copy_course
from mkdocs_course import cli
from mkdocs_course.buildkit import buildinfo
from mkdocs_course.buildkit import stamp as build_stamp


def make(root: Path) -> tuple[Path, Path]:
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "index.md").write_text("# Home\n", "utf-8")
    (root / "mkdocs.yml").write_text("site_name: x\n", "utf-8")
    site = root / "site"
    site.mkdir()
    (site / "index.html").write_text("<h1>Home</h1>", "utf-8")
    return root, site


def stamp(root: Path, site: Path, *, strict: bool = False) -> str:
    return build_stamp.inputs_digest(root, site, strict_results=strict)


def recorded(root: Path, site: Path) -> str:
    digest = stamp(root, site)
    build_stamp.record(root, site, digest)
    assert build_stamp.up_to_date(root, site, digest)
    return digest


def test_an_edited_added_or_removed_source_is_a_new_build(tmp_path):
    root, site = make(tmp_path)
    before = recorded(root, site)
    (root / "docs" / "index.md").write_text("# Home!\n", "utf-8")
    edited = stamp(root, site)
    (root / "docs" / "new.md").write_text("# New\n", "utf-8")
    added = stamp(root, site)
    (root / "docs" / "new.md").unlink()
    assert len({before, edited, added, stamp(root, site)}) == 3  # removing it restores "edited"


def test_settings_engine_and_packages_are_inputs(tmp_path, monkeypatch):
    root, site = make(tmp_path)
    before = recorded(root, site)
    assert stamp(root, site, strict=True) != before
    assert stamp(root, tmp_path / "elsewhere") != before
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    assert stamp(root, site) != before
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    monkeypatch.setattr(buildinfo, "engine_digest", lambda: "other engine")
    assert stamp(root, site) != before
    monkeypatch.undo()
    monkeypatch.setattr(buildinfo, "installed_distributions", lambda: ["mkdocs-9.9.dist-info"])
    assert stamp(root, site) != before


def test_a_new_commit_is_a_new_build(tmp_path):
    root, site = make(tmp_path)
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}
    (root / ".gitignore").write_text("site/\n.cache/\n", "utf-8")
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "one"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True)
    before = recorded(root, site)
    (root / "site" / "extra.html").write_text("ignored by git: not a source", "utf-8")
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "two"], cwd=root, env=env)
    assert stamp(root, site) != before


def test_caches_and_staging_folders_are_never_inputs(tmp_path):
    root, site = make(tmp_path)  # no git, no .gitignore
    before = recorded(root, site)
    for folder in (".cache/build", ".cache/deck", ".site-abc123"):
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / "written.bin").write_bytes(b"by a build")
    assert stamp(root, site) == before


@pytest.mark.parametrize("change", ["edit", "add", "remove", "touch"])
def test_a_site_folder_changed_since_the_build_is_built_again(tmp_path, change):
    root, site = make(tmp_path)
    digest = recorded(root, site)
    page = site / "index.html"
    if change == "edit":
        page.write_text("<h1>Changed</h1>", "utf-8")
    elif change == "add":
        (site / "stray.html").write_text("", "utf-8")
    elif change == "remove":
        page.unlink()
    else:
        os.utime(page, ns=(0, 0))
    assert not build_stamp.up_to_date(root, site, digest)


def test_an_unreadable_record_builds(tmp_path):
    root, site = make(tmp_path)
    digest = recorded(root, site)
    (root / build_stamp.RECORD).write_text("{not json", "utf-8")
    assert not build_stamp.up_to_date(root, site, digest)


def test_a_no_op_rebuild_of_the_course_runs_nothing_and_keeps_the_site(tmp_path, monkeypatch):
    root = copy_course(tmp_path / "course")
    site = tmp_path / "site"
    cli.build_site(site, root=root)
    files = {p: p.stat().st_mtime_ns for p in site.rglob("*") if p.is_file()}

    def fail(*args, **kwargs):
        raise AssertionError("MkDocs ran for a site that was up to date")

    monkeypatch.setattr(cli.mkdocs_build, "build", fail)
    monkeypatch.setattr(cli, "_checked", fail)
    cli.build_site(site, root=root)
    assert {p: p.stat().st_mtime_ns for p in site.rglob("*") if p.is_file()} == files
    monkeypatch.undo()
    lesson = next((root / "docs" / "lessons").glob("*.md"))
    lesson.write_text(lesson.read_text("utf-8") + "\nOne more? ::: Yes\n", "utf-8")
    cli.build_site(site, root=root)
    assert any(p.stat().st_mtime_ns != t for p, t in files.items() if p.exists())


def test_an_atomic_write_that_fails_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    """The one writer of caches and decks (tools.buildkit.buildinfo.write_atomically)."""
    path = tmp_path / "cache" / "file.json"
    buildinfo.write_atomically(path, b"old")
    assert path.read_bytes() == b"old" and oct(path.stat().st_mode & 0o777) == "0o644"

    def broken(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(buildinfo.os, "replace", broken)
    with pytest.raises(OSError, match="disk full"):
        buildinfo.write_atomically(path, b"new", durable=True)
    assert path.read_bytes() == b"old"
    assert [p.name for p in path.parent.iterdir()] == ["file.json"]


def test_outside_git_the_newest_of_the_courses_own_sources_dates_it(tmp_path, monkeypatch):
    """A course unpacked from a tarball is dated by the newest file of its settings, its docs
    folder and its note templates, wherever its settings put them; a folder of another name
    (here an old ``docs/`` and ``deck/``) does not count."""
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    files = {
        "mkdocs.yml": 1_000,
        "pages/index.md": 2_000,
        "pages/img/a.png": 3_000,
        "cards/basic.html": 4_000,
        "docs/old.md": 9_000,
        "deck/old.html": 9_500,
    }
    for name, when in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x", "utf-8")
        os.utime(tmp_path / name, (when, when))
    sources = ("mkdocs.yml", "pages", "cards")
    assert buildinfo.source_date_epoch(tmp_path, sources) == 4_000
    os.utime(tmp_path / "mkdocs.yml", (5_000, 5_000))
    assert buildinfo.source_date_epoch(tmp_path, sources) == 5_000
    assert buildinfo.source_date_epoch(tmp_path, ("absent",)) == 0
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "123")
    assert buildinfo.source_date_epoch(tmp_path, sources) == 123
