"""The nine lifecycle steps of Lesson 1, each checked the way the project's CI, bot and
maintainers would check it, with why it fails, what to do next and the real GitHub equivalent.

:func:`evaluate` looks and changes nothing, unless ``act``: then it runs CI when the commits are
new to it, posts the review once the pull request is ready for one, and merges when every step
has passed (the only three things the project does on its side).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from . import ci, issues, review, rubric, trust, upstream
from .gitio import git, maybe
from .workspace import Workspace
from .wrongfixes import WRONG_FIXES

STEPS = (
    ("find", "Find Issue", "gh issue list --label 'good first issue'; gh issue view N --comments"),
    ("claim", "Claim It", 'gh issue comment N --body "I\'d like to work on this. Plan: …"'),
    ("fork", "Fork", "gh repo fork simkit/simkit --clone (adds the upstream remote)"),
    ("branch", "Branch", "git switch -c BRANCH"),  # the issue's own name, filled in by evaluate
    ("code", "Code + Tests", "pytest; git commit --signoff; git push -u origin BRANCH"),
    ("pr", "Submit PR", "gh pr create --draft --body-file BODY.md, then gh pr ready"),
    ("review", "Review", "gh pr view N --comments"),
    ("revisions", "Revisions", "git commit --signoff && git push (same branch, no force-push)"),
    ("merge", "Merge", "gh pr merge N (a maintainer); `Fixes #N` closes the issue"),
)
BRANCH_RULE = re.compile(r"^(fix|feat)/(\d+)-[a-z0-9]+(?:-[a-z0-9]+)*$")
GRADIENT_TOLERANCE = 1e-5  # relative to each gradient's largest entry: recomputation is exact
SIGNOFF = re.compile(r"^Signed-off-by: (.+?) <([^>]+)>\s*$", re.MULTILINE)


@dataclass
class Step:
    key: str
    title: str
    github: str
    state: str = "waiting"  # passed, failed, waiting
    lines: list[str] = field(default_factory=list)
    hint: str = ""


@dataclass
class Facts:
    """What the checks read: the branch, its commits and CI's result, gathered once."""

    issue: issues.Issue
    task: dict
    branch: str | None = None
    head: str | None = None
    # each commit ahead of upstream's main: (sha, author date, author, email, message, parents)
    commits: list[tuple[str, str, str, str, str, str]] = field(default_factory=list)
    ci: dict | None = None


def evaluate(ws: Workspace, *, act: bool) -> tuple[list[Step], list[str]]:
    """The nine steps, in order, and what the project did during this check (with ``act``)."""
    steps = [Step(*row) for row in STEPS]
    by_key = {s.key: s for s in steps}
    done: list[str] = []
    task = ws.task()
    find = by_key["find"]
    if task is None:
        find.lines.append("you are not working on an issue yet")
        find.hint = (
            "read the files in issues/ (comments and assignees too), then "
            '`./practice.py claim N -m "Plan: …"`'
        )
        return steps, done
    issue = issues.load(int(ws.state["current"]))
    facts = Facts(issue, task)
    by_key["branch"].github = f"git switch -c {_example_branch(issue)}"
    _passed(find, f"you chose #{issue.number}: {issue.title} ({issue.kind})")
    if task.get("merged"):
        for step in steps[1:-1]:
            _passed(step, "done")
        _passed(
            by_key["merge"], f"merged as {task['merged']['commit'][:12]}; #{issue.number} is closed"
        )
        by_key["merge"].hint = _after_merge(ws)
        return steps, done
    checks = [_fork, _branch, _claim, _code, _pr, _review, _revisions, _merge]
    order = ["fork", "branch", "claim", "code", "pr", "review", "revisions", "merge"]
    for key, check in zip(order, checks, strict=True):
        step = by_key[key]
        check(ws, facts, step, act, done)
        # Branch, claim and code report even when the step before failed: each has its own
        # evidence (the claim's time is compared with the commits, the body is scored anyway).
        if key == "fork" and step.state != "passed":
            break
        if key == "claim" and any(by_key[k].state != "passed" for k in ("branch", "claim")):
            break
        if key in {"pr", "review", "revisions"} and step.state != "passed":
            break
    return steps, done


