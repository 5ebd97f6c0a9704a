"""The nine lifecycle steps of Lesson 1, each checked the way the project's CI, bot and
maintainers would check it, with why it fails, what to do next and the real GitHub equivalent.

:func:`evaluate` looks and changes nothing, unless ``act``: then it runs CI when the commits are
new to it, posts the review once the pull request is ready for one, and merges when every step
has passed (the only three things the project does on its side).
"""

from __future__ import annotations

import re
from pathlib import Path

from . import ci, issues, rubric, trust
from .gitio import git, maybe
from .merging import after_merge, check_merge
from .progress import Facts, Step, failed, passed
from .reviewing import check_review, check_revisions
from .verdict import ci_problems, wrong_fixes
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
SIGNOFF = re.compile(r"^Signed-off-by: (.+?) <([^>]+)>\s*$", re.MULTILINE)


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
    passed(find, f"you chose #{issue.number}: {issue.title} ({issue.kind})")
    if task.get("merged"):
        for step in steps[1:-1]:
            passed(step, "done")
        passed(
            by_key["merge"], f"merged as {task['merged']['commit'][:12]}; #{issue.number} is closed"
        )
        by_key["merge"].hint = after_merge(ws)
        return steps, done
    checks = [_fork, _branch, _claim, _code, _pr, check_review, check_revisions, check_merge]
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


def _fork(ws: Workspace, facts: Facts, step: Step, act: bool, done: list[str]) -> None:
    if not (ws.work / ".git").exists():
        return failed(
            step,
            f"{ws.work} is missing (deleted?)",
            "`./practice.py reset fork` makes your fork and clone again",
        )
    if not (ws.own("fork.git") / "HEAD").is_file():
        return failed(
            step,
            f"{ws.fork} is missing (deleted?)",
            "`./practice.py reset fork` makes it again (work/ is moved aside)",
        )
    for remote, target in (("origin", ws.fork), ("upstream", ws.upstream)):
        url = maybe("remote", "get-url", remote, cwd=ws.work)
        if url is None or (ws.work / url).resolve() != target.resolve():
            verb = "add" if url is None else "set-url"
            return failed(
                step,
                f"work/ has no remote {remote!r} pointing at ../{target.name}"
                + ("" if url is None else f" (it points at {url}: was the workspace moved?)"),
                f"`git remote {verb} {remote} ../{target.name}` (in work/)",
            )
    passed(step, "work/ is a clone of your fork, with the upstream remote")


def _branch(ws: Workspace, facts: Facts, step: Step, act: bool, done: list[str]) -> None:
    base = ws.state["upstream_main"]
    pr = facts.task.get("pr")
    if pr:
        facts.branch = pr["branch"]
        if maybe("rev-parse", "--verify", f"refs/heads/{pr['branch']}", cwd=ws.fork) is None:
            return failed(
                step,
                f"your pull request's branch {pr['branch']} is gone from your fork",
                f"`git push origin {pr['branch']}`, or `./practice.py reset pr`",
            )
    else:
        facts.branch = maybe("symbolic-ref", "--short", "-q", "HEAD", cwd=ws.work)
        if facts.branch is None:
            return failed(
                step,
                "work/ has a detached HEAD, not a branch",
                f"`git switch -c {_example_branch(facts.issue)}`",
            )
    repo = ci_repo(ws, ws.fork if pr else ws.work, facts.branch)
    ahead = maybe("rev-list", f"{base}..refs/ci/work-main", cwd=repo)
    if ahead:
        return failed(
            step,
            f"you committed on main ({len(ahead.splitlines())} commit(s) that upstream does not "
            "have): never commit to main, not even on your fork",
            _keep_on_a_branch(facts),
        )
    if facts.branch == "main":
        return failed(
            step,
            "you are on main",
            f"make your branch: `git switch -c {_example_branch(facts.issue)}`",
        )
    match = BRANCH_RULE.match(facts.branch)
    prefix = "fix" if facts.issue.kind == "bug" else "feat"
    if not match or match.group(1) != prefix or int(match.group(2)) != facts.issue.number:
        return failed(
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
    passed(step, f"on {facts.branch}, {len(facts.commits)} commit(s) ahead of upstream's main")


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
        return failed(
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
        return failed(
            step,
            f"your commit {sha[:12]} ({date}) is older than your claim ({claimed}): claim "
            "before you start, so nobody else does the same work",
            "claim first next time; here, recommit after the claim: "
            "`git rebase --exec 'git commit --amend --no-edit --reset-author' "
            f"{ws.state['upstream_main'][:12]}`",
        )
    passed(step, f"you claimed #{issue.number} on {claimed}, before your first commit")


def _code(ws: Workspace, facts: Facts, step: Step, act: bool, done: list[str]) -> None:
    if not facts.commits:
        return failed(
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
            return failed(
                step,
                f"commit {sha[:12]} “{subject}” has no Signed-off-by line (DCO, CONTRIBUTING.md "
                "§3)",
                "`git commit --amend --no-edit --signoff` (the last commit) or `git rebase "
                f"--signoff {ws.state['upstream_main'][:12]}` (all of them)",
            )
        if (name, email) not in signed:
            who = ", ".join(f"{n} <{e}>" for n, e in signed)
            return failed(
                step,
                f"commit {sha[:12]} “{subject}” is signed off by {who} but authored by {name} "
                f"<{email}>",
                "sign off as yourself (your git user.name and user.email): "
                f"`git rebase --signoff {ws.state['upstream_main'][:12]}`",
            )
    base = ws.state["upstream_main"]
    result = ci.cached(
        ws.own(".practice", "ci"),
        ws.ci_git,
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
        return failed(
            step,
            problems[0],
            problems[1] if len(problems) > 1 else "fix it, commit with -s, and check again",
        )
    passed(
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


def _pr(ws: Workspace, facts: Facts, step: Step, act: bool, done: list[str]) -> None:
    pr = facts.task.get("pr")
    if pr is None:
        return failed(
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
