"""The practice workspace, played as a learner plays it: real git, the checker's commands.

A learner here is a workspace in ``tmp_path`` and git commands run in its ``work/``; the checker
runs in-process (``snippets.practice.cli.main``), its CI in subprocesses with this Python. The fixes
the learner writes are the course's own (Lesson 3.3's two fixes, its regression test and
Exercise 2.5's solution, from ``snippets/``), so the practice is checked against what the
lessons teach. The whole lifecycle runs once, in a zone behind UTC (its commits carry a
negative offset); tests/test_practice_evidence.py compares the claim with commits in all three
zones of ``TIME_ZONES``, which costs a claim and a commit instead of the lifecycle each.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from snippets.practice import cli, upstream
from snippets.practice.upstream import section

NAME, EMAIL = "Ada Lovelace", "ada@example.org"
PLAN = "Plan: reshape 1-D inputs to [1, N]."  # a claim comment (CONTRIBUTING §1)
GOOD_BODY = """## Problem
`cosine_similarity` on two 1-D tensors crashes:
IndexError: Dimension out of range (expected to be in range of [-1, 0], but got 1)
Fixes #1234

## Fix
1-D inputs are reshaped to [1, N]; higher-rank behaviour is untouched.

## Justification
unsqueeze(0) keeps the batched contract, unlike hard-coding dim=0.

## Tests
test_cosine_similarity_1d compares against 32/(sqrt(14)*sqrt(77)) with torch.allclose.
"""
# The course's own regression test (Lesson 3.6, snippets/regression_test.py), aimed at the
# project's function instead of the lesson's two implementations.
ONE_D_TEST = "import torch\nfrom simkit.similarity import cosine_similarity\n\n\n" + "\n".join(
    line
    for line in section("regression_test.py", "test").splitlines()
    if not line.startswith("@pytest.mark.parametrize")
).replace("(cosine_similarity):", "():")
BATCH_TEST = """

def test_a_batch_gives_one_value_per_row():
    a = torch.tensor([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]])
    b = torch.tensor([[4.0, 5.0, 6.0], [-4.0, -5.0, -6.0]])
    expected = 32.0 / (torch.sqrt(torch.tensor(14.0)) * torch.sqrt(torch.tensor(77.0)))
    assert torch.allclose(cosine_similarity(a, b), torch.stack([expected, -expected]))


def test_a_batch_of_one_row_keeps_its_axis():
    result = cosine_similarity(torch.tensor([[1.0, 2.0, 3.0]]), torch.tensor([[4.0, 5.0, 6.0]]))
    assert result.shape == (1,)
"""
TIME_ZONES = ("UTC", "Asia/Karachi", "America/New_York")  # UTC, UTC+5, UTC-5 (-4 in summer)
GRADIENT_TEST = """import torch
from simkit.model import MLPStack


def test_checkpointing_keeps_the_gradients():
    torch.manual_seed(0)
    plain = MLPStack(layers=2, width=8)
    checkpointed = MLPStack(layers=2, width=8, checkpointing=True)
    checkpointed.load_state_dict(plain.state_dict())
    x = torch.randn(4, 8)
    for model in (plain, checkpointed):
        model(x).sum().backward()
    for mine, reference in zip(checkpointed.parameters(), plain.parameters()):
        assert torch.allclose(mine.grad, reference.grad)