def _passed(step: Step, line: str) -> None:
    step.state = "passed"
    step.lines.append(line)


def _failed(step: Step, why: str, hint: str) -> None:
    step.state = "failed"
    step.lines.append(why)
    step.hint = hint


def _fork(ws: Workspace, facts: Facts, step: Step, act: bool, done: list[str]) -> None:
    if not (ws.work / ".git").exists():
        return _failed(
            step,
            f"{ws.work} is missing (deleted?)",
            "`./practice.py reset fork` makes your fork and clone again",
        )
    if not (ws.own("fork.git") / "HEAD").is_file():
        return _failed(
            step,
            f"{ws.fork} is missing (deleted?)",
            "`./practice.py reset fork` makes it again (work/ is moved aside)",
        )
    for remote, target in (("origin", ws.fork), ("upstream", ws.upstream)):
        url = maybe("remote", "get-url", remote, cwd=ws.work)
        if url is None or (ws.work / url).resolve() != target.resolve():
            verb = "add" if url is None else "set-url"
            return _failed(
                step,
                f"work/ has no remote {remote!r} pointing at ../{target.name}"
                + ("" if url is None else f" (it points at {url}: was the workspace moved?)"),
                f"`git remote {verb} {remote} ../{target.name}` (in work/)",
            )
    _passed(step, "work/ is a clone of your fork, with the upstream remote")


def _branch(ws: Workspace, facts: Facts, step: Step, act: bool, done: list[str]) -> None:
    base = ws.state["upstream_main"]
    pr = facts.task.get("pr")
    if pr:
        facts.branch = pr["branch"]
        if maybe("rev-parse", "--verify", f"refs/heads/{pr['branch']}", cwd=ws.fork) is None:
            return _failed(
                step,
                f"your pull request's branch {pr['branch']} is gone from your fork",
                f"`git push origin {pr['branch']}`, or `./practice.py reset pr`",
            )
    else:
        facts.branch = maybe("symbolic-ref", "--short", "-q", "HEAD", cwd=ws.work)
        if facts.branch is None:
            return _failed(
                step,
                "work/ has a detached HEAD, not a branch",
                f"`git switch -c {_example_branch(facts.issue)}`",
            )
    repo = ci_repo(ws, ws.fork if pr else ws.work, facts.branch)
    ahead = maybe("rev-list", f"{base}..refs/ci/work-main", cwd=repo)
    if ahead:
        return _failed(
            step,
            f"you committed on main ({len(ahead.splitlines())} commit(s) that upstream does not "
            "have): never commit to main, not even on your fork",
            _keep_on_a_branch(facts),
        )
    if facts.branch == "main":
        return _failed(
            step,
            "you are on main",
            f"make your branch: `git switch -c {_example_branch(facts.issue)}`",
        )
    match = BRANCH_RULE.match(facts.branch)
    prefix = "fix" if facts.issue.kind == "bug" else "feat"
    if not match or match.group(1) != prefix or int(match.group(2)) != facts.issue.number:
        return _failed(
            step,
            f"branch {facts.branch!r} breaks the project's rule (CONTRIBUTING.md §2): "
            f"a {facts.issue.kind} is `{prefix}/{facts.issue.number}-<words>`",
            f"`git branch -m {_example_branch(facts.issue)}`",
        )
    facts.head = git("rev-parse", "refs/ci/head", cwd=repo)
    log = git(
        "log",
        "--reverse",
        "--format=%H%x1f%aI%x1f%an%x1f%ae%x1f%P%x1f%B%x1e",
        f"{base}..{facts.head}",
        cwd=repo,
    )
    for entry in (e.strip("\n") for e in log.split("\x1e") if e.strip()):
        sha, date, name, email, parents, message = entry.split("\x1f", 5)
        facts.commits.append((sha, date, name, email, message, parents))
    _passed(step, f"on {facts.branch}, {len(facts.commits)} commit(s) ahead of upstream's main")


def _keep_on_a_branch(facts: Facts) -> str:
    """The hint after commits on main: switch to a branch (they come along), then put main back
    where upstream has it, fetched first, so the command works whatever ``upstream/main`` held."""
    switch = (
        ""
        if facts.branch not in (None, "main")
        else f"`git switch -c {_example_branch(facts.issue)}` (the commits come along), then "
    )
    return (
        f"keep the work on a branch: {switch}put main back: "
        "`git fetch upstream && git branch -f main upstream/main`"
    )


