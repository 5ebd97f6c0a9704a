"""The practice workspace against hostile input: what it prints, what it reads, where it writes.

Branch names, commit subjects, author names and bodies are the learner's or a repository's text:
the checker prints them with their control characters escaped, as git does. A body is capped at
GitHub's size before it is read whole. The checker writes only its own files inside its own
workspace: a symbolic link among them, a ``state.json`` found elsewhere, or an id in the state
that is not what the checker wrote is refused (or ignored) with its own message, and nothing
outside the workspace changes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import test_practice as lifecycle
from test_practice import (
    EMAIL,
    GOOD_BODY,
    NAME,
    PLAN,
    Learner,
    claimed_and_branched,
    pushed,
    step,
)

learner, zone = lifecycle.learner, lifecycle.zone  # the lifecycle's fixtures

RAW = ("\x1b", "\x07", "\x9b", "\u202e")


def assert_escaped(out: str, *shown: str) -> None:
    for raw in RAW:
        assert raw not in out, repr(out)
    for escape in shown:
        assert escape in out, out


def test_control_characters_in_a_branch_name_are_escaped(learner: Learner):
    learner.practice("claim", "1234", "-m", PLAN)
    learner.git("switch", "-q", "-c", "fix/1234-\u009b31m-\u202eevil")
    out = learner.practice("status")[1]
    assert "breaks the project's rule" in step(out, "Branch")
    assert_escaped(out, "\\x9b31m", "\\u202eevil")


def test_control_characters_in_a_subject_and_an_author_name_are_escaped(learner: Learner):
    claimed_and_branched(learner)
    learner.fix_one_d()
    learner.commit("Fix \x1b]0;pwned\x07 it")  # no sign-off: the report quotes the subject
    out = learner.practice("check")[1]
    assert_escaped(out, "Fix \\x1b]0;pwned\\x07 it")
    learner.git("commit", "-q", "--amend", "-s", "--no-edit", "--author", "Eve\x1b[2J <e@x.org>")
    out = learner.practice("check")[1]
    assert "is authored by Eve\\x1b[2J <e@x.org>, not by you" in out
    assert_escaped(out)


def test_an_osc52_clipboard_write_in_a_body_is_escaped(learner: Learner):
    claimed_and_branched(learner)
    learner.fix_one_d()
    learner.commit("Fix", "-s")
    learner.git("push", "-q", "-u", "origin", "HEAD")
    osc52 = "\x1b]52;c;cm0gLXJmIH4=\x07"
    body = GOOD_BODY.replace("unlike hard-coding", f"unlike {osc52} hard-coding")
    assert learner.practice("pr", "open", learner.body(body))[0] == 0
    out = learner.practice("status")[1]
    assert "\\x1b]52;c;cm0gLXJmIH4=\\x07" in step(out, "Submit PR")  # the quoted Justification
    assert_escaped(out)


@pytest.mark.parametrize("size", [65537, 100_000, 20_000_000])
def test_a_body_over_githubs_limit_is_refused_with_its_message(learner: Learner, size: int):
    pushed(learner)
    path = learner.root / "big.md"
    if size > 1_000_000:  # sparse: the checker must refuse it by its size, never reading it
        with path.open("wb") as file:
            file.truncate(size)
    else:
        path.write_text(GOOD_BODY + "x" * (size - len(GOOD_BODY)), "utf-8")
    code, out = learner.practice("pr", "open", str(path))
    assert code == 1 and "Body is too long (maximum is 65536 characters)" in out
    assert not (learner.root / ".practice" / "prs").exists()  # nothing was opened


def test_a_stored_body_made_huge_is_refused_by_status(learner: Learner):
    pushed(learner)
    learner.practice("pr", "open", learner.body(GOOD_BODY))
    stored = learner.root / ".practice" / "prs" / "1237.md"
    stored.write_text("é" * 65537, "utf-8")  # at most 4 bytes a character: read, then counted
    code, out = learner.practice("status")
    assert code == 1 and "1237.md: Body is too long (maximum is 65536 characters)" in out


def _outside(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("mine", "utf-8")
    return outside


def _unchanged(outside: Path) -> None:
    assert sorted(p.name for p in outside.iterdir()) == ["keep.txt"]
    assert (outside / "keep.txt").read_text("utf-8") == "mine"


def test_prs_as_a_symlink_is_refused(learner: Learner, tmp_path: Path):
    outside = _outside(tmp_path)
    pushed(learner)
    (learner.root / ".practice" / "prs").symlink_to(outside)
    code, out = learner.practice("pr", "open", learner.body(GOOD_BODY))
    assert code == 1 and ".practice/prs is a symbolic link: the checker writes only" in out
    _unchanged(outside)


def test_an_issue_file_as_a_symlink_is_refused_by_claim_and_reset(learner: Learner, tmp_path: Path):
    outside = _outside(tmp_path)
    issue = learner.root / "issues" / "1234.md"
    issue.unlink()
    issue.symlink_to(outside / "keep.txt")
    for command in (("claim", "1234"), ("reset", "find"), ("reset", "claim")):
        code, out = learner.practice(*command)
        assert code == 1 and "issues/1234.md is a symbolic link" in out, (command, out)
    _unchanged(outside)


def test_state_tmp_as_a_symlink_is_refused(learner: Learner, tmp_path: Path):
    outside = _outside(tmp_path)
    (learner.root / ".practice" / "state.tmp").symlink_to(outside / "keep.txt")
    code, out = learner.practice("claim", "1234", "-m", PLAN)
    assert code == 1 and ".practice/state.tmp is a symbolic link" in out
    _unchanged(outside)


@pytest.mark.parametrize(
    ("link", "target", "refusal"),
    [
        (".practice/scratch", "", ".practice/scratch is a symbolic link"),  # CI's checkouts
        ("work/tests/test_link.py", "keep.txt", "holds a symbolic link, tests/test_link.py"),
    ],
)
def test_a_symlink_where_ci_checks_out_is_refused_by_check(
    learner: Learner, tmp_path: Path, link: str, target: str, refusal: str
):
    outside = _outside(tmp_path)
    claimed_and_branched(learner)
    learner.fix_one_d()
    (learner.root / link).symlink_to(outside / target)
    learner.commit("Fix", "-s")
    code, out = learner.practice("check")
    assert code == 1 and refusal in out
    _unchanged(outside)


def _edit_state(learner: Learner, edit) -> None:
    path = learner.root / ".practice" / "state.json"
    state = json.loads(path.read_text("utf-8"))
    edit(state)
    path.write_text(json.dumps(state), "utf-8")


@pytest.mark.parametrize(
    ("edit", "why"),
    [
        (lambda s: s["tasks"]["1234"]["pr"].update(number="../../../outside/x"), "pr.number"),
        (lambda s: s["tasks"]["1234"]["pr"].update(branch="../../x\n"), "pr.branch"),
        (lambda s: s.update(current="../../outside"), "current"),
        (lambda s: s["tasks"].update({"../x": s["tasks"]["1234"]}), "tasks: keys other"),
        (lambda s: s["tasks"]["1234"].update(claimed_at="yesterday"), "claimed_at"),
    ],
)
def test_ids_in_the_state_are_validated_before_any_path_is_made(
    learner: Learner, tmp_path: Path, edit, why: str
):
    outside = _outside(tmp_path)
    pushed(learner)
    learner.practice("pr", "open", learner.body(GOOD_BODY))
    _edit_state(learner, edit)
    for command in (("status",), ("pr", "open", learner.body(GOOD_BODY)), ("reset", "merge")):
        code, out = learner.practice(*command)
        assert code == 1 and "not a state this checker wrote" in out and why in out, out
    _unchanged(outside)


def test_a_state_json_inside_work_is_never_trusted(learner: Learner):
    learner.practice("claim", "1234", "-m", PLAN)
    fake = learner.work / ".practice"
    fake.mkdir()
    state = json.loads((learner.root / ".practice" / "state.json").read_text("utf-8"))
    state["current"] = None
    (fake / "state.json").write_text(json.dumps(state), "utf-8")
    before = (fake / "state.json").read_bytes()
    out = learner.practice("status")[1]
    assert f"practice workspace {learner.root}, #1234" in out  # the outer one, with its claim
    learner.practice("reset", "claim")
    assert (fake / "state.json").read_bytes() == before
    assert not (fake / "prs").exists() and not (learner.work / "issues").exists()


def test_the_launcher_ignores_a_practice_folder_inside_work(tmp_path: Path):
    """The launcher runs the workspace's own copy: a `.practice` folder in work/ does not make
    work/ a workspace for it either."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    subprocess.run(
        [
            sys.executable,
            "-m",
            "tools",
            "practice",
            "start",
            str(tmp_path / "ws"),
            "--name",
            NAME,
            "--email",
            EMAIL,
        ],
        cwd=Path(__file__).resolve().parents[1],
        check=True,
        capture_output=True,
        env=env,
    )
    (tmp_path / "ws" / "work" / ".practice").mkdir()
    done = subprocess.run(
        ["../practice.py", "status"], cwd=tmp_path / "ws" / "work", capture_output=True, text=True
    )
    assert done.returncode == 0 and f"practice workspace {tmp_path / 'ws'}," in done.stdout
