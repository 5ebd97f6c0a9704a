"""The practice as the site offers it: a deterministic zip that starts without the course.

The zip is unpacked into ``tmp_path`` and run by a Python whose path holds nothing of this
repository, so a learner with only the published site gets the same workspace.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

from snippets.practice import bundle, steps
from snippets.practice.cli import main

LESSONS = Path(__file__).resolve().parent.parent / "docs" / "lessons"


def test_the_zip_is_the_same_bytes_every_time():
    assert bundle.zip_bytes() == bundle.zip_bytes()


def test_the_zip_holds_the_checker_the_bundle_and_the_issues_but_no_templates():
    names = zipfile.ZipFile(io.BytesIO(bundle.zip_bytes())).namelist()
    assert "oss-practice/practice.py" in names
    assert "oss-practice/practice/upstream.bundle" in names
    assert {f"oss-practice/practice/upstream/issues/{n}.md" for n in (1234, 1235, 1236)} <= set(
        names
    )
    assert not [n for n in names if "/project/" in n or "__pycache__" in n]


def test_the_downloaded_workspace_starts_and_checks_without_the_course(tmp_path: Path, capsys):
    zipfile.ZipFile(io.BytesIO(bundle.zip_bytes())).extractall(tmp_path / "unzipped")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    home = tmp_path / "unzipped" / "oss-practice"

    def run(*args: str, cwd: Path) -> str:
        done = subprocess.run(
            [sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True
        )
        assert "Traceback" not in done.stderr, done.stderr
        return done.stdout + done.stderr

    run(
        "practice.py",
        "start",
        str(tmp_path / "ws"),
        "--name",
        "Ada",
        "--email",
        "a@example.org",
        cwd=home,
    )
    claim = ("practice.py", "claim", "1234", "-m", "Plan: reshape 1-D inputs.")
    assert "commented on issues/1234.md" in run(*claim, cwd=tmp_path / "ws")
    out = run("-m", "practice", "-C", str(tmp_path / "ws" / "work"), "status", cwd=home)
    assert "2. Claim It      passed" in out and "4. Branch        FAILED   you are on main" in out
    launcher = (tmp_path / "ws" / "practice.py").read_text("utf-8")
    assert "from practice.cli import main" in launcher  # the zip's checker, not the course's
    # The same history as a workspace started from the course's repository.
    main(["start", str(tmp_path / "here"), "--name", "Ada", "--email", "a@example.org"])
    capsys.readouterr()
    heads = [
        subprocess.run(
            ["git", "rev-parse", "main"],
            cwd=root / "upstream.git",
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for root in (tmp_path / "ws", tmp_path / "here")
    ]
    assert heads[0] == heads[1]


def test_each_lesson_says_which_practice_steps_it_covers():
    """A lesson split into pages (``02-….md``, ``02-part-2-….md``) says it once, at its end."""
    titles = {title for _, title, _ in steps.STEPS}
    pages: dict[str, list[Path]] = {}
    for page in sorted(LESSONS.glob("0*.md")):
        pages.setdefault(page.name[:2], []).append(page)
    for number, files in pages.items():
        text = "\n".join(page.read_text("utf-8") for page in files)
        part = re.search(r"^## Practise it \{#practise\}\n(.*?)^## Key points", text, re.S | re.M)
        assert part, f"lesson {number}: no Practise it section just before Key points"
        named = set(re.findall(r"\*\*([^*]+)\*\*", part.group(1))) & titles
        assert named, f"lesson {number}: its Practise it section names no practice step"
        assert "(../practice.md)" in part.group(1)


def test_the_built_site_offers_the_zip(built_site: Path):
    assert (built_site / "downloads" / "oss-practice.zip").read_bytes() == bundle.zip_bytes()
    page = (built_site / "practice.html").read_text("utf-8")
    assert 'href="downloads/oss-practice.zip"' in page