def ci_repo(ws: Workspace, source: Path, branch: str) -> Path:
    """The checker's own repository: upstream's main, and the branch and main of ``source``
    (work/ before a pull request, the fork after), fetched so that nothing of the learner's is
    touched. CI, the reviewer and the commit checks all read it."""
    repo = ws.ci_git
    if not (repo / "HEAD").is_file():
        git("init", "-q", "--bare", str(repo))
    git(
        "fetch",
        "-q",
        "--no-tags",
        str(ws.upstream),
        "+refs/heads/main:refs/upstream/main",
        cwd=repo,
    )
    git("fetch", "-q", "--no-tags", str(source), f"+refs/heads/{branch}:refs/ci/head", cwd=repo)
    git("update-ref", "-d", "refs/ci/work-main", cwd=repo)
    if maybe("rev-parse", "--verify", "-q", "refs/heads/main", cwd=ws.work):
        git(
            "fetch", "-q", "--no-tags", str(ws.work), "+refs/heads/main:refs/ci/work-main", cwd=repo
        )
    return repo


def _example_branch(issue: issues.Issue) -> str:
    return (
        f"fix/{issue.number}-cosine-1d"
        if issue.kind == "bug"
        else f"feat/{issue.number}-checkpointing"
    )


def _claim(ws: Workspace, facts: Facts, step: Step, act: bool, done: list[str]) -> None:
    issue = facts.issue
    others = [
        a for a in issue.assignees if a.lstrip("@") != issues.login(ws.state["learner"]["name"])
    ]
    if others:
        return _failed(
            step,
            f"duplicate: #{issue.number} was already claimed by {', '.join(others)} (see its "
            "comments and assignees); a second pull request would be closed as a duplicate "
            "(Lesson 1.1)",
            "`./practice.py reset claim`, then claim an issue nobody has taken",
        )
    claimed = facts.task["claimed_at"]
    own = [c for c in facts.commits if len(c[5].split()) < 2]  # a merge is not new work
    early = [c for c in own if trust.stamp(c[1]) < trust.stamp(claimed)]
    if early:
        sha, date = early[0][0], early[0][1]
        return _failed(
            step,
            f"your commit {sha[:12]} ({date}) is older than your claim ({claimed}): claim "
            "before you start, so nobody else does the same work",
            "claim first next time; here, recommit after the claim: "
            "`git rebase --exec 'git commit --amend --no-edit --reset-author' "
            f"{ws.state['upstream_main'][:12]}`",
        )
    _passed(step, f"you claimed #{issue.number} on {claimed}, before your first commit")


def _code(ws: Workspace, facts: Facts, step: Step, act: bool, done: list[str]) -> None:
    if not facts.commits:
        return _failed(
            step,
            f"no commits on {facts.branch} yet",
            "fix the code, add a regression test, then git commit -s",
        )
    for sha, _, name, email, message, parents in facts.commits:
        if len(parents.split()) > 1:
            continue  # a merge commit: the DCO app skips merges, as they add no new work
        subject = message.splitlines()[0] if message else ""
        signed = SIGNOFF.findall(message)
        if not signed:
            return _failed(
                step,
                f"commit {sha[:12]} “{subject}” has no Signed-off-by line (DCO, CONTRIBUTING.md "
                "§3)",
                "`git commit --amend --no-edit --signoff` (the last commit) or `git rebase "
                f"--signoff {ws.state['upstream_main'][:12]}` (all of them)",
            )
        if (name, email) not in signed:
            who = ", ".join(f"{n} <{e}>" for n, e in signed)
            return _failed(
                step,
                f"commit {sha[:12]} “{subject}” is signed off by {who} but authored by {name} "
                f"<{email}>",
                "sign off as yourself (your git user.name and user.email): "
                f"`git rebase --signoff {ws.state['upstream_main'][:12]}`",
            )
    base = ws.state["upstream_main"]
    result = ci.cached(
        ws.own(".practice", "ci"),
        _repo(ws),
        base,
        facts.head,
        facts.issue.kind,
        ws.own(".practice", "scratch"),
        run_now=act,
    )
    if result is None:
        step.lines.append("signed off; CI has not run on this commit yet")
        step.hint = "`./practice.py check` runs CI"
        return None
    facts.ci = result
    problems = ci_problems(result, facts.issue.kind)
    if problems:
        return _failed(
            step,
            problems[0],
            problems[1] if len(problems) > 1 else "fix it, commit with -s, and check again",
        )
    _passed(
        step, f"every commit signed off; {len(result['branch']['tests'])} tests pass on your branch"
    )
    step.lines.append("your new test fails on upstream main and passes on your branch")
    caught, missed = wrong_fixes(result)
    if caught or missed:
        step.lines.append(
            f"it catches {len(caught)} of {len(WRONG_FIXES)} wrong fixes: "
            + (", ".join(caught) or "none")
            + (f"; it misses: {', '.join(missed)} (the review asks for them)" if missed else "")
        )


