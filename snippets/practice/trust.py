"""What the checker believes of its own state: its shape, and its agreement with the repositories.

``.practice/state.json`` is a file in the learner's folder, so it can be edited. Nothing in it is
used before it is checked: every id that becomes part of a path (an issue's number, a pull
request's number, a branch) is validated first, and every step the state says happened (a
merge, a review, a closed issue) is looked up in the git repositories that would hold its
evidence. A state that claims what the repositories do not show is refused with the one reset
that forgets the claim.
"""

from __future__ import annotations

import re
from datetime import datetime

from . import issues, upstream
from .gitio import PracticeError, maybe

SHA = re.compile(r"^[0-9a-f]{40}$")
MAX_PR = 10**6  # far above any number a workspace reaches; keeps a number a plain file name


def stamp(text: str) -> datetime:
    """A time as the checker or git writes it (``...Z`` or ``...+05:00``), as an instant."""
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        raise ValueError(f"{text!r} has no offset")
    return moment


def _is_stamp(value: object) -> bool:
    try:
        return isinstance(value, str) and stamp(value) is not None
    except ValueError:
        return False


def _is_pr_number(value: object) -> bool:
    return type(value) is int and 0 < value < MAX_PR


def _branch_ok(name: object) -> bool:
    if not isinstance(name, str) or not name or name.startswith("-"):
        return False
    return maybe("check-ref-format", "--branch", name) == name


def problems(state: object) -> str | None:
    """The first thing in ``state`` this checker could not have written, or None."""
    if not isinstance(state, dict):
        return "not an object"
    numbers = {str(n) for n in upstream.issue_numbers()}
    learner = state.get("learner")
    if not (
        isinstance(learner, dict)
        and all(isinstance(learner.get(k), str) for k in ("name", "email"))
    ):
        return "learner: not a name and an email"
    if not (isinstance(state.get("upstream_main"), str) and SHA.match(state["upstream_main"])):
        return "upstream_main: not a commit id"
    if not _is_pr_number(state.get("next_pr")):
        return "next_pr: not a pull-request number"
    for name, judge in (("issues", _issue_problem), ("tasks", _task_problem)):
        table = state.get(name)
        if not isinstance(table, dict) or set(table) - numbers:
            return f"{name}: keys other than this project's issues ({', '.join(sorted(numbers))})"
        for key, entry in table.items():
            why = judge(entry)
            if why:
                return f"{name}.{key}: {why}"
    current = state.get("current")
    if current is not None and current not in state["tasks"]:
        return "current: not an issue you claimed"
    return None


def _issue_problem(record: object) -> str | None:
    if not isinstance(record, dict):
        return "not an object"
    if "closed_by" in record and not _is_pr_number(record["closed_by"]):
        return "closed_by: not a pull-request number"
    comments = record.get("comments", [])
    fields = ("author", "at", "kind", "text")
    if not isinstance(comments, list) or not all(
        isinstance(c, dict) and all(isinstance(c.get(f), str) for f in fields) for c in comments
    ):
        return "comments: not a list of comments"
    if not all(_is_stamp(c["at"]) for c in comments):
        return "comments: a time without its offset"
    if any(issues.claim_problem(c["text"]) for c in comments if c["kind"] == "claim"):
        return "comments: a claim without a plan, which `claim` refuses"
    return None


def _task_problem(task: object) -> str | None:
    if not isinstance(task, dict) or not _is_stamp(task.get("claimed_at")):
        return "claimed_at: not a time with its offset"
    pr, made, merged = task.get("pr"), task.get("review"), task.get("merged")
    if pr is not None:
        if not isinstance(pr, dict) or not _is_pr_number(pr.get("number")):
            return "pr.number: not a pull-request number"
        if not _branch_ok(pr.get("branch")) or not isinstance(pr.get("title"), str):
            return "pr.branch: not a branch name"
    if made is not None and not (
        isinstance(made, dict)
        and isinstance(made.get("head"), str)
        and SHA.match(made["head"])
        and isinstance(made.get("comments"), list)
    ):
        return "review: not a review this checker wrote"
    if merged is not None and not (
        pr is not None
        and isinstance(merged, dict)
        and all(
            isinstance(merged.get(k), str) and SHA.match(merged[k]) for k in ("commit", "parent")
        )
    ):
        return "merged: not a merge this checker made"
    return None


def _merge_shown(ws, task: dict) -> bool:
    """The state's merge of ``task`` is a merge commit of its pull request on upstream's main."""
    commit, number = task["merged"]["commit"], task["pr"]["number"]
    subject = maybe("log", "-1", "--format=%s", commit, cwd=ws.upstream) or ""
    on_main = maybe("merge-base", "--is-ancestor", commit, upstream.MAIN, cwd=ws.upstream)
    return subject.startswith(f"Merge pull request #{number} ") and on_main is not None


def _review_shown(ws, task: dict) -> bool:
    """The reviewed commit is one CI fetched (its repository holds every commit it checked)."""
    head = task["review"]["head"]
    return maybe("cat-file", "-e", f"{head}^{{commit}}", cwd=ws.ci_git) is not None


def unverified(ws) -> str | None:
    """The first step the state says happened that the repositories do not show, or None."""
    for key, task in sorted(ws.state["tasks"].items()):
        if task.get("merged") and not _merge_shown(ws, task):
            return (
                f"it says pull request #{task['pr']['number']} (#{key}) was merged as "
                f"{task['merged']['commit'][:12]}, but upstream.git's main holds no such merge"
            )
        if task.get("review") and not _review_shown(ws, task):
            return (
                f"it says #{key}'s pull request was reviewed at {task['review']['head'][:12]}, "
                "a commit CI never saw"
            )
    merged = {t["pr"]["number"] for t in ws.state["tasks"].values() if t.get("merged")}
    for key, record in sorted(ws.state["issues"].items()):
        if record.get("closed_by") and record["closed_by"] not in merged:
            return (
                f"it says #{key} was closed by pull request #{record['closed_by']}, which was "
                "never merged"
            )
    return None


def forget_unverified(ws) -> None:
    """Drop every merge, review and closure the repositories do not show (``reset merge``)."""
    for task in ws.state["tasks"].values():
        if task.get("merged") and not _merge_shown(ws, task):
            task["merged"] = None
        if task.get("review") and not _review_shown(ws, task):
            task["review"] = None
    merged = {t["pr"]["number"] for t in ws.state["tasks"].values() if t.get("merged")}
    for record in ws.state["issues"].values():
        if record.get("closed_by") and record["closed_by"] not in merged:
            del record["closed_by"]
            record["comments"] = [c for c in record.get("comments", []) if c["kind"] != "close"]


def refuse_tampered(ws) -> None:
    """Raise when the state claims a step the repositories do not show."""
    why = unverified(ws)
    if why:
        raise PracticeError(
            f"{ws.root / '.practice' / 'state.json'}: {why}: the checker's state was edited by "
            "hand. `./practice.py reset merge` forgets what the repositories do not show "
            "(your work/ is untouched)"
        )
