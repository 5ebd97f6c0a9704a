"""The Merge step: the maintainer's merge commit on upstream's main, every issue its ``Fixes``
lines close, and what is left to do afterwards (sync the fork, the next issue open to you)."""

from __future__ import annotations

from . import issues, rubric, upstream
from .gitio import git, maybe
from .progress import Facts, Step, failed, passed
from .workspace import Workspace


def check_merge(ws: Workspace, facts: Facts, step: Step, act: bool, done: list[str]) -> None:
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
        return failed(
            step,
            "your branch conflicts with upstream's main",
            "`git fetch upstream && git merge upstream/main`, resolve, commit -s, "
            f"`git push origin {facts.branch}`",
        )
    body = rubric.read_body(ws.own(".practice", "prs", f"{pr['number']}.md"))
    closes = closed_by_merge(ws, body)
    commit = merge_commit(ws, facts, tree.splitlines()[0], closes)
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
    passed(step, f"merged as {commit[:12]}; {shut} closed")
    step.hint = after_merge(ws)


def closed_by_merge(ws: Workspace, body: str) -> list[int]:
    """The open issues a merge of ``body``'s pull request closes: one per ``Fixes #N`` line
    that GitHub acts on (:func:`.rubric.closes`)."""
    known = set(upstream.issue_numbers())
    return sorted(
        n
        for n in rubric.closes(body)
        if n in known and not ws.state["issues"].get(str(n), {}).get("closed_by")
    )


def merge_commit(ws: Workspace, facts: Facts, tree: str, closes: list[int]) -> str:
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


def after_merge(ws: Workspace) -> str:
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