def wrong_fixes(result: dict) -> tuple[list[str], list[str]]:
    """The wrong fixes CI ran the new tests on: (those a new test fails on, those it passes)."""
    caught, missed = [], []
    for wrong in WRONG_FIXES:
        outcomes = ci.new_tests(result, f"wrong:{wrong.key}")
        if outcomes:
            (caught if any(m is not None for m in outcomes.values()) else missed).append(wrong.key)
    return caught, missed


def _first_failure(run: dict) -> tuple[str, str] | None:
    """(test, first line of its message) of a run's first failure; a run in which pytest itself
    failed (a file that does not import) gives its last line of output."""
    for test, message in run["tests"].items():
        if message:
            return test, message.splitlines()[0]
    if run["returncode"] or not run["tests"]:
        return "pytest", (run["output"].strip().splitlines() or ["no output"])[-1]
    return None


def ci_problems(result: dict, kind: str) -> list[str]:
    """CI's verdict: [] when green, else [why, what to do]."""
    if not result["mine"]:
        return [
            "no test added or changed under tests/: a change needs a test that proves it "
            "(CONTRIBUTING.md §4)",
            "add a test file tests/test_….py (or a test in one), commit with -s",
        ]
    broken = _first_failure(result["existing"])
    if broken:
        return [
            f"the project's existing test {broken[0]} fails on your branch: {broken[1]}; "
            "callers rely on that behaviour (CONTRIBUTING.md §4)",
            "change your code so the existing tests pass unchanged",
        ]
    failing = _first_failure(result["branch"])
    if failing:
        return [f"tests fail on your branch: {failing[0]}: {failing[1]}", "run pytest in work/"]
    new = ci.new_tests(result)
    if not new:
        return ["your test files add no new test", "add a test function that reproduces the issue"]
    if all(m is None for m in new.values()):
        return [
            f"your new test(s) {', '.join(new)} pass on upstream main, where the bug is: "
            "they do not prove the fix (a regression test fails without it, Lesson 3.6)",
            "make the test reproduce the issue: it must fail on main and pass on your branch",
        ]
    silent = [t for t, asserts in result.get("asserts", {}).items() if not asserts]
    if silent:
        return [
            f"your new test {silent[0]} asserts nothing: it fails on main only because the code "
            "raises there, and passes on any fix that does not raise, right or wrong",
            "assert on the value: `assert torch.allclose(result, expected)` against a value "
            "worked out by hand (Lesson 3.6)",
        ]
    caught, missed = wrong_fixes(result)
    if missed and not caught:
        return [
            "your new tests pass on every wrong fix CI tried ("
            + "; ".join(f"{w.key}: {w.what}" for w in WRONG_FIXES)
            + "): they cannot tell a right fix from a wrong one",
            "test the values a right fix gives: "
            + "; ".join(sorted({w.catch for w in WRONG_FIXES})),
        ]
    if kind == "feature":
        return bench_problems(result.get("bench", {}))
    return []


