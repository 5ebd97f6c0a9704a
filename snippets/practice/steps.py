"""The nine lifecycle steps of Lesson 1, each checked the way the project's CI, bot and
maintainers would check it, with why it fails, what to do next and the real GitHub equivalent.

:func:`evaluate` looks and changes nothing, unless ``act``: then it runs CI when the commits are
new to it, posts the review once the pull request is ready for one, and merges when every step
has passed (the only three things the project does on its side).
"""

from __future__ import annotations

from . import issues
from .branching import check_branch, check_fork, example_branch
from .committing import check_claim, check_code
from .merging import after_merge, check_merge
from .pr_review_steps import check_review, check_revisions
from .progress import Facts, Step, passed
from .submitting import check_pr
from .workspace import Workspace

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

# The checks of steps 2 to 9, in the order they run: the fork and branch first, as the claim's
# check compares its time with the branch's commits.
CHECKS = (
    ("fork", check_fork),
    ("branch", check_branch),
    ("claim", check_claim),
    ("code", check_code),
    ("pr", check_pr),
    ("review", check_review),
    ("revisions", check_revisions),
    ("merge", check_merge),
)


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
    by_key["branch"].github = f"git switch -c {example_branch(issue)}"
    passed(find, f"you chose #{issue.number}: {issue.title} ({issue.kind})")
    if task.get("merged"):
        for step in steps[1:-1]:
            passed(step, "done")
        passed(
            by_key["merge"], f"merged as {task['merged']['commit'][:12]}; #{issue.number} is closed"
        )
        by_key["merge"].hint = after_merge(ws)
        return steps, done
    for key, check in CHECKS:
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
