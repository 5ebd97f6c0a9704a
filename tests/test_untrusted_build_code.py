"""Hostile input, third pass (#41): code run at build time changes nothing published except
through its declared output.

- The lab notebook runs confined (:mod:`tools.plugin.lab`, :mod:`tools.buildkit.sandbox`): a cell
  can read neither the repository's ``.git`` nor ``docs/``, and can write neither ``docs/``,
  the staging folder nor the repository; its outputs go through the pages' allow-list.
- Whatever else the build runs, the site folder is compared with what the build made
  (:mod:`tools.plugin.outputs`) before ``site/`` is replaced: a file nobody declared, a copied
  file that differs from its source, or a source changed during the build fails it.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import copy_course, cut_lab_to
from mkdocs_course.buildkit import sandbox
from mkdocs_course.plugin import outputs
from test_build import run_cli

ROOT = Path(__file__).resolve().parents[1]
STORE = "tools/plugin/static/review/store.js"
needs_landlock = pytest.mark.skipif(
    sandbox.abi_version() < 1, reason="this kernel has no Landlock: the lab runs unconfined"
)

# Each attack of #41 as a cell that reports what happened instead of failing the notebook.
HOSTILE_CELLS = """

# %%
import glob
import os

REPO = {repo!r}


def attempt(what, action):
    try:
        action()
    except OSError as exc:
        print("refused:", what, type(exc).__name__)
    else:
        print("GOT THROUGH:", what)


attempt("read .git", lambda: print(open(os.path.join(REPO, ".git", "HEAD")).read()))
attempt("read mkdocs.yml", lambda: print(open(os.path.join(REPO, "mkdocs.yml")).read()))
attempt("list the repository", lambda: os.listdir(REPO))
attempt("append to store.js", lambda: open(os.path.join(REPO, {store!r}), "a").write("alert(1)"))
attempt("write into docs", lambda: open(os.path.join(REPO, "docs", "rt29.html"), "w").write("x"))


def into_staging():
    folders = glob.glob(os.path.join(REPO, ".site-*")) or [os.path.join(REPO, ".site-x")]
    for folder in folders:
        open(os.path.join(folder, "rt29.html"), "w").write("<script>alert(1)</script>")


attempt("write into the staging folder", into_staging)
attempt("connect over TCP", lambda: __import__("socket").create_connection(("127.0.0.1", 9), 2))
print("environment:", sorted(os.environ))
"""


@needs_landlock
def test_a_lab_cell_can_read_and_write_nothing_of_the_repository(tmp_path):
    course = copy_course(tmp_path / "course")
    subprocess.run(["git", "init", "-q"], cwd=course, check=True)
    store = (course / STORE).read_bytes()
    cut_lab_to(course, HOSTILE_CELLS.format(repo=str(course), store=STORE))
    result = run_cli(course, "build")
    assert result.returncode == 0, result.stderr[-3000:]
    page = (course / "site" / "lab" / "checkpointing-lab.html").read_text()
    assert "GOT THROUGH: " not in page  # the outputs (the source shows the quoted words)
    assert page.count("refused: ") == 7, page[-3000:]
    assert "[core]" not in page and "ref: refs/heads" not in page and "site_name" not in page
    assert (course / STORE).read_bytes() == store
    assert not (course / "docs" / "rt29.html").exists()
    assert not list((course / "site").rglob("rt29.html"))
    shown = page[page.index("environment:") :].split("]")[0]
    assert "GITHUB_TOKEN" not in shown and "SOURCE_DATE_EPOCH" not in shown, shown


# A hook stands in for any code the build runs that is not confined (a plugin, a snippet run by
# one): it writes into the staging folder and changes a source after MkDocs copied it.
WRITING_HOOK = """
from pathlib import Path


import mkdocs_course


def on_post_page(output, *, page, config):
    if page.file.src_uri == "index.md":
        site = Path(config.site_dir)
        (site / "rt29.html").write_text("<script>alert(1)</script>")
        (site / "assets" / "course.js").write_text("alert(1)")
        store = Path(mkdocs_course.__file__).parent / "plugin/static/review/store.js"
        with open(store, "a") as f:
            f.write("alert(1)")
    return output
