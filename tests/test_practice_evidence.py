"""The practice workspace judges by evidence, as a maintainer and CI would (issue #35).

Times compare as instants in every time zone; a moved workspace keeps working; the learner's test
is judged by the wrong fixes it catches; a body by its structure, in English or Urdu; the
checkpointing benchmark tells right RNG handling from wrong; upstream behaves like a hosted
repository; the state is believed only as far as git shows it; and hints run as printed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from datetime import timedelta
from pathlib import Path

import pytest
import test_practice as lifecycle
from test_practice import (
    GOOD_BODY,
    ONE_D_TEST,
    PLAN,
    TIME_ZONES,
    Learner,
    answer_the_review,
    checkpointed_model,
    claimed_and_branched,
    pushed,
    step,
)

from snippets.practice import (
    ci,
    issues,
    rubric,
    trust,
    upstream,
    verdict,
    workspace,
    wrongfixes,
)
from snippets.practice.wrongfixes import WRONG_FIXES

learner, zone, opened = lifecycle.learner, lifecycle.zone, lifecycle.opened  # fixtures
ROOT = Path(__file__).resolve().parents[1]


def _commit_dated(learner: Learner, message: str, date: str | None) -> None:
    learner.git("add", "-A")
    env = {"GIT_AUTHOR_DATE": date} if date else {}
    subprocess.run(
        ["git", "commit", "-q", "-s", "-m", message],
        cwd=learner.work,
        check=True,
        env={**os.environ, **env},
    )


# --- time is time ---------------------------------------------------------------------------


@pytest.mark.parametrize("zone", TIME_ZONES, indirect=True)
def test_a_commit_after_the_claim_passes_in_every_zone(learner: Learner, zone: str):
    claimed_and_branched(learner)
    learner.fix_one_d()
    _commit_dated(learner, "Fix", None)  # now, written with this zone's offset by git
    offset = learner.git("log", "-1", "--format=%aI").strip()[-6:]
    assert (offset == "+05:00") == (zone == "Asia/Karachi")
    assert "before your first commit" in step(learner.practice("status")[1], "Claim It")


@pytest.mark.parametrize("zone", TIME_ZONES, indirect=True)
def test_a_commit_before_the_claim_fails_in_every_zone_and_its_hint_works(
    learner: Learner, zone: str
):
    claimed_and_branched(learner)
    claimed = issues.now()
    learner.fix_one_d()
    # An hour before the claim, written in this zone's own offset (git's `%aI` form).
    local = (trust.stamp(claimed) - timedelta(hours=1)).astimezone().isoformat()
    _commit_dated(learner, "Early", local)
    out = learner.practice("status")[1]
    assert "is older than your claim" in step(out, "Claim It"), out
    learner.follow(out)  # recommit after the claim, as printed
    assert "before your first commit" in step(learner.practice("status")[1], "Claim It")


def test_timestamps_compare_as_instants():
    stamp = trust.stamp
    assert stamp("2026-12-01T10:00:00-05:00") > stamp("2026-12-01T14:30:00Z")
    assert stamp("2026-12-01T23:00:00+05:00") < stamp("2026-12-01T18:30:00Z")
    with pytest.raises(ValueError):
        stamp("2026-12-01T10:00:00")  # no offset: no instant


# --- the Quick start environment and the zip's page -----------------------------------------


def test_the_build_environment_and_the_zip_page_name_what_ci_needs():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    runtime = {re.split(r"[<>=!~ \[]", d, maxsplit=1)[0].lower() for d in project["dependencies"]}
    page = (ROOT / "docs" / "practice.md").read_text("utf-8")
    needs = page[page.index("You need") :].split("\n\n")[0]
    for need in ci.NEEDS:
        assert need in runtime, f"pyproject.toml: the build's environment lacks {need}"
        assert need in needs, f"docs/practice.md: 'You need ...' does not name {need}"


# --- a moved workspace ----------------------------------------------------------------------


def test_a_moved_and_renamed_workspace_keeps_working(learner: Learner, tmp_path: Path):
    claimed_and_branched(learner)
    learner.fix_one_d()
    learner.commit("Fix", "-s")
    moved = tmp_path / "elsewhere" / "renamed"
    moved.parent.mkdir()
    shutil.move(learner.root, moved)
    learner.root, learner.work = moved, moved / "work"
    learner.git("push", "-q", "-u", "origin", "fix/1234-cosine-1d")  # the relative remote
    out = learner.practice("status")[1]
    assert "passed" in step(out, "Fork") and "passed" in step(out, "Branch")
    done = subprocess.run(["../practice.py", "status"], cwd=learner.work, capture_output=True)
    assert done.returncode == 0 and b"Traceback" not in done.stderr, done.stderr


def test_an_absolute_remote_after_a_move_gets_a_one_line_fix(learner: Learner):
    learner.practice("claim", "1234", "-m", PLAN)
    learner.git("remote", "set-url", "origin", "/nowhere/fork.git")  # as an old workspace had
    out = learner.practice("status")[1]
    assert "was the workspace moved?" in step(out, "Fork")
    assert learner.follow(out) == ["git remote set-url origin ../fork.git"]
    assert "passed" in step(learner.practice("status")[1], "Fork")


# --- the learner's test, judged by mutation ---------------------------------------------------


def _fix_with_test(learner: Learner, test: str) -> str:
    claimed_and_branched(learner)
    learner.fix_one_d()
    learner.write("tests/test_one_d.py", test)
    learner.commit("Fix", "-s")
    return learner.practice("check")[1]


@pytest.mark.slow  # CI runs the project's tests in subprocesses
def test_a_test_with_no_assertion_is_refused(learner: Learner):
    test = ONE_D_TEST.split("    result =")[0] + "    cosine_similarity(a, b)\n"
    out = _fix_with_test(learner, test)
    assert "tests/test_one_d.py::test_cosine_similarity_1d asserts nothing" in out
    assert "FAILED" in step(out, "Code + Tests")


@pytest.mark.slow  # CI runs the project's tests in subprocesses
def test_a_test_that_catches_no_wrong_fix_is_refused(learner: Learner):
    test = ONE_D_TEST.replace(
        "assert torch.allclose(result, expected)", "assert not torch.isnan(result).any()"
    )
    out = _fix_with_test(learner, test)
    code = " ".join(step(out, "Code + Tests").split())
    assert "your new tests pass on every wrong fix CI tried (dim=0:" in code
    assert "they cannot tell a right fix from a wrong one" in code


def test_the_wrong_fixes_fail_where_they_should():
    """Each wrong fix is right for the 1-D case or wrong only in a value, and the right fix of
    Lesson 3.3 differs from each on the input that its `catch` names."""
    import torch

    def load(code: str):
        space: dict = {}
        exec(compile(code, "similarity.py", "exec"), space)
        return space["cosine_similarity"]

    right = load(wrongfixes.HEAD + upstream.section("cosine_fixed.py", "fixed"))  # Lesson 3.3
    vector, other = torch.tensor([1.0, 2.0, 3.0]), torch.tensor([4.0, 5.0, 6.0])
    batch, one_row = torch.stack([vector, vector]), vector.unsqueeze(0)
    differs = {
        w.key: [
            name
            for name, (a, b) in {
                "1-D": (vector, other),
                "batch": (batch, torch.stack([other, -other])),
                "one row": (one_row, other.unsqueeze(0)),
            }.items()
            if load(w.code)(a, b).shape != right(a, b).shape
            or not torch.allclose(load(w.code)(a, b).reshape(-1)[:1], right(a, b).reshape(-1)[:1])
        ]
        for w in WRONG_FIXES
    }
    assert differs == {
        "dim=0": ["1-D", "batch", "one row"],  # for 1-D its shape: () where the fix gives (1,)
        "squeeze without a dim": ["1-D", "one row"],
        "wrong value for 1-D": ["1-D"],
        "breaks batched input": ["batch"],
    }


# --- bodies judged by structure, in English or Urdu ---------------------------------------------

URDU_BODY = """## مسئلہ
دو 1-D ٹینسر دینے پر کریش ہوتا ہے:
IndexError: Dimension out of range (expected to be in range of [-1, 0], but got 1)
Fixes #1234