def bench_problems(bench: dict) -> list[str]:
    """The benchmark's verdict on a checkpointing branch: [] when it holds, else [why, do]."""
    if "use_reentrant_warning" in bench:
        return [
            "your branch calls `checkpoint` without `use_reentrant`: torch then selects the "
            "reentrant implementation (use_reentrant=True), which gives no gradient through a "
            "block whose input does not require one, and warns that the argument must be "
            f"passed (torch said: {bench['use_reentrant_warning'][:120]}…)",
            "write `checkpoint(block, x, use_reentrant=False)`, the recommended implementation",
        ]
    if "error" in bench:
        if bench["error"].startswith("MLPStack(...) takes no"):
            return [
                bench["error"],
                "issue #1235 asks for MLPStack(..., checkpointing=False), off by default",
            ]
        return [
            f"benchmarks/bench.py failed on your branch: {bench['error']}",
            "run `python benchmarks/bench.py` in work/ and fix what it reports",
        ]
    if bench["parameters_without_gradient"]:
        return [
            f"with checkpointing, {bench['parameters_without_gradient']} parameter(s) get no "
            "gradient",
            "checkpoint with `use_reentrant=False`",
        ]
    worst = bench["max_relative_gradient_difference"]
    if worst > GRADIENT_TOLERANCE:
        in_eval = bench.get("max_relative_gradient_difference_in_eval", worst)
        if in_eval <= GRADIENT_TOLERANCE:
            return [
                f"gradients with checkpointing differ from those without by {worst:.2g} of a "
                "tensor's largest entry, but agree in eval mode, where dropout is off: an RNG "
                "problem. Recomputation drew new random numbers, so the recomputed dropout masks "
                "differ from the forward's",
                "let checkpoint restore the RNG state: leave `preserve_rng_state` at its default "
                "(True), do not pass `preserve_rng_state=False`",
            ]
        return [
            f"gradients with checkpointing differ from those without by {worst:.2g} of a "
            f"tensor's largest entry (allowed: {GRADIENT_TOLERANCE:g})",
            "checkpointing must not change the results",
        ]
    if bench["peak_on_mib"] >= bench["peak_off_mib"]:
        return [
            f"peak memory is not lower with checkpointing ({bench['peak_on_mib']:.1f} MiB on, "
            f"{bench['peak_off_mib']:.1f} MiB off)",
            "checkpoint each block in forward when checkpointing=True",
        ]
    return []


def _repo(ws: Workspace) -> Path:
    return ws.ci_git


def _pr(ws: Workspace, facts: Facts, step: Step, act: bool, done: list[str]) -> None:
    pr = facts.task.get("pr")
    if pr is None:
        return _failed(
            step,
            "no pull request yet",
            f"`git push -u origin {facts.branch}`; write the body in a file; "
            "`./practice.py pr open BODY.md`",
        )
    body = rubric.read_body(ws.own(".practice", "prs", f"{pr['number']}.md"))
    code_ok = facts.ci is not None and not ci_problems(facts.ci, facts.issue.kind)
    new = list(ci.new_tests(facts.ci or {}))
    factors = rubric.score(
        body,
        issue=facts.issue,
        code_ok=code_ok,
        code_why=ci_problems(facts.ci, facts.issue.kind) if facts.ci else ["CI has not run"],
        new_tests=new,
        bench=(facts.ci or {}).get("bench"),
    )
    product = " × ".join(f"{f.name} {f.value}" for f in factors)
    total = min(f.value for f in factors)
    step.lines.append(f"pull request #{pr['number']} from {facts.branch}: Q = {product} = {total}")
    for factor in factors:
        for line in factor.evidence:
            step.lines.append(f"  {factor.name}: found {line}")
        for line in factor.missing:
            step.lines.append(f"  {factor.name} = 0: {line}")
    body_file = pr.get("body_file") or "BODY.md"
    step.github = f"gh pr edit {pr['number']} --body-file {body_file}"
    if total:
        step.state = "passed"
    else:
        zero = ", ".join(f.name for f in factors if not f.value)
        step.state = "failed"
        step.hint = (
            f"{zero} is 0: edit your body file, then `./practice.py pr open {body_file}` again "
            "(it updates the pull request)"
        )


def _change(ws: Workspace, facts: Facts, head: str) -> review.Change:
    base = ws.state["upstream_main"]
    return review.Change(
        _repo(ws),
        base,
        head,
        facts.ci or {},
        facts.issue.kind,
        facts.issue.number,
        facts.task["pr"]["number"],
    )