"""


class Learner:
    def __init__(self, root: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.root, self.work, self.capsys = root, root / "work", capsys

    def follow(self, out: str) -> list[str]:
        """Run the commands of the report's ``next:`` line as printed (in backticks), in work/
        where the report was made, with the learner's words where a hint leaves ``…`` (a claim's
        plan: the checker refuses the ``…`` itself); each must succeed. Returns them."""
        line = next(line for line in out.splitlines() if line.startswith("next: "))
        commands = re.findall(r"`([^`]+)`", line)
        assert commands, line
        for command in commands:
            filled = command.replace("…", "wrap each block in checkpoint()")
            done = subprocess.run(
                ["bash", "-c", filled], cwd=self.work, capture_output=True, text=True
            )
            assert done.returncode == 0, (command, done.stdout, done.stderr)
        return commands

    def practice(self, *args: str, cwd: Path | None = None) -> tuple[int, str]:
        """Run the checker; (exit code, stdout + stderr). A traceback would fail the test."""
        code = cli.main(["-C", str(cwd or self.work), *args])
        out = self.capsys.readouterr()
        return code, out.out + out.err

    def git(self, *args: str) -> str:
        done = subprocess.run(["git", *args], cwd=self.work, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout

    def write(self, path: str, text: str) -> None:
        (self.work / path).write_text(text, "utf-8")

    def commit(self, message: str, *extra: str) -> None:
        self.git("add", "-A")
        self.git("commit", "-q", *extra, "-m", message)

    def body(self, text: str, name: str = "body.md") -> str:
        path = self.root / name
        path.write_text(text, "utf-8")
        return str(path)

    def fix_one_d(self, fix: str = "fixed") -> None:
        """Lesson 3.3's fix (``fixed``: unsqueeze; ``fixed_dim0``: the one that breaks batches),
        renamed to the project's function name."""
        code = section("cosine_fixed.py", fix).replace(
            "cosine_similarity_dim0", "cosine_similarity"
        )
        head = '"""Similarity measures for batches of embeddings."""\n\nimport torch\n\n\n'
        self.write("simkit/similarity.py", head + code.strip() + "\n")


@pytest.fixture
def zone(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):
    """The time zone of the learner's machine (git's commits take its offset): the test's
    parameter, else UTC."""
    name = getattr(request, "param", "UTC")
    monkeypatch.setenv("TZ", name)
    time.tzset()
    yield name
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def learner(tmp_path: Path, capsys: pytest.CaptureFixture[str], zone: str) -> Learner:
    code = cli.main(["start", str(tmp_path / "ws"), "--name", NAME, "--email", EMAIL])
    assert code == 0, capsys.readouterr()
    capsys.readouterr()
    return Learner(tmp_path / "ws", capsys)


def claimed_and_branched(
    learner: Learner, issue: int = 1234, branch: str = "fix/1234-cosine-1d"
) -> None:
    assert learner.practice("claim", str(issue), "-m", PLAN)[0] == 0
    learner.git("switch", "-q", "-c", branch)


def pushed(learner: Learner, test: str | None = None) -> None:
    """Claimed, fixed as Lesson 3.3 does (with ``test``, if given), signed off and pushed."""
    claimed_and_branched(learner)
    learner.fix_one_d()
    if test:
        learner.write("tests/test_one_d.py", test)
    learner.commit("Fix", "-s")
    learner.git("push", "-q", "-u", "origin", "fix/1234-cosine-1d")


def answer_the_review(learner: Learner) -> None:
    """What the first review of #1234 asks for: the issue named, batches tested, the notes."""
    learner.write("tests/test_one_d.py", "# Regression test for #1234\n" + ONE_D_TEST + BATCH_TEST)
    (learner.work / "changes").mkdir()
    learner.write("changes/1237.md", "Fixed: `cosine_similarity` accepts 1-D vectors.\n")


def checkpointed_model(learner: Learner) -> str:
    """simkit/model.py with Exercise 2.5's solution behind the opt-in flag issue #1235 asks for."""
    solution = section("checkpoint_exercise_solution.py", "solution")
    call = re.search(r"x = x \+ (checkpoint\(.*\))", solution).group(1)
    model = (learner.work / "simkit/model.py").read_text("utf-8")
    model = model.replace(
        "width: int = 128) -> None:\n        super().__init__()\n",
        "width: int = 128, checkpointing: bool = False) -> None:\n"
        "        super().__init__()\n        self.checkpointing = checkpointing\n",
    )
    model = model.replace(
        "            x = x + block(x)\n",
        f"            x = x + ({call} if self.checkpointing else block(x))\n",
    )
    return model.replace(
        "from torch import nn\n",
        "from torch import nn\nfrom torch.utils.checkpoint import checkpoint\n",
    )