"""


def engine_copy(folder: Path) -> dict[str, str]:
    """The environment of a build whose engine is a copy of this one in ``folder`` (found on
    ``PYTHONPATH`` before the installed package), so that a hook may write into the plugin's
    own files without touching this checkout's. Nothing of the course goes beside it: the engine
    reads the course's files from the course's folder only."""
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "tools", folder / "mkdocs_course", ignore=ignore)
    return {"PYTHONPATH": str(folder)}


def test_files_the_build_did_not_make_fail_it_before_the_site_is_replaced(tmp_path):
    course = copy_course(tmp_path / "course")
    engine = engine_copy(tmp_path / "engine")
    ours = (ROOT / STORE).read_bytes()
    assert run_cli(course, "build", env=engine).returncode == 0
    before = {p: p.read_bytes() for p in (course / "site").rglob("*") if p.is_file()}
    (course / "writer.py").write_text(WRITING_HOOK)
    settings = course / "mkdocs.yml"
    settings.write_text(settings.read_text() + "hooks:\n  - writer.py\n")
    result = run_cli(course, "build", env=engine)
    assert result.returncode != 0
    assert "the site folder holds what the build did not make" in result.stderr
    for expected in (
        "assets/review/store.js changed while the site was built",  # the plugin's source
        "/rt29.html: a file the build did not make",
        "/assets/course.js: changed after the build wrote it",
    ):
        assert expected in result.stderr, result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    assert (ROOT / STORE).read_bytes() == ours  # the hook wrote into the copy's
    after = {p: p.read_bytes() for p in (course / "site").rglob("*") if p.is_file()}
    assert after == before
    assert not list(course.glob(".site-*"))


def _file(src: str, dest: str, path: Path | None, page: bool = False, content: bytes = b""):
    return SimpleNamespace(
        src_uri=src,
        dest_uri=dest,
        abs_src_path=str(path) if path else None,
        generated_by="hook" if path is None else None,
        content_bytes=content,
        is_documentation_page=lambda: page,
    )


def test_the_site_folder_check_names_each_kind_of_difference(tmp_path):
    docs, site = tmp_path / "docs", tmp_path / "site"
    for folder in (docs / "lab", site / "lab"):
        folder.mkdir(parents=True)
    (docs / "a.css").write_text("p{}")
    (docs / "lab" / "nb.py").write_text("# %%\n")
    found = outputs.Outputs()
    found.record_files(
        [
            _file("a.css", "a.css", docs / "a.css"),
            _file("lab/nb.py", "lab/nb.html", docs / "lab" / "nb.py", page=True),
            _file("index.md", "index.html", docs / "index.md", page=True),
            _file("deck.apkg", "deck.apkg", None, content=b""),
        ],
        docs,
    )
    (site / "a.css").write_text("p{}")
    (site / "lab" / "nb.py").write_text("# %%\n")
    (site / "index.html").write_text("<p>home</p>")
    found.written("index.html", b"<p>home</p>")
    (site / "deck.apkg").write_bytes(b"PK")
    found.written("deck.apkg", b"PK")
    assert found.problems(site) == []
    (site / "lab" / "nb.py").write_text("# %%\nimport os\n")
    (site / "extra.html").write_text("<script>")
    (docs / "a.css").write_text("p{background:red}")
    (site / "link.css").symlink_to(docs / "a.css")
    assert found.problems(site) == [
        "docs/a.css changed while the site was built",
        "site/extra.html: a file the build did not make",
        "site/link.css: a symlink the build did not make",
        "site/lab/nb.py: changed after the build wrote it",
    ]


CONFINED = """
import socket, sys
sys.path.insert(0, {root!r})
from mkdocs_course.buildkit import sandbox
assert sandbox.confine(readable=[], writable=[{work!r}])
open({work!r} + "/ok", "w").write("x")
for attempt in (lambda: open({secret!r}).read(), lambda: open({elsewhere!r}, "w"),
                lambda: socket.create_connection(("127.0.0.1", 9), 2)):
    try:
        attempt()
    except PermissionError:
        print("refused")
    except OSError as exc:
        print("other", exc)
    else:
        print("GOT THROUGH")
"""


@needs_landlock
def test_a_confined_process_reads_and_writes_only_what_it_was_given(tmp_path):
    work, other = tmp_path / "work", tmp_path / "other"
    work.mkdir()
    other.mkdir()
    (other / "secret").write_text("token")
    code = CONFINED.format(
        root=str(ROOT), work=str(work), secret=str(other / "secret"), elsewhere=str(other / "x")
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["refused"] * 3
    assert (work / "ok").read_text() == "x" and not (other / "x").exists()
    with socket.socket() as probe:  # this process is not confined
        assert probe.fileno() >= 0


def test_without_landlock_confine_changes_nothing(monkeypatch):
    monkeypatch.setattr(sandbox, "abi_version", lambda: 0)
    assert sandbox.confine(readable=[], writable=[]) is False