def _review(ws: Workspace, facts: Facts, step: Step, act: bool, done: list[str]) -> None:
    pr = facts.task["pr"]
    made = facts.task.get("review")
    if made is None:
        if not act:
            step.lines.append("the pull request is ready for review")
            step.hint = "`./practice.py check` asks for the review"
            return None
        made = {"head": facts.head, "comments": review.comments(_change(ws, facts, facts.head))}
        facts.task["review"] = made
        write_review(ws, pr["number"], made, [])
        done.append(
            f"a maintainer reviewed pull request #{pr['number']}: {len(made['comments'])} "
            f"comment(s) in reviews/{pr['number']}.md"
        )
    _passed(
        step,
        f"reviewed at {made['head'][:12]}: {len(made['comments'])} comment(s), in "
        f"reviews/{pr['number']}.md",
    )
    for number, comment in enumerate(made["comments"], 1):
        step.lines.append(f"  {number}. {comment['text']}")


def write_review(ws: Workspace, number: int, made: dict, answered: list[int]) -> None:
    """reviews/N.md: the comments, numbered, each ticked once answered, with the replies."""
    lines = [f"# Review of pull request #{number} at {made['head'][:12]}", ""]
    if not made["comments"]:
        lines.append("Approved: no changes requested.")
    replies = made.get("replies", {})
    for index, comment in enumerate(made["comments"], 1):
        tick = "x" if index in answered else " "
        lines.append(f"- [{tick}] {index}. {comment['text']}")
        if str(index) in replies:
            answer = review.reply(comment, replies[str(index)]) or "accepted"
            lines.append(f"  - you: {replies[str(index)]}")
            lines.append(f"  - maintainer: {answer}")
    ws.write("reviews", f"{number}.md", text="\n".join(lines) + "\n")


def _revisions(ws: Workspace, facts: Facts, step: Step, act: bool, done: list[str]) -> None:
    made = facts.task["review"]
    pr = facts.task["pr"]
    if not made["comments"]:
        return _passed(step, "no revision was asked for")
    local = maybe("rev-parse", "--verify", f"refs/heads/{facts.branch}", cwd=ws.work)
    replies = made.get("replies", {})
    if facts.head != made["head"] and (
        maybe("merge-base", "--is-ancestor", made["head"], facts.head, cwd=_repo(ws)) is None
    ):
        return _failed(
            step,
            "the reviewed commits were rewritten (force-push): reviewers lose their place",
            "put your changes on top of the reviewed commit, as one new commit, and push it: "
            f"`git reset --soft {made['head'][:12]} && git commit -q -s -m 'Answer the review' "
            f"&& git push -f origin {facts.branch}` (CONTRIBUTING.md §6)",
        )
    left = review.still_open(_change(ws, facts, facts.head), made["comments"], replies)
    answered = [i for i, c in enumerate(made["comments"], 1) if c not in left]
    if act:
        write_review(ws, pr["number"], made, answered)
    if facts.head == made["head"] and left:
        unpushed = local and local != facts.head
        return _failed(
            step,
            f"{len(left)} review comment(s) wait for a new commit"
            + (" (you have one locally: push it)" if unpushed else ""),
            f"answer each comment in reviews/{pr['number']}.md with a commit -s, then "
            f"`git push origin {facts.branch}`; or, for a matter of taste, with a reason: "
            '`./practice.py reply K -m "…"`',
        )
    if left:
        number = made["comments"].index(left[0]) + 1
        return _failed(
            step,
            f"comment {number} is not answered yet at {facts.head[:12]}: {left[0]['text']}",
            f"commit the change the comment asks for (-s) and `git push origin {facts.branch}`",
        )
    _passed(step, f"every comment answered by {facts.head[:12]}")


