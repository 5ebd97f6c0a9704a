"""The Fork and Branch steps: work/ is a clone of the fork with the upstream remote, and the
learner's commits sit on a branch named by the project's rule, never on main. Also the checker's
own repository (:func:`ci_repo`), which every later step reads, fetched here once per check."""

from __future__ import annotations

import re
from pathlib import Path

from . import issues
from .gitio import git, maybe
from .progress import Facts, Step, failed, passed
from .workspace import Workspace

BRANCH_RULE = re.compile(r"^(fix|feat)/(\d+)-[a-z0-9]+(?:-[a-z0-9]+)*$")


def check_fork(ws: Workspace, facts: Facts, step: Step, act: bool, done: list[str]) -> None:
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


def check_branch(ws: Workspace, facts: Facts, step: Step, act: bool, done: list[str]) -> None:
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
                f"`git switch -c {example_branch(facts.issue)}`",
            )
    repo = ci_repo(ws, ws.fork if pr else ws.work, facts.branch)
    ahead = maybe("rev-list", f"{base}..refs/ci/work-main", cwd=repo)
    if ahead:
        return failed(
            step,
            f"you committed on main ({len(ahead.splitlines())} commit(s) that upstream does not "
            "have): never commit to main, not even on your fork",
            keep_on_a_branch(facts),
        )
    if facts.branch == "main":
        return failed(
            step,
            "you are on main",
            f"make your branch: `git switch -c {example_branch(facts.issue)}`",
        )
    match = BRANCH_RULE.match(facts.branch)
    prefix = "fix" if facts.issue.kind == "bug" else "feat"
    if not match or match.group(1) != prefix or int(match.group(2)) != facts.issue.number:
        return failed(
            step,
            f"branch {facts.branch!r} breaks the project's rule (CONTRIBUTING.md §2): "
            f"a {facts.issue.kind} is `{prefix}/{facts.issue.number}-<words>`",
            f"`git branch -m {example_branch(facts.issue)}`",
        )
    facts.head = git("rev-parse", "refs/ci/head", cwd=repo)
    log = git(
        "log",
        "--reverse",
        "--format=%H%x1f%aI%x1f%an%x1f%ae%x1f%P%x1f%cI%x1f%B%x1e",
        f"{base}..{facts.head}",
        cwd=repo,
    )
    for entry in (e.strip("\n") for e in log.split("\x1e") if e.strip()):
        sha, date, name, email, parents, committed, message = entry.split("\x1f", 6)
        facts.commits.append((sha, date, name, email, message, parents, committed))
    passed(step, f"on {facts.branch}, {len(facts.commits)} commit(s) ahead of upstream's main")


def keep_on_a_branch(facts: Facts) -> str:
    """The hint after commits on main: switch to a branch (they come along), then put main back
    where upstream has it, fetched first, so the command works whatever ``upstream/main`` held."""
    switch = (
        ""
        if facts.branch not in (None, "main")
        else f"`git switch -c {example_branch(facts.issue)}` (the commits come along), then "
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


def example_branch(issue: issues.Issue) -> str:
    return (
        f"fix/{issue.number}-cosine-1d"
        if issue.kind == "bug"
        else f"feat/{issue.number}-checkpointing"
    )
