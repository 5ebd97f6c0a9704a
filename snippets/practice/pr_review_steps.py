"""The Review and Revisions steps of a pull request: the maintainer's review once it is ready, its
file in reviews/ with each comment ticked once answered, and the commits (or reasons) that answer
it. A force-push over the reviewed commits gets the commands that put the work back on them."""

from __future__ import annotations

from . import pr_review
from .gitio import maybe
from .progress import Facts, Step, failed, passed
from .workspace import Workspace


def change_of(ws: Workspace, facts: Facts, head: str) -> pr_review.Change:
    base = ws.state["upstream_main"]
    return pr_review.Change(
        ws.ci_git,
        base,
        head,
        facts.ci or {},
        facts.issue.kind,
        facts.issue.number,
        facts.task["pr"]["number"],
    )


def check_review(ws: Workspace, facts: Facts, step: Step, act: bool, done: list[str]) -> None:
    pr = facts.task["pr"]
    made = facts.task.get("review")
    if made is None:
        if not act:
            step.lines.append("the pull request is ready for review")
            step.hint = "`./practice.py check` asks for the review"
            return None
        comments = pr_review.comments(change_of(ws, facts, facts.head))
        made = {"head": facts.head, "comments": comments}
        facts.task["review"] = made
        write_review(ws, pr["number"], made, [])
        done.append(
            f"a maintainer reviewed pull request #{pr['number']}: {len(made['comments'])} "
            f"comment(s) in reviews/{pr['number']}.md"
        )
    passed(
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
            answer = pr_review.reply(comment, replies[str(index)]) or "accepted"
            lines.append(f"  - you: {replies[str(index)]}")
            lines.append(f"  - maintainer: {answer}")
    ws.write("reviews", f"{number}.md", text="\n".join(lines) + "\n")


def check_revisions(ws: Workspace, facts: Facts, step: Step, act: bool, done: list[str]) -> None:
    made = facts.task["review"]
    pr = facts.task["pr"]
    if not made["comments"]:
        return passed(step, "no revision was asked for")
    local = maybe("rev-parse", "--verify", f"refs/heads/{facts.branch}", cwd=ws.work)
    replies = made.get("replies", {})
    if facts.head != made["head"] and (
        maybe("merge-base", "--is-ancestor", made["head"], facts.head, cwd=ws.ci_git) is None
    ):
        return failed(
            step,
            "the reviewed commits were rewritten (force-push): reviewers lose their place",
            "put your changes on top of the reviewed commit, as one new commit, and push it: "
            f"`git reset --soft {made['head'][:12]} && git commit -q -s -m 'Answer the review' "
            f"&& git push -f origin {facts.branch}` (CONTRIBUTING.md §6)",
        )
    left = pr_review.still_open(change_of(ws, facts, facts.head), made["comments"], replies)
    answered = [i for i, c in enumerate(made["comments"], 1) if c not in left]
    if act:
        write_review(ws, pr["number"], made, answered)
    if facts.head == made["head"] and left:
        unpushed = local and local != facts.head
        return failed(
            step,
            f"{len(left)} review comment(s) wait for a new commit"
            + (" (you have one locally: push it)" if unpushed else ""),
            f"answer each comment in reviews/{pr['number']}.md with a commit -s, then "
            f"`git push origin {facts.branch}`; or, for a matter of taste, with a reason: "
            '`./practice.py reply K -m "…"`',
        )
    if left:
        number = made["comments"].index(left[0]) + 1
        return failed(
            step,
            f"comment {number} is not answered yet at {facts.head[:12]}: {left[0]['text']}",
            f"commit the change the comment asks for (-s) and `git push origin {facts.branch}`",
        )
    passed(step, f"every comment answered by {facts.head[:12]}")