def _merge(ws: Workspace, facts: Facts, step: Step, act: bool, done: list[str]) -> None:
    pr = facts.task["pr"]
    if not act:
        step.lines.append("everything passed: the next `./practice.py check` merges")
        step.hint = "`./practice.py check`"
        return None
    base = ws.state["upstream_main"]
    git(
        "fetch",
        "-q",
        str(ws.fork),
        f"+refs/heads/{facts.branch}:refs/pull/{pr['number']}/head",
        cwd=ws.upstream,
    )
    tree = maybe("merge-tree", "--write-tree", base, facts.head, cwd=ws.upstream)
    if tree is None:
        return _failed(
            step,
            "your branch conflicts with upstream's main",
            "`git fetch upstream && git merge upstream/main`, resolve, commit -s, "
            f"`git push origin {facts.branch}`",
        )
    body = rubric.read_body(ws.own(".practice", "prs", f"{pr['number']}.md"))
    closes = closed_by_merge(ws, body)
    commit = _merge_commit(ws, facts, tree.splitlines()[0], closes)
    git("update-ref", f"refs/heads/{upstream.MAIN}", commit, base, cwd=ws.upstream)
    ws.state["upstream_main"] = commit
    facts.task["merged"] = {"commit": commit, "parent": base}
    for number in closes:
        record = ws.state["issues"].setdefault(str(number), {"comments": []})
        record["closed_by"] = pr["number"]
        record.setdefault("comments", []).append(
            {
                "author": "simkit-bot",
                "at": issues.now(),
                "kind": "close",
                "text": f"Closed by pull request #{pr['number']} (merged as {commit[:12]}), "
                f"through its `Fixes #{number}` line.",
            }
        )
    ws.write_issues()
    shut = ", ".join(f"#{n}" for n in closes)
    done.append(
        f"merged pull request #{pr['number']} into upstream's main as {commit[:12]}; {shut} closed"
    )
    _passed(step, f"merged as {commit[:12]}; {shut} closed")
    step.hint = _after_merge(ws)


def closed_by_merge(ws: Workspace, body: str) -> list[int]:
    """The open issues a merge of ``body``'s pull request closes: one per ``Fixes #N`` line."""
    known = set(upstream.issue_numbers())
    return sorted(
        n
        for n in {int(m) for m in rubric.CLOSING.findall(body)}
        if n in known and not ws.state["issues"].get(str(n), {}).get("closed_by")
    )


def _merge_commit(ws: Workspace, facts: Facts, tree: str, closes: list[int]) -> str:
    pr = facts.task["pr"]
    bot = {
        "GIT_AUTHOR_NAME": upstream.AUTHOR[0],
        "GIT_AUTHOR_EMAIL": upstream.AUTHOR[1],
        "GIT_COMMITTER_NAME": upstream.AUTHOR[0],
        "GIT_COMMITTER_EMAIL": upstream.AUTHOR[1],
    }
    login = issues.login(ws.state["learner"]["name"])
    fixes = "\n".join(f"Fixes #{n}" for n in closes)
    message = (
        f"Merge pull request #{pr['number']} from {login}/{facts.branch}\n\n"
        f"{pr['title']}\n\n{fixes}"
    )
    base = ws.state["upstream_main"]
    return git(
        "commit-tree", tree, "-p", base, "-p", facts.head, "-m", message, cwd=ws.upstream, env=bot
    )


def open_to_you(ws: Workspace) -> tuple[list[int], list[int]]:
    """(issues still open that nobody else has claimed, issues still open that someone has)."""
    still = [
        n
        for n in upstream.issue_numbers()
        if not ws.state["issues"].get(str(n), {}).get("closed_by")
        and not (ws.state["tasks"].get(str(n)) or {}).get("merged")
    ]
    return [n for n in still if not issues.load(n).assignees], [
        n for n in still if issues.load(n).assignees
    ]


def _after_merge(ws: Workspace) -> str:
    mine, taken = open_to_you(ws)
    main = ws.state["upstream_main"]
    synced = all(
        maybe("rev-parse", "--verify", "-q", f"refs/heads/{upstream.MAIN}", cwd=repo) == main
        for repo in (ws.fork, ws.work)
    )
    sync = (
        ""
        if synced
        else "sync your fork: `git switch main && git pull -q upstream main && git push -q "
        "origin main`; "
    )
    if mine:
        return f'{sync}next: `./practice.py claim {mine[0]} -m "Plan: …"`'
    others = ", ".join(f"#{n} ({', '.join(issues.load(n).assignees)}'s)" for n in taken)
    return f"{sync}every issue open to you is done" + (
        f"; still open, claimed by others: {others}" if others else ""
    )
