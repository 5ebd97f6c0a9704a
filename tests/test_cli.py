"""The command line: options of pytest and mkdocs pass through; ``check`` writes nothing."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from mkdocs_course import cli as course_cli
from mkdocs_course.buildkit.buildinfo import ROOT

from snippets.practice import cli as practice_cli


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs_course.cli", *args], cwd=ROOT, capture_output=True, text=True
    )


def test_test_command_passes_pytest_options_through():
    result = cli("test", "--co", "-q", "-m", "not browser", "tests/test_bootstrap.py")
    assert result.returncode == 0, result.stderr
    assert "test_stamp_changes_when_an_input_changes" in result.stdout


def outputs() -> dict[Path, tuple[int, int]]:
    """Every file where the engine writes (sources, site, deck) with its size and mtime."""
    return {
        path: (path.stat().st_size, path.stat().st_mtime_ns)
        for folder in ("docs", "site", "build", "deck")
        for path in (ROOT / folder).rglob("*")
        if path.is_file()
    }


def test_check_reports_counts_and_writes_nothing():
    before = outputs()
    result = cli("check")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("ok: ") and "flashcards" in result.stdout
    assert outputs() == before


CUED_QUIZ = """
::: quiz id=cued title="A quiz that gives itself away"
1. First?
   - [x] The long, careful and right answer
   - [ ] No
   - [ ] Maybe

   Because.

2. Second?
   - [x] Another long, careful and right answer
   - [ ] No
   - [ ] Maybe

   Because.

3. Third?
   - [x] Yet another long and careful right answer
   - [ ] No
   - [ ] Maybe

   Because.

4. Fourth?
   - [ ] No
   - [x] Short
   - [ ] Maybe not

   Because.
:::
"""


def test_check_warns_about_quiz_cues_with_file_and_line_and_still_succeeds(tmp_path: Path):
    """Longest in 3 of 4, first in 3 of 4: two warnings, each naming the quiz's file and line."""
    import shutil

    course = tmp_path / "course"
    shutil.copytree(ROOT / "tests" / "fixtures" / "second-course", course)
    lesson = course / "docs" / "lessons" / "01-finding-your-way.md"
    text = lesson.read_text(encoding="utf-8")
    head, tail = text.split("\n## ", 1)  # the quiz goes before the first section heading
    lesson.write_text(f"{head}\n{CUED_QUIZ}\n## {tail}", encoding="utf-8")
    line = lesson.read_text(encoding="utf-8").splitlines().index(CUED_QUIZ.splitlines()[1]) + 1
    result = cli("check", "--course", str(course))
    assert result.returncode == 0, result.stderr
    where = f"docs/lessons/01-finding-your-way.md:{line}: warning: quiz 'cued': "
    assert f"{where}the correct option is the longest in 3 of 4 questions" in result.stderr
    assert f"{where}the correct option is option 1 in 3 of 4 questions" in result.stderr
    # Made balanced (no longest-option cue, positions 1, 2, 3, 2), the quiz draws no warning.
    balanced = (
        CUED_QUIZ.replace(
            "- [x] Another long, careful and right answer\n   - [ ] No",
            "- [ ] No\n   - [x] Another",
        )
        .replace(
            "- [x] Yet another long and careful right answer\n   - [ ] No\n   - [ ] Maybe",
            "- [ ] No\n   - [ ] Maybe\n   - [x] Yet",
        )
        .replace("The long, careful and right answer", "Right")
    )
    lesson.write_text(f"{head}\n{balanced}\n## {tail}", encoding="utf-8")
    result = cli("check", "--course", str(course))
    assert result.returncode == 0, result.stderr
    assert "warning" not in result.stderr, result.stderr


def test_progress_prints_no_authoring_warnings(tmp_path: Path):
    """A learner moving progress can fix no quiz: the cues ``check`` reports stay out of it."""
    import json
    import shutil

    from mkdocs_course.anki import progress

    course = tmp_path / "course"
    shutil.copytree(ROOT / "tests" / "fixtures" / "second-course", course)
    lesson = course / "docs" / "lessons" / "01-finding-your-way.md"
    head, tail = lesson.read_text(encoding="utf-8").split("\n## ", 1)
    lesson.write_text(f"{head}\n{CUED_QUIZ}\n## {tail}", encoding="utf-8")
    assert "warning: quiz 'cued'" in cli("check", "--course", str(course)).stderr
    exported = tmp_path / "progress.json"
    document = {"format": progress.FORMAT, "version": progress.VERSION, "cards": {}}
    exported.write_text(json.dumps(document), encoding="utf-8")
    result = cli("progress", "--course", str(course), "to-anki", str(exported))
    assert result.returncode == 0, result.stderr
    assert "warning" not in result.stderr, result.stderr
    assert result.stdout.startswith(f"wrote {tmp_path / 'progress.apkg'}"), result.stdout


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _get(url: str) -> tuple[int, str]:
    """Status and body of ``url``; a request that hangs fails the test after 20 s."""
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=20) as answer:
            return answer.status, answer.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8")


def _wait_for(predicate, what: str, seconds: float = 120) -> None:
    import time

    end = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        time.sleep(0.3)


