"""A build starts as many processes for a course of many pages as for one of few.

Each git process walks history or the index once: one of them per page made dating notes cost
pages x history (it went unnoticed until a 160-lesson benchmark). This guard builds the deck and
the site of a small generated course and of one with four times its pages, in fresh processes,
and records every process they start, the build's worker processes and their children included:
an audit hook (``sitecustomize``, on ``PYTHONPATH``) logs each ``subprocess.Popen``, fork and
exec with the code that called it. It fails if any command is started more often for the larger
course, and prints the counts and each process's command. It counts, it does not time.
"""

from __future__ import annotations

import collections
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "second-course"
SMALL, LARGE = 3, 12  # lessons
LOG_VARIABLE = "COURSE_PROCESS_LOG"

pytestmark = pytest.mark.slow

# Loaded by every Python process of the build (a forked worker keeps its parent's hook): one JSON
# line per process started, with the first frame of the course's code (or the caller) behind it.
SITECUSTOMIZE = """
import json, os, sys

_LOG = os.environ.get("COURSE_PROCESS_LOG")
_EVENTS = {"subprocess.Popen", "os.fork", "os.forkpty", "os.exec", "os.posix_spawn",
           "os.spawn", "os.system", "pty.spawn"}


def _caller():
    # The course code that asked for the process: the first two frames of tools/ outside the
    # git helpers, else the frame that started it.
    frame, first, found = sys._getframe(2), None, []
    while frame is not None and len(found) < 2:
        name = frame.f_code.co_filename
        first = first or f"{name}:{frame.f_lineno}"
        if "/tools/" in name and "site-packages" not in name and frame.f_code.co_name != "git":
            if frame.f_code.co_name != "_git":
                found.append(f"{name.rsplit('/tools/', 1)[1]}:{frame.f_lineno}")
        frame = frame.f_back
    return " < ".join(found) or first


def _hook(event, args):
    if event not in _EVENTS:
        return
    if event == "subprocess.Popen":
        command = [os.fsdecode(a) for a in (args[1] if isinstance(args[1], (list, tuple))
                                               else [args[1]])]
    elif event in ("os.exec", "os.posix_spawn", "os.spawn"):
        command = [os.fsdecode(a) for a in args[1]]
    else:
        command = [event]
    line = json.dumps({"pid": os.getpid(), "event": event, "command": command,
                       "caller": _caller()})
    with open(_LOG, "a", encoding="utf-8") as log:
        log.write(line + "\\n")


if _LOG:
    sys.addaudithook(_hook)
"""


def git(root: Path, *args: str, when: int | None = None) -> None:
    env = dict(os.environ, GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    if when is not None:
        env.update(GIT_AUTHOR_DATE=f"@{when} +0000", GIT_COMMITTER_DATE=f"@{when} +0000")
    command = ["git", "-c", "user.name=T", "-c", "user.email=t@example.org", *args]
    subprocess.run(command, cwd=root, env=env, check=True, capture_output=True)


def make_course(root: Path, lessons: int) -> Path:
    """The second course's lesson ``lessons`` times (each with its own questions and quiz id),
    committed, then five commits that each add a line to a page."""
    lesson = (FIXTURE / "docs" / "lessons" / "01-finding-your-way.md").read_text("utf-8")
    (root / "docs" / "lessons").mkdir(parents=True)
    shutil.copy(FIXTURE / "docs" / "index.md", root / "docs" / "index.md")
    # the course's own benchmark: its Python and its results file
    shutil.copytree(FIXTURE / "reading", root / "reading")
    shutil.copytree(FIXTURE / "note-templates", root / "note-templates")  # its settings name it
    shutil.copytree(FIXTURE / "docs" / "benchmarks", root / "docs" / "benchmarks")
    names = [f"{n:02d}-lesson.md" for n in range(1, lessons + 1)]
    for number, name in enumerate(names, 1):
        text = lesson.replace("# Finding your way", f"# Lesson {number}")
        text = text.replace("? ::: ", f" (lesson {number})? ::: ")
        text = text.replace("reading-code-check", f"check-{number}")
        text = text.replace("1. What is", f"1. In lesson {number}, what is")
        text = text.replace("2. The time", f"2. In lesson {number}, the time")
        (root / "docs" / "lessons" / name).write_text(text, "utf-8")
    nav = "".join(f"  - {n} · Lesson: lessons/{name}\n" for n, name in enumerate(names, 1))
    config = (FIXTURE / "mkdocs.yml").read_text("utf-8")
    config = config.replace("  - 1 · Finding your way: lessons/01-finding-your-way.md\n", nav)
    (root / "mkdocs.yml").write_text(config, "utf-8")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "course", when=1_700_000_000)
    for number in range(1, 6):
        page = root / "docs" / "lessons" / names[number % lessons]
        page.write_text(page.read_text("utf-8") + f"\nEdit {number}.\n", "utf-8")
        git(root, "commit", "-q", "-am", f"edit {number}", when=1_700_000_000 + 600 * number)
    return root


def started(tmp_path: Path, *command: str) -> list[dict]:
    """Every process the CLI command starts (its own Python process aside)."""
    hooks, log = tmp_path / "hooks", tmp_path / "processes.jsonl"
    hooks.mkdir(exist_ok=True)
    (hooks / "sitecustomize.py").write_text(SITECUSTOMIZE, "utf-8")
    log.unlink(missing_ok=True)
    env = {**os.environ, LOG_VARIABLE: str(log), "PYTHONPATH": str(hooks)}
    env.pop("SOURCE_DATE_EPOCH", None)
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs_course.cli", *command],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    lines = log.read_text("utf-8").splitlines() if log.exists() else []
    return [json.loads(line) for line in lines]


def kind(process: dict) -> str:
    """What a process is, without the arguments that name a page: git and its subcommand, the
    program's name, or a fork."""
    command = [os.path.basename(process["command"][0]), *process["command"][1:]]
    if command[0] == "git":
        words = [w for w in command[1:] if not w.startswith("-") and "=" not in w]
        return f"git {words[0] if words else ''}".strip()
    return command[0]


def report(label: str, processes: list[dict]) -> str:
    lines = [f"{label}: {len(processes)} processes"]
    for process in processes:
        shown = " ".join(process["command"])
        lines.append(f"  {shown[:160]}  (from {process['caller']}, pid {process['pid']})")
    return "\n".join(lines)


@pytest.fixture(scope="module")
def courses(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    return {n: make_course(tmp_path_factory.mktemp(f"course-{n}"), n) for n in (SMALL, LARGE)}


@pytest.mark.parametrize("build", ["deck", "build"])
def test_the_processes_a_build_starts_do_not_grow_with_its_pages(courses, tmp_path, build):
    seen = {}
    for lessons, course in courses.items():
        out = tmp_path / f"out-{lessons}"
        args = ["-o", str(out / "deck.apkg")] if build == "deck" else ["--site-dir", str(out)]
        seen[lessons] = started(tmp_path, build, "--course", str(course), *args)
    small, large = (collections.Counter(map(kind, seen[n])) for n in (SMALL, LARGE))
    grown = {k: (small[k], large[k]) for k in large if large[k] > small[k]}
    counts = f"{SMALL} lessons: {dict(small)}\n{LARGE} lessons: {dict(large)}"
    print(f"\n{build}: processes started\n{counts}")
    detail = "\n".join(report(f"{n} lessons", seen[n]) for n in (SMALL, LARGE))
    assert not grown, f"{build}: more processes for more pages {grown}\n{counts}\n{detail}"
    assert small["git log"] >= 1, f"{build}: the audit saw no git at all\n{detail}"
