"""The Claim It and Code + Tests steps: the claim came before the first commit (compared as
instants), every commit is yours and signed off by you (DCO), and CI passes on the branch with a new
test that proves the fix, judged against the wrong fixes the checker holds."""

from __future__ import annotations

import re

from . import ci, issues, trust
from .progress import Facts, Step, failed, passed
from .verdict import ci_problems, wrong_fixes
from .workspace import Workspace
from .wrongfixes import WRONG_FIXES

SIGNOFF = re.compile(r"^Signed-off-by: (.+?) <([^>]+)>\s*$", re.MULTILINE)


def check_claim(ws: Workspace, facts: Facts, step: Step, act: bool, done: list[str]) -> None:
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
    # The author date is whatever `git commit --date` says; git sets the committer date when the
    # commit is made. A commit counts from the earlier of the two, and neither may lie ahead of
    # now: a commit dated 2030 was still made before the claim.
    now = trust.stamp(issues.now())
    for sha, authored, *_, committed in own:
        dates = (trust.stamp(authored), trust.stamp(committed))
        if min(dates) < trust.stamp(claimed):
            problem = (
                f"({min(authored, committed, key=trust.stamp)}) is older than your claim "
                f"({claimed}): claim before you start, so nobody else does the same work"
            )
        elif max(dates) > now:
            problem = (
                f"is dated in the future ({max(authored, committed, key=trust.stamp)}): a "
                f"commit's date says when you made it, which must be after your claim ({claimed})"
            )
        else:
            continue
        return failed(
            step,
            f"your commit {sha[:12]} {problem}",
            "claim first next time; here, recommit after the claim: "
            "`git rebase --exec 'git commit --amend --no-edit --reset-author' "
            f"{ws.state['upstream_main'][:12]}`",
        )
    passed(step, f"you claimed #{issue.number} on {claimed}, before your first commit")


def check_code(ws: Workspace, facts: Facts, step: Step, act: bool, done: list[str]) -> None:
    if not facts.commits:
        return failed(
            step,
            f"no commits on {facts.branch} yet",
            "fix the code, add a regression test, then git commit -s",
        )
    for sha, _, name, email, message, parents, _ in facts.commits:
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
        # The DCO certifies that you wrote the change: compared with the learner, not with the
        # commit's author, which `git commit --author` sets to anyone.
        me = (ws.state["learner"]["name"], ws.state["learner"]["email"])
        if me not in signed:
            who = ", ".join(f"{n} <{e}>" for n, e in signed)
            return failed(
                step,
                f"commit {sha[:12]} “{subject}” is signed off by {who}, not by you "
                f"({me[0]} <{me[1]}>)",
                "sign off as yourself (your git user.name and user.email): "
                f"`git rebase --signoff {ws.state['upstream_main'][:12]}`",
            )
        if (name, email) != me:
            return failed(
                step,
                f"commit {sha[:12]} “{subject}” is authored by {name} <{email}>, not by you "
                f"({me[0]} <{me[1]}>): a maintainer merges your own work under your name",
                "author it as yourself: `git rebase --exec 'git commit --amend --no-edit "
                f"--reset-author' {ws.state['upstream_main'][:12]}`",
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