def test_serve_warns_as_build_does_and_a_broken_source_answers_with_its_error(tmp_path: Path):
    """The quiz cues ``build`` prints come out of ``serve``; a lesson broken while it serves
    answers every page at once with a page naming the file and line, and a fix brings the
    site back."""
    import shutil

    course = tmp_path / "course"
    shutil.copytree(ROOT / "tests" / "fixtures" / "second-course", course)
    lesson = course / "docs" / "lessons" / "01-finding-your-way.md"
    head, tail = lesson.read_text(encoding="utf-8").split("\n## ", 1)
    good = f"{head}\n{CUED_QUIZ}\n## {tail}"
    lesson.write_text(good, encoding="utf-8")
    port = _free_port()
    address = f"127.0.0.1:{port}"
    log = tmp_path / "serve.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "mkdocs_course.cli",
                "serve",
                "--course",
                str(course),
                "-a",
                address,
            ],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
        )
    page = f"http://127.0.0.1:{port}/reading-code/lessons/01-finding-your-way.html"
    try:
        _wait_for(lambda: "Serving on" in log.read_text(), "the server")
        assert "warning: quiz 'cued'" in log.read_text()  # as build and check print it
        assert _get(page)[0] == 200
        broken = good.replace("\n:::\n", "\n", 1)  # the quiz is never closed
        lesson.write_text(broken, encoding="utf-8")
        line = broken.splitlines().index(CUED_QUIZ.splitlines()[1]) + 1
        _wait_for(lambda: "build failed" in log.read_text(), "the failed rebuild")
        status, body = _get(page)
        assert status == 500
        assert f"docs/lessons/01-finding-your-way.md:{line}" in body, body
        assert "/livereload/" in body  # it reloads itself once the site builds again
        lesson.write_text(good, encoding="utf-8")
        _wait_for(lambda: _get(page)[0] == 200, "the fixed site " + log.read_text())
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_the_readme_gives_the_address_serve_serves_at():
    """``mkdocs serve`` serves under the path of ``site_url``: the README must say where."""
    from urllib.parse import urlsplit

    import yaml

    site_url = yaml.safe_load((ROOT / "mkdocs.yml").read_text("utf-8"))["site_url"]
    address = f"http://127.0.0.1:8000{urlsplit(site_url).path or '/'}"
    readme = " ".join((ROOT / "README.md").read_text("utf-8").split())
    assert f"`python3 -m tools serve` and open <{address}>" in readme
    assert f"live preview at <{address}>" in readme


def test_practice_runs_the_courses_own_command_and_a_course_without_one_is_told(tmp_path):
    """``practice`` calls the function the course in the current folder names (its
    ``practice_cli``): here the course's checker prints its help; the second course has none."""
    ours = cli("practice", "--help")
    assert ours.returncode == 0, ours.stderr
    assert "start" in ours.stdout and "check" in ours.stdout
    second = ROOT / "tests" / "fixtures" / "second-course"
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs_course.cli", "practice", "status"],
        cwd=second,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr == (
        f"practice: {second / 'mkdocs.yml'}: this course declares no practice_cli\n"
    )


def test_a_practice_command_that_fails_to_import_is_named_not_a_traceback(tmp_path):
    """``check`` reads the course's function from its source; a module that then fails when it
    runs (here it raises at import) is reported with the setting, without a traceback."""
    course = tmp_path / "course"
    shutil.copytree(ROOT / "tests" / "fixtures" / "second-course", course)
    (course / "drills").mkdir()
    (course / "drills" / "run.py").write_text(
        "raise RuntimeError('broken on import')\n\ndef main(args):\n    return 0\n", "utf-8"
    )
    settings = course / "mkdocs.yml"
    text = settings.read_text("utf-8")
    settings.write_text(
        text.replace("  - course:\n", "  - course:\n      practice_cli: drills.run:main\n", 1),
        "utf-8",
    )
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs_course.cli", "practice", "status"],
        cwd=course,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr == (
        "practice: mkdocs.yml: practice_cli: cannot import 'drills.run' "
        "(RuntimeError: broken on import)\n"
    )


# The course engine's commands, and the practice workspace's (the course's own, in snippets/).
PARSERS = [course_cli.argument_parser, practice_cli.argument_parser]


@pytest.mark.parametrize("make", PARSERS, ids=["tools", "practice"])
def test_the_help_names_every_command_in_whole_sentences(make):
    """``--help`` opens with the module's first paragraph or line: every command named in it,
    and the sentence not cut off where a line of the docstring happened to end."""
    parser = make()
    commands = next(a for a in parser._actions if a.choices).choices
    assert parser.description.endswith(".")
    for command in commands:
        assert command in parser.description, command


@pytest.mark.parametrize("make", PARSERS, ids=["tools", "practice"])
def test_each_commands_help_says_what_it_does_and_what_each_option_is(make):
    parser = make()
    commands = next(a for a in parser._actions if a.choices)
    listed = {action.dest: action.help for action in commands._choices_actions}
    for name, command in commands.choices.items():
        assert command.description and command.description == listed[name], name
        unexplained = [
            a.option_strings[-1]
            for a in command._actions
            if a.option_strings and a.dest != "help" and not a.help
        ]
        assert not unexplained, (name, unexplained)