def step(output: str, title: str) -> str:
    """The lines of one step in a report: its line and the indented ones under it."""
    match = re.search(rf"^\d\. {re.escape(title)} .*(?:\n {{20,}}.*)*", output, re.MULTILINE)
    assert match, output
    return match.group(0)


@pytest.mark.slow  # CI runs the project's tests in subprocesses
@pytest.mark.parametrize("zone", ["America/New_York"], indirect=True)
def test_the_whole_lifecycle_reaches_merged_for_both_tasks(learner: Learner, zone: str):
    code, out = learner.practice("status")
    assert out.splitlines()[1].startswith("1. Find Issue    waiting") and "gh issue list" in out
    assert '../practice.py claim N -m "Plan: …"' in out  # the launcher as typed in work/

    # Task 1, issue #1234: the 1-D crash of Lesson 3, with the course's own regression test.
    claimed_and_branched(learner)
    learner.fix_one_d()
    learner.write("tests/test_one_d.py", ONE_D_TEST)
    learner.commit("Accept 1-D input in cosine_similarity (#1234)", "-s")
    learner.git("push", "-q", "-u", "origin", "fix/1234-cosine-1d")
    assert learner.practice("pr", "open", learner.body(GOOD_BODY))[0] == 0
    code, out = learner.practice("check")
    code_step = step(out, "Code + Tests")
    assert "passed" in code_step and "fails on upstream main" in out
    assert "before your first commit" in step(out, "Claim It")  # the claim came first, any zone
    assert "it catches 1 of 4 wrong fixes: wrong value for 1-D; it misses: dim=0, squeeze " in (
        " ".join(code_step.split())
    )
    assert "Q = correct 1 × clear 1 × tested 1 × justified 1 = 1" in out
    review = (learner.root / "reviews" / "1237.md").read_text("utf-8")
    assert "- [ ] 3. tests: your new test also passes on wrong fixes" in review
    assert "a [2, 3] batch" in review and "a [1, 3] batch" in review
    assert "`Regression test for #1234`" in review
    assert "add `changes/1237.md`" in review  # the one thing no first pull request can have
    assert "FAILED" in step(out, "Revisions") and code == 1

    answer_the_review(learner)
    learner.commit("Test batches too, and the release-notes line, as the review asked", "-s")
    learner.git("push", "-q")
    code, out = learner.practice("check")
    assert code == 0, out
    assert "it catches 4 of 4 wrong fixes" in out
    assert "the project: merged pull request #1237" in out
    assert "- [x] 1." in (learner.root / "reviews" / "1237.md").read_text("utf-8")
    issue = (learner.root / "issues/1234.md").read_text()
    assert "state: closed by pull request #1237" in issue
    assert "through its `Fixes #1234` line" in issue
    log = subprocess.run(
        ["git", "log", "--format=%s", "main"],
        cwd=learner.root / "upstream.git",
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert log.startswith("Merge pull request #1237 from ada-lovelace/fix/1234-cosine-1d")
    assert "sync your fork" in out and '`../practice.py claim 1235 -m "Plan: …"`' in out
    learner.follow(out)  # the sync and the claim, as printed (the claim by the launcher)
    out = learner.practice("status")[1]
    assert "sync your fork" not in out and "#1235: Opt-in gradient checkpointing" in out

    # Task 2, issue #1235: Exercise 2.5 as a feature, from the new upstream main.
    assert "git switch -c feat/1235-checkpointing" in learner.practice("status")[1]
    learner.git("switch", "-q", "-c", "feat/1235-checkpointing", "upstream/main")
    learner.write("simkit/model.py", checkpointed_model(learner))
    learner.write("tests/test_checkpointing.py", GRADIENT_TEST)
    learner.commit("Add opt-in gradient checkpointing to MLPStack (#1235)", "-s")
    learner.git("push", "-q", "-u", "origin", "feat/1235-checkpointing")
    bench = subprocess.run(
        [sys.executable, "benchmarks/bench.py"],
        cwd=learner.work,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    table = bench[bench.index("| checkpointing") :]
    assert learner.practice("pr", "open", learner.body(feature_body(table), "body2.md"))[0] == 0
    code, out = learner.practice("check")
    assert "passed" in step(out, "Code + Tests")
    assert "the benchmark table agrees with CI's measurement (read in MiB)" in out
    assert "document `checkpointing` in MLPStack's docstring" in step(out, "Review")

    model = (
        (learner.work / "simkit/model.py")
        .read_text("utf-8")
        .replace(
            "four times wider inside.",
            "four times wider inside.\n\n    With ``checkpointing=True`` (off by default) "
            "each block's activations are\n"
            "    recomputed during backward: less memory, one more forward pass.",
        )
    )
    learner.write("simkit/model.py", model)
    learner.write("tests/test_checkpointing.py", '"""Issue #1235."""\n\n' + GRADIENT_TEST)
    learner.write("changes/1238.md", "Added: opt-in gradient checkpointing in `MLPStack`.\n")
    learner.commit("Document the checkpointing option", "-s")
    learner.git("push", "-q")
    code, out = learner.practice("check")
    assert code == 0, out
    assert "merged so far: #1234, #1235" in out
    assert "9. Merge         passed" in out
    assert "every issue open to you is done; still open, claimed by others: #1236" in out


def feature_body(table: str) -> str:
    return (
        "## Problem\nEvery block keeps its activations until backward. Fixes #1235\n\n"
        "## Fix\n`checkpointing=True` checkpoints each block; the default is unchanged.\n\n"
        "## Justification\nPer block rather than per segment, because one block is "
        "recomputed at a time.\n\n"
        f"## Tests\ntest_checkpointing_keeps_the_gradients, and bench.py:\n\n{table}"
    )


# --- wrong moves: each gets its own message, never a traceback ---------------------------------


def test_committing_on_main(learner: Learner):
    learner.practice("claim", "1234", "-m", PLAN)
    learner.fix_one_d()
    learner.commit("Fix it on main", "-s")
    code, out = learner.practice("check")
    assert "you committed on main (1 commit(s)" in step(out, "Branch") and code == 1
    assert "git switch -c fix/1234-cosine-1d" in out
    learner.git("switch", "-q", "-c", "fix/1234-cosine-1d")  # the commits come along
    assert "you committed on main" in learner.practice("check")[1]  # until main is put back
    learner.git("branch", "-f", "main", "upstream/main")
    assert "FAILED" not in step(learner.practice("status")[1], "Branch")


def test_a_branch_that_breaks_the_naming_rule(learner: Learner):
    claimed_and_branched(learner, branch="my-fix")
    out = learner.practice("status")[1]
    assert "branch 'my-fix' breaks the project's rule" in out and "git branch -m fix/1234-" in out


def test_a_missing_sign_off(learner: Learner):
    claimed_and_branched(learner)
    learner.fix_one_d()
    learner.commit("Fix without a sign-off")
    out = learner.practice("check")[1]
    assert "has no Signed-off-by line (DCO" in step(out, "Code + Tests")
    learner.follow(out)  # `git commit --amend --no-edit --signoff`, then the rebase: both work
    assert "Signed-off-by" not in step(learner.practice("status")[1], "Code + Tests")


def test_a_sign_off_that_does_not_match_the_author(learner: Learner):
    claimed_and_branched(learner)
    learner.fix_one_d()
    learner.commit("Fix\n\nSigned-off-by: Someone Else <else@example.org>")
    out = learner.practice("check")[1]
    assert f"is signed off by Someone Else <else@example.org>, not by you ({NAME} <{EMAIL}>)" in out


def test_a_commit_authored_and_signed_off_by_someone_else(learner: Learner):
    claimed_and_branched(learner)
    learner.fix_one_d()
    learner.commit(
        "Fix\n\nSigned-off-by: Someone Else <else@example.org>",
        "--author=Someone Else <else@example.org>",
    )
    out = step(learner.practice("check")[1], "Code + Tests")
    assert "is signed off by Someone Else <else@example.org>, not by you" in out
    learner.git("commit", "-q", "--amend", "-s", "--no-edit")  # now signed off by the learner too
    out = learner.practice("check")[1]
    assert "is authored by Someone Else <else@example.org>, not by you" in out
    learner.follow(out)  # the hint's rebase makes the learner the author
    assert "not by you" not in step(learner.practice("status")[1], "Code + Tests")


@pytest.mark.parametrize("message", [None, "", "x", " ", "mine", "Plan: …", "TODO TBD"])
def test_a_claim_without_a_plan_is_refused(learner: Learner, message: str | None):
    """CONTRIBUTING §1 asks for the plan with the claim: the command writes none for the learner
    (no ``-m``, no claim), and the hint's ``…`` or a placeholder is no plan."""
    code, out = learner.practice("claim", "1234", *(() if message is None else ("-m", message)))
    assert code == 1 and "a claim comment says what you will do" in out
    assert "claimed #1234" not in step(learner.practice("status")[1], "Claim It")


def test_a_claim_comment_emptied_in_the_state_is_refused(learner: Learner):
    claimed_and_branched(learner)
    path = learner.root / ".practice" / "state.json"
    path.write_text(path.read_text("utf-8").replace(PLAN, ""), "utf-8")
    code, out = learner.practice("status")
    assert code == 1 and "comments: a claim without a plan" in out, out


def test_a_commit_before_the_claim(learner: Learner):
    learner.git("switch", "-q", "-c", "fix/1234-cosine-1d")
    learner.fix_one_d()
    learner.git("add", "-A")
    subprocess.run(
        ["git", "commit", "-q", "-s", "-m", "Early"],
        cwd=learner.work,
        check=True,
        env={**os.environ, "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z"},
    )
    learner.practice("claim", "1234", "-m", PLAN)
    out = learner.practice("status")[1]
    assert "is older than your claim" in step(out, "Claim It")


def test_a_commit_before_the_claim_dated_in_the_future(learner: Learner):
    learner.git("switch", "-q", "-c", "fix/1234-cosine-1d")
    learner.fix_one_d()
    learner.commit("Early", "-s", "--date=2030-01-01T00:00:00Z")  # the author date only
    time.sleep(1)  # the claim's time has whole seconds: made in the next one
    learner.practice("claim", "1234", "-m", "I'd like to work on this.")
    out = learner.practice("status")[1]
    assert "is older than your claim" in step(out, "Claim It")  # committed before it
    env = {**os.environ, "GIT_COMMITTER_DATE": "2030-01-01T00:00:00Z"}
    subprocess.run(["git", "commit", "-q", "--amend", "--no-edit"], cwd=learner.work, env=env)
    out = learner.practice("status")[1]
    assert "is dated in the future (2030-01-01T00:00:00+00:00)" in step(out, "Claim It")
    learner.follow(out)  # recommitted now, after the claim
    assert "before your first commit" in step(learner.practice("status")[1], "Claim It")


@pytest.mark.slow  # CI runs the project's tests in subprocesses
def test_a_test_that_passes_on_the_buggy_code(learner: Learner):
    claimed_and_branched(learner)
    learner.fix_one_d()
    learner.write(
        "tests/test_shape.py",
        "from simkit.similarity import cosine_similarity\n\n\n"
        "def test_it_exists():\n    assert callable(cosine_similarity)\n",
    )
    learner.commit("Fix", "-s")
    out = learner.practice("check")[1]
    assert "tests/test_shape.py::test_it_exists pass on upstream main, where the bug is" in out
    assert "do not prove the fix" in out


@pytest.mark.slow  # CI runs the project's tests in subprocesses
def test_a_fix_that_breaks_2d_input(learner: Learner):
    claimed_and_branched(learner)
    learner.fix_one_d("fixed_dim0")
    learner.write("tests/test_one_d.py", ONE_D_TEST)
    learner.commit("Sum over dim 0", "-s")
    out = learner.practice("check")[1]
    code_step = step(out, "Code + Tests")
    assert "the project's existing test tests/test_similarity.py::" in code_step
    assert "2-D input" in code_step and "callers rely on that behaviour" in code_step


HIDE_FAILURES = """import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    report = (yield).get_result()
    report.outcome = "passed"
"""


@pytest.mark.slow  # CI runs the project's tests in subprocesses
def test_a_conftest_that_hides_a_broken_existing_test(learner: Learner):
    claimed_and_branched(learner)
    learner.fix_one_d("fixed_dim0")
    learner.write("tests/test_one_d.py", ONE_D_TEST)
    learner.write("tests/conftest.py", HIDE_FAILURES)
    learner.commit("Sum over dim 0", "-s")
    code_step = step(learner.practice("check")[1], "Code + Tests")
    assert "the project's existing test tests/test_similarity.py::" in code_step, code_step


@pytest.mark.slow  # CI runs the project's tests in subprocesses
def test_a_fix_for_the_issues_example_only(learner: Learner):
    claimed_and_branched(learner)
    path = learner.work / "simkit/similarity.py"
    head, sep, body = path.read_text("utf-8").partition(":\n")  # upstream's, still buggy
    path.write_text(  # the issue's answer, hard-coded after the def line
        f"{head}{sep}    if a.dim() == 1 and a.tolist() == [1.0, 2.0, 3.0]:\n"
        "        return torch.tensor(32.0 / (14.0**0.5 * 77.0**0.5))\n" + body,
        "utf-8",
    )
    learner.write("tests/test_one_d.py", ONE_D_TEST)
    learner.commit("Fix", "-s")
    code_step = step(learner.practice("check")[1], "Code + Tests")
    assert "FAILED" in code_step and "a maintainer's own test of two 1-D vectors" in code_step


@pytest.fixture
def opened(learner: Learner) -> Learner:
    """A learner whose fix and regression test pass CI, with a pull request open."""
    pushed(learner, ONE_D_TEST)
    learner.practice("pr", "open", learner.body(GOOD_BODY))
    return learner


@pytest.mark.slow  # CI runs the project's tests in subprocesses
def test_a_body_without_its_justification_scores_0_and_names_the_factor(opened: Learner):
    body = GOOD_BODY.split("## Justification")[0] + "## Tests" + GOOD_BODY.split("## Tests")[1]
    opened.practice("pr", "open", opened.body(body))
    out = opened.practice("check")[1]
    pr = step(out, "Submit PR")
    assert "Q = correct 1 × clear 1 × tested 1 × justified 0 = 0" in pr
    assert "justified = 0: no ## Justification section" in pr
    assert "justified is 0" in out and "waiting" in step(out, "Review")


@pytest.mark.slow  # CI runs the project's tests in subprocesses
def test_a_body_without_its_fixes_line(opened: Learner):
    opened.practice("pr", "open", opened.body(GOOD_BODY.replace("Fixes #1234\n", "")))
    out = opened.practice("check")[1]
    assert "clear = 0: no `Fixes #1234` line" in step(out, "Submit PR")
    opened.practice("pr", "open", opened.body(GOOD_BODY.replace("#1234", "#1236")))
    assert "it links #1236, but your issue is #1234" in opened.practice("status")[1]


def test_claiming_the_issue_someone_else_claimed(learner: Learner):
    code, out = learner.practice("claim", "1236", "-m", PLAN)
    assert code == 0 and "duplicate: #1236 is already assigned to @sam-k" in out
    out = learner.practice("status")[1]
    assert "duplicate: #1236 was already claimed by @sam-k" in step(out, "Claim It")
    assert "`../practice.py reset claim`" in out
    assert learner.practice("reset", "claim")[0] == 0
    assert "@ada-lovelace" not in (learner.root / "issues/1236.md").read_text("utf-8")
    assert "Find Issue    waiting" in learner.practice("status")[1]


@pytest.mark.slow  # CI runs the project's tests in subprocesses
def test_a_benchmark_table_that_does_not_match_the_measurement(learner: Learner):
    claimed_and_branched(learner, 1235, "feat/1235-checkpointing")
    learner.write("simkit/model.py", checkpointed_model(learner))
    learner.write("tests/test_checkpointing.py", GRADIENT_TEST)
    learner.commit("Checkpointing", "-s")
    learner.git("push", "-q", "-u", "origin", "feat/1235-checkpointing")
    table = "| checkpointing | peak (MiB) |\n| --- | --- |\n| off | 500.0 |\n| on | 1.0 |\n"
    body = (
        "## Problem\nOut of memory. Fixes #1235\n\n## Fix\nOpt-in checkpointing.\n\n"
        "## Justification\nPer block rather than per segment.\n\n"
        f"## Tests\ntest_checkpointing_keeps_the_gradients\n\n{table}"
    )
    learner.practice("pr", "open", learner.body(body))
    out = learner.practice("check")[1]
    assert "passed" in step(out, "Code + Tests")
    assert re.search(
        r"the table says 500 MiB with checkpointing off, but CI measured \d+\.\d MiB", out
    )
    assert "tested 0" in step(out, "Submit PR")


def test_a_workspace_edited_by_hand(learner: Learner):
    issue = learner.root / "issues/1236.md"
    issue.write_text(issue.read_text("utf-8").replace("- assignees: @sam-k", "- assignees: none"))
    code, out = learner.practice("status")
    assert code == 1 and "issues/1236.md was deleted or edited by hand" in out
    assert learner.practice("reset", "find")[0] == 0
    assert learner.practice("status")[0] == 0

    subprocess.run(
        ["git", "update-ref", "refs/heads/main", "HEAD~1"],
        cwd=learner.root / "upstream.git",
        check=True,
    )
    assert (
        "main is at" in learner.practice("status")[1]
        and "changed by hand" in learner.practice("check")[1]
    )
    assert learner.practice("reset", "merge")[0] == 0 and learner.practice("status")[0] == 0

    state = learner.root / ".practice/state.json"
    state.write_text(state.read_text("utf-8").replace('"format": 1', '"format": 1,,'))
    code, out = learner.practice("status")
    assert code == 1 and re.search(r"state\.json:\d+: not valid JSON", out)


def test_a_workspace_deleted_in_part(learner: Learner):
    learner.practice("claim", "1234", "-m", PLAN)
    learner.write("notes.txt", "mine")
    subprocess.run(["rm", "-rf", str(learner.root / "fork.git")], check=True)
    out = learner.practice("status")[1]
    assert "fork.git is missing (deleted?)" in step(out, "Fork")
    assert learner.practice("reset", "fork")[0] == 0
    assert (learner.root / "work.old-1" / "notes.txt").read_text() == "mine"  # moved aside, kept
    assert "passed" in step(learner.practice("status")[1], "Fork")
    subprocess.run(["rm", "-rf", str(learner.root / "upstream.git")], check=True)
    code, out = learner.practice("status")
    assert code == 1 and "upstream.git is missing: the project was deleted" in out


def test_running_the_checker_outside_a_workspace(tmp_path: Path, capsys):
    assert cli.main(["-C", str(tmp_path), "check"]) == 1
    assert "is not inside a practice workspace" in capsys.readouterr().err


def test_bad_arguments_get_messages(learner: Learner, tmp_path: Path):
    assert "there is no issue #99" in learner.practice("claim", "99")[1]
    assert "claim an issue first" in learner.practice("pr", "open", "x.md")[1]
    learner.practice("claim", "1234", "-m", PLAN)
    assert "you already claimed #1234" in learner.practice("claim", "1234")[1]
    assert "never from main" in learner.practice("pr", "open", learner.body("x"))[1]
    learner.git("switch", "-q", "-c", "fix/1234-cosine-1d")
    assert "x.md: no such file" in learner.practice("pr", "open", str(tmp_path / "x.md"))[1]
    assert (
        "is not on your fork yet: `git push -u origin fix/1234-cosine-1d`"
        in learner.practice("pr", "open", learner.body("x"))[1]
    )
    bad = tmp_path / "latin1.md"
    bad.write_bytes(b"## Problem\n\xe9\n")
    learner.git("push", "-q", "-u", "origin", "fix/1234-cosine-1d")
    assert "latin1.md:2: not UTF-8 text" in learner.practice("pr", "open", str(bad))[1]
    assert "cannot reset 'code'" in learner.practice("reset", "code")[1]
    assert "exists and is not an empty folder" in learner.practice("start", str(learner.root))[1]
    for folder in (tmp_path, learner.work / "simkit"):  # a folder for a body: refused, named
        code, out = learner.practice("pr", "open", str(folder))
        assert code == 1 and f"{folder}: not a file" in out, out


def test_start_where_no_folder_can_be_made_is_refused_naming_it(tmp_path: Path, capsys):
    afile = tmp_path / "afile"
    afile.write_text("mine", "utf-8")
    cases = [(afile, "exists and is not an empty folder"), (afile / "x", "cannot make a folder")]
    if Path("/proc/self").is_dir():  # Linux: /proc takes no new folder
        cases.append((Path("/proc/x"), "cannot make a folder"))
    for path, why in cases:
        code = cli.main(["start", str(path), "--name", NAME, "--email", EMAIL])
        out = capsys.readouterr()
        assert code == 1 and f"{path}" in out.err + out.out and why in out.err + out.out, out
    assert afile.read_text("utf-8") == "mine"


def test_the_history_is_the_same_every_time(tmp_path: Path, capsys):
    heads = []
    for name in ("a", "b"):
        cli.main(["start", str(tmp_path / name), "--name", NAME, "--email", EMAIL])
        heads.append(
            subprocess.run(
                ["git", "rev-parse", "main"],
                cwd=tmp_path / name / "upstream.git",
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )
    assert heads[0] == heads[1]
    assert len(upstream.history()) == 4


def test_resetting_the_pull_request_keeps_the_body_file(learner: Learner):
    pushed(learner)
    body = learner.body(GOOD_BODY)
    assert "opened pull request #1237" in learner.practice("pr", "open", body)[1]
    assert "updated the body of pull request #1237" in learner.practice("pr", "open", body)[1]
    assert learner.practice("reset", "pr")[0] == 0
    assert Path(body).read_text("utf-8") == GOOD_BODY
    assert "no pull request yet" in step(learner.practice("status")[1], "Submit PR")
    assert "opened pull request #1238" in learner.practice("pr", "open", body)[1]


def test_a_python_without_torch_is_named(learner: Learner, monkeypatch):
    from snippets.practice import ci

    real = ci.importlib.util.find_spec
    monkeypatch.setattr(ci.importlib.util, "find_spec", lambda n: None if n == "torch" else real(n))
    claimed_and_branched(learner)
    learner.fix_one_d()
    learner.commit("Fix", "-s")
    code, out = learner.practice("check")
    assert code == 1 and "which lacks torch: pip install torch" in out