## حل
1-D ان پٹ کو `unsqueeze(0)` سے [1, N] بنایا؛ باقی کوڈ وہی ہے۔

## جواز
`dim=0` پر جمع کرنا بیچ والے صارفین کا نتیجہ توڑ دیتا، اس لیے یہ طریقہ بہتر ہے۔

## ٹیسٹ
test_cosine_similarity_1d ہاتھ سے نکالی گئی قدر سے موازنہ کرتا ہے۔
"""


def _score(body: str, number: int = 1234, bench: dict | None = None) -> dict[str, rubric.Factor]:
    factors = rubric.score(
        body,
        issue=issues.load(number),
        code_ok=True,
        code_why=[],
        new_tests=["tests/test_one_d.py::test_cosine_similarity_1d"],
        bench=bench,
    )
    return {f.name: f for f in factors}


def test_urdu_headings_and_an_urdu_justification_score_1():
    factors = _score(URDU_BODY)
    assert all(f.value for f in factors.values()), {n: f.missing for n, f in factors.items()}
    assert "the alternative dim=0, weighed" in factors["justified"].evidence[0]


@pytest.mark.parametrize(
    ("justification", "value"),
    [
        # A real justification without "instead", "rather than" or "because".
        ("Summing over `dim=0` would give a batch one value per feature, so callers break.", 1),
        ("We keep things simple and better than before.", 0),  # "keep" and "than", nothing named
        ("It is cleaner.", 0),
        ("`dim=0`.", 0),  # an alternative with no reason tied to it
    ],
)
def test_a_justification_needs_a_named_alternative_and_a_reason_tied_to_it(
    justification: str, value: int
):
    body = re.sub(r"## Justification\n.*?\n\n", f"## Justification\n{justification}\n\n", GOOD_BODY)
    justified = _score(body)["justified"]
    assert justified.value == value, justified.missing
    if not value:
        assert "names no alternative with a reason tied to it" in justified.missing[0]


ERROR = issues.load(1234).quoted_error


@pytest.mark.parametrize(
    ("section", "text"),
    [
        ("Fix", "TODO"),
        ("Fix", "…"),
        ("Fix", "<!-- What did you change? What did you keep? -->"),
        ("Fix", "<describe the change>"),  # a tag to GitHub: dropped
        ("Problem", "Lorem ipsum dolor. Fixes #1234"),
        ("Problem", "<!-- the error, quoted\n" + ERROR + "\nFixes #1234"),  # never closed
    ],
)
def test_a_section_of_placeholders_or_of_what_github_hides_is_not_clear(section, text):
    """A maintainer reads the body as GitHub shows it: HTML comments and tags are hidden."""
    body = re.sub(rf"## {section}\n.*?\n\n", f"## {section}\n{text}\n\n", GOOD_BODY, flags=re.S)
    clear = _score(body)["clear"]
    assert clear.value == 0
    assert any(
        f"the ## {section} section says nothing GitHub would show" in m for m in clear.missing
    )


@pytest.mark.parametrize(
    "fix",
    [
        "Reshape 1-D inputs with `x.view(1, -1)`; `Tensor<float>` callers are untouched.",
        "```python\nx = x[None]  # <!-- 1-D: shown, in code -->\n```",
        "1-D ان پٹ کو [1, N] بنایا۔ <!-- hidden -->",
    ],
)
def test_code_and_words_around_hidden_markup_still_count(fix):
    body = re.sub(r"## Fix\n.*?\n\n", f"## Fix\n{fix}\n\n", GOOD_BODY, flags=re.S)
    assert _score(body)["clear"].value == 1, _score(body)["clear"].missing


def test_github_shows_code_as_it_is_and_hides_comments_and_tags_in_prose():
    body = "a <!-- b --> c <d e> `<f>`\n```\n<!-- g --> <h>\n```\n<!-- i\n\nj"
    assert rubric.shown(body) == "a  c  `<f>`\n```\n<!-- g --> <h>\n```\n"


@pytest.mark.parametrize(
    "fixes", ["<!-- Fixes #1234 -->", "`Fixes #1234`", "> Fixes #1234", "```\nFixes #1234\n```"]
)
def test_a_fixes_line_github_does_not_act_on_links_nothing(fixes):
    """GitHub closes no issue for a keyword in an HTML comment, in code or in a block quote: the
    body is not clear, and the merge closes nothing (:func:`rubric.closes` serves both)."""
    body = GOOD_BODY.replace("Fixes #1234", fixes)
    clear = _score(body)["clear"]
    assert clear.value == 0 and any("no `Fixes #1234` line" in m for m in clear.missing)
    assert rubric.closes(body) == set()


def test_a_heading_in_code_is_code_not_a_section():
    fix = "Reshaped 1-D inputs; the template I followed:\n\n```markdown\n## Tests\nTODO\n```"
    body = re.sub(r"## Fix\n.*?\n\n", f"## Fix\n{fix}\n\n", GOOD_BODY, flags=re.S)
    parts = rubric.sections(body)
    assert "## Tests\nTODO" in parts["fix"]
    assert "test_cosine_similarity_1d" in parts["tests"]


def test_every_closing_keyword_in_prose_counts():
    assert rubric.closes(GOOD_BODY) == {1234}
    assert rubric.closes("Fixes #1234, and resolves #1235.\nCLOSED #1236") == {1234, 1235, 1236}


def test_tested_needs_the_test_ci_ran():
    body = GOOD_BODY.replace("test_cosine_similarity_1d", "my test")
    assert (
        "names none of the tests you added: test_cosine_similarity_1d"
        in (_score(body)["tested"].missing[0])
    )


TABLE = "| checkpointing | peak memory of one step ({unit}) |\n| --- | --- |\n"


@pytest.mark.parametrize(
    ("unit", "off", "on", "message"),
    [
        ("MiB", "40.0", "13.0", None),
        ("MB", "41.9", "13.6", None),  # 40 MiB is 41.9 MB
        ("GB", "0.0419", "0.0136", None),
        ("KiB", "39219", "13312", None),  # 38.3 MiB: within 10% of 40
        ("MB", "30.0", "13.6", "the table says 30 MB (28.6 MiB) with checkpointing off"),
        ("KiB", "20000", "13312", "the table says 20000 KiB (19.5 MiB) with checkpointing off"),
        ("pages", "40", "13", "the table's off row has no unit CI can read (none given)"),
    ],
)
def test_a_benchmark_table_is_read_with_its_unit(unit, off, on, message):
    table = TABLE.format(unit=unit) + f"| off | {off} |\n| on | {on} |\n"
    body = GOOD_BODY.replace("#1234", "#1235") + "\n" + table
    tested = _score(body, 1235, {"peak_off_mib": 40.0, "peak_on_mib": 13.0})["tested"]
    missing = [m for m in tested.missing if "names none" not in m]
    if message is None:
        assert not missing and any("agrees with CI's measurement" in e for e in tested.evidence)
    else:
        assert missing and message in missing[0], missing


# --- the checkpointing benchmark: RNG and use_reentrant -----------------------------------------


def _bench(tmp_path: Path, model: str) -> dict:
    """The project's benchmark, run as CI runs it, on a project whose model is ``model``."""
    project = tmp_path / "project"
    for _, _, files in upstream.history():
        for path, text in files.items():
            (project / path).parent.mkdir(parents=True, exist_ok=True)
            (project / path).write_text(text, "utf-8")
    (project / "simkit" / "model.py").write_text(model, "utf-8")
    done = subprocess.run(
        [sys.executable, str(project / "benchmarks" / "bench.py"), "--json"],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


class _Model:
    """Exercise 2.5's solution as the learner writes it for #1235 (tests/test_practice.py)."""

    root = work = None

    def __init__(self, tmp_path: Path) -> None:
        self.work = tmp_path / "w"
        (self.work / "simkit").mkdir(parents=True)
        (self.work / "simkit" / "model.py").write_text(upstream._model(), "utf-8")


@pytest.mark.slow  # the benchmark measures three models
def test_the_benchmark_tells_right_rng_handling_from_wrong(tmp_path: Path):
    model = checkpointed_model(_Model(tmp_path)).replace(
        "nn.GELU(),", "nn.GELU(), nn.Dropout(0.1),"
    )
    assert "nn.Dropout" in model
    right = _bench(tmp_path / "right", model)
    assert verdict.bench_problems(right) == [], right
    wrong = _bench(
        tmp_path / "wrong",
        model.replace("use_reentrant=False", "use_reentrant=False, preserve_rng_state=False"),
    )
    why, do = verdict.bench_problems(wrong)
    assert "agree in eval mode, where dropout is off: an RNG problem" in why
    assert "do not pass `preserve_rng_state=False`" in do
    implicit = _bench(tmp_path / "implicit", model.replace(", use_reentrant=False", ""))
    why, do = verdict.bench_problems(implicit)
    assert "without `use_reentrant`: torch then selects the reentrant implementation" in why
    assert do.startswith("write `checkpoint(block, x, use_reentrant=False)`")


# --- upstream behaves like a hosted repository ---------------------------------------------------


def test_a_push_to_upstream_is_refused_as_github_refuses_it(learner: Learner):
    learner.practice("claim", "1234", "-m", PLAN)
    learner.fix_one_d()
    learner.commit("Fix on main", "-s")
    done = subprocess.run(
        ["git", "push", "upstream", "HEAD:main", "HEAD:refs/heads/feature"],
        cwd=learner.work,
        capture_output=True,
        text=True,
    )
    assert done.returncode != 0
    assert "remote: Permission to simkit/simkit.git denied to ada-lovelace." in done.stderr
    out = learner.practice("status")[1]
    assert "you committed on main" in step(out, "Branch")
    learner.follow(out)  # switch to a branch, fetch upstream, put main back: as printed
    out = learner.practice("status")[1]
    assert "passed" in step(out, "Branch"), out


def test_each_branch_opens_its_own_pull_request(learner: Learner):
    pushed(learner)
    body = learner.body(GOOD_BODY)
    assert "opened pull request #1237" in learner.practice("pr", "open", body)[1]
    out = learner.practice("status")[1]
    assert f"on GitHub: gh pr edit 1237 --body-file {body}" in out  # editing, not creating
    learner.git("switch", "-q", "-c", "fix/1234-second-try")
    learner.git("push", "-q", "-u", "origin", "fix/1234-second-try")
    out = learner.practice("pr", "open", body)[1]
    assert "closed pull request #1237 from fix/1234-cosine-1d" in out
    assert "opened pull request #1238 from fix/1234-second-try" in out
    assert "updated the body of pull request #1238" in learner.practice("pr", "open", body)[1]


def test_merge_commits_are_exempt_from_the_sign_off(learner: Learner):
    claimed_and_branched(learner)
    learner.fix_one_d()
    learner.commit("Fix", "-s")
    learner.git("switch", "-q", "-c", "side", "upstream/main")
    learner.write("README.md", "simkit, with a side change\n")
    learner.commit("A side change", "-s")
    learner.git("switch", "-q", "fix/1234-cosine-1d")
    learner.git("merge", "-q", "--no-edit", "side")  # a merge commit, not signed off
    out = learner.practice("status")[1]
    assert "Signed-off-by" not in step(out, "Code + Tests")
    assert "CI has not run on this commit yet" in step(out, "Code + Tests")


def _checked_head(learner: Learner) -> tuple[workspace.Workspace, str]:
    """The workspace, and the branch's last commit as the checker fetched it for a status."""
    learner.practice("status")
    ws = workspace.load(learner.root)
    head = subprocess.run(
        ["git", "rev-parse", "refs/ci/head"], cwd=ws.ci_git, capture_output=True, text=True
    ).stdout.strip()
    return ws, head


def test_test_discovery_follows_pytests_rules(learner: Learner):
    claimed_and_branched(learner)
    learner.fix_one_d()
    learner.write("tests/cosine_1d_test.py", ONE_D_TEST)  # collected: *_test.py
    learner.write("tests/helpers.py", "X = 1\n")  # not collected
    learner.write("cosine_test.py", ONE_D_TEST)  # outside testpaths: not collected
    learner.commit("Fix", "-s")
    ws, head = _checked_head(learner)
    assert ci.changed_tests(ws.ci_git, ws.state["upstream_main"], head) == [
        "tests/cosine_1d_test.py"
    ]


def test_a_release_notes_file_must_hold_its_line_for_the_release_notes(learner: Learner):
    """CONTRIBUTING §7: ``Fixed: ...`` for a bug. An empty file, a placeholder, the other kind's
    line, or the prefix alone says nothing; the line may be in Urdu after its prefix."""
    from snippets.practice import pr_review

    claimed_and_branched(learner)
    learner.fix_one_d()
    (learner.work / "changes").mkdir()
    for text, says in [
        ("\n  \n", False),
        ("TODO\n", False),
        ("Fixed: …\n", False),
        ("Fixed:\n", False),
        ("Added: 1-D vectors.\n", False),  # a feature's line, for a bug fix
        ("Fixed: `cosine_similarity` accepts 1-D vectors.\n", True),
        ("<!-- notes -->\nFixed: `cosine_similarity` 1-D ویکٹر قبول کرتا ہے۔\n", True),
    ]:
        learner.write("changes/1237.md", text)
        learner.commit(f"Notes: {text!r}", "-s")
        ws, head = _checked_head(learner)
        change = pr_review.Change(ws.ci_git, ws.state["upstream_main"], head, {}, "bug", 1234, 1237)
        assert pr_review.RULES_BY_KEY["news-fragment"].holds(change) is not says, text


@pytest.mark.slow  # CI runs the project's tests in subprocesses
def test_every_fixes_line_closes_its_issue_on_merge(learner: Learner):
    claimed_and_branched(learner)
    answer_the_review(learner)
    learner.fix_one_d()
    learner.commit("Fix", "-s")
    learner.git("push", "-q", "-u", "origin", "fix/1234-cosine-1d")
    body = GOOD_BODY.replace("Fixes #1234\n", "Fixes #1234\nFixes #1235\n")
    learner.practice("pr", "open", learner.body(body))
    code, out = learner.practice("check")
    assert code == 0 and "#1234, #1235 closed" in out, out
    for number in (1234, 1235):
        assert "state: closed by pull request #1237" in (
            learner.root / "issues" / f"{number}.md"
        ).read_text("utf-8")
    assert "#1235 is closed: pull request #1237 fixed it" in learner.practice("claim", "1235")[1]
    assert "every issue open to you is done" in out


# --- state comes from git -----------------------------------------------------------------------


def test_a_state_edited_to_merged_is_not_believed_and_reset_merge_forgets_it(learner: Learner):
    pushed(learner)
    learner.practice("pr", "open", learner.body(GOOD_BODY))
    path = learner.root / ".practice" / "state.json"
    state = json.loads(path.read_text("utf-8"))
    main = state["upstream_main"]
    state["tasks"]["1234"]["merged"] = {"commit": main, "parent": main}
    state["issues"]["1234"]["closed_by"] = 1237
    path.write_text(json.dumps(state), "utf-8")
    code, out = learner.practice("status")
    assert code == 1 and "it says pull request #1237 (#1234) was merged as" in out
    assert "but upstream.git's main holds no such merge" in out
    assert "`../practice.py reset merge` forgets what the repositories do not show" in out
    assert learner.practice("reset", "merge")[0] == 0
    out = learner.practice("status")[1]
    assert "merged so far" not in out and "no pull request yet" not in out
    assert "state: open" in (learner.root / "issues" / "1234.md").read_text("utf-8")


@pytest.mark.parametrize(
    ("reason", "accepted"),
    [
        ("The test's name says it is the 1-D crash of the issue.", True),
        ("TODO TODO TODO TODO TODO TODO", False),
        ("… … … … … … …", False),
        ("Too short to say why.", False),
    ],
)
def test_a_reason_answers_a_matter_of_taste_only_in_a_sentence_of_its_own(reason, accepted):
    from snippets.practice import pr_review

    comment = {"rule": "issue-in-test", "text": "tests: name the issue"}
    answer = pr_review.reply(comment, reason)
    assert (answer is None) is accepted, answer


# --- hints that work as printed -------------------------------------------------------------------


@pytest.mark.slow  # CI runs the project's tests in subprocesses
def test_after_a_force_push_the_printed_recovery_works_and_reasons_answer_taste(
    opened: Learner,
):
    out = opened.practice("check")[1]
    assert "FAILED" in step(out, "Revisions")
    made = json.loads((opened.root / ".practice" / "state.json").read_text())["tasks"]["1234"]
    rules = [c["rule"] for c in made["review"]["comments"]]
    taste, news = rules.index("issue-in-test") + 1, rules.index("news-fragment") + 1
    code, said = opened.practice(
        "reply", str(taste), "-m", "The test's name says it is the 1-D crash of the issue."
    )
    assert code == 0 and "the maintainer: accepted" in said
    code, said = opened.practice(
        "reply", str(news), "-m", "I would rather not add a file for this."
    )
    assert code == 1 and "this one is needed" in said
    assert "  - maintainer: accepted" in (opened.root / "reviews" / "1237.md").read_text()

    answer_the_review(opened)
    opened.git("add", "-A")
    opened.git("commit", "-q", "--amend", "-s", "--no-edit")
    opened.git("push", "-q", "-f")
    out = opened.practice("check")[1]
    assert "the reviewed commits were rewritten (force-push)" in step(out, "Revisions")
    opened.follow(out)  # git reset --soft REVIEWED && git commit -s && git push -f, as printed
    code, out = opened.practice("check")
    assert code == 0 and "the project: merged pull request #1237" in out, out
