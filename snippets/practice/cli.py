"""The practice workspace's commands: start, status, check, claim, pr open, reply and reset.

The same entry point serves ``python3 -m tools practice ...`` in the course's repository (its
``practice_cli`` setting) and
``python3 practice.py ...`` (or ``python3 -m practice ...``) in the downloaded workspace; every
wrong move and every damaged workspace ends in one message, never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path

from . import issues, pr_review, pr_review_steps, rubric, steps, workspace
from .gitio import PracticeError, git, maybe
from .terminal import say

MARK = {"passed": "passed", "failed": "FAILED", "waiting": "waiting"}
LAUNCHER = "./practice.py"  # how hints name the checker; printed as the path from where it runs


def launcher_from(root: Path, here: Path) -> str:
    """The checker's launcher as a command typed in ``here``: ``./practice.py`` in the
    workspace's root, ``../practice.py`` in work/."""
    relative = os.path.relpath(root / "practice.py", here.resolve())
    return relative if relative.startswith(".") else f"./{relative}"


def _lines(lines: list[str], root: Path, here: Path) -> None:
    command = launcher_from(root, here)
    say(*(line.replace(LAUNCHER, command) for line in lines))


def cmd_start(args: argparse.Namespace) -> int:
    ws = workspace.start(Path(args.dir), args.name, args.email)
    say(
        f"made a practice workspace in {ws.root}:",
        "  upstream.git  the project simkit; fork.git your fork; work/ your clone; issues/ its "
        "issues",
        f"next: cd {ws.root}, read issues/*.md and work/CONTRIBUTING.md, then "
        '`./practice.py claim N -m "Plan: …"`',
        "      (`./practice.py status` shows the nine steps at any time, from anywhere in the "
        "workspace)",
    )
    return 0


def report(ws: workspace.Workspace, found: list[steps.Step], done: list[str]) -> list[str]:
    """The lines of a status or check report: the project's actions, the steps, the next hint."""
    lines = [f"the project: {line}" for line in done]
    current = ws.state.get("current")
    title = f"#{current}: {issues.load(int(current)).title}" if current else "no issue chosen"
    lines.append(f"practice workspace {ws.root}, {title}")
    merged = [f"#{n}" for n, t in sorted(ws.state["tasks"].items()) if t.get("merged")]
    if merged:
        lines.append(f"merged so far: {', '.join(merged)}")
    for number, step in enumerate(found, 1):
        first = step.lines[0] if step.lines else ""
        lines.append(f"{number}. {step.title:<13} {MARK[step.state]:<8} {first}")
        lines += [f"{'':<26}{line}" for line in step.lines[1:]]
    todo = next((s for s in found if s.state == "failed"), None)
    todo = todo or next((s for s in found if s.state != "passed"), None)
    last = found[-1]
    if todo is not None:
        lines.append(f"next: {todo.hint or 'finish the step before it'}")
        lines.append(f"  on GitHub: {todo.github}")
    elif last.hint:
        lines.append(f"next: {last.hint}")
    return lines


def cmd_status(args: argparse.Namespace) -> int:
    ws = workspace.find(args.C)
    _lines(report(ws, *steps.evaluate(ws, act=False)), ws.root, args.C)
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    ws = workspace.find(args.C)
    found, done = steps.evaluate(ws, act=True)
    ws.save()
    _lines(report(ws, found, done), ws.root, args.C)
    return 1 if any(s.state == "failed" for s in found) else 0


def cmd_claim(args: argparse.Namespace) -> int:
    ws = workspace.find(args.C)
    issue = issues.load(args.number)
    key = str(issue.number)
    task = ws.state["tasks"].get(key)
    closer = ws.state["issues"].get(key, {}).get("closed_by")
    if closer:
        raise PracticeError(f"#{issue.number} is closed: pull request #{closer} fixed it")
    if task:
        raise PracticeError(f"you already claimed #{issue.number} on {task['claimed_at']}")
    problem = issues.claim_problem(args.message)
    if problem:
        raise PracticeError(problem)
    at = issues.now()
    me = issues.login(ws.state["learner"]["name"])
    record = ws.state["issues"].setdefault(key, {})
    record.setdefault("comments", []).append(
        {"author": me, "at": at, "kind": "claim", "text": args.message}
    )
    ws.state["tasks"][key] = {"claimed_at": at, "pr": None, "review": None, "merged": None}
    ws.state["current"] = key
    ws.write_issues()
    ws.save()
    lines = [f"commented on issues/{key}.md as @{me} at {at}: {args.message}"]
    if issue.assignees:
        lines.append(
            f"duplicate: #{key} is already assigned to {', '.join(issue.assignees)}, who claimed "
            "it in the comments. Read an issue to the end before you claim it (Lesson 1.1); "
            "`./practice.py reset claim` withdraws yours."
        )
    _lines(lines, ws.root, args.C)
    return 0


def cmd_pr(args: argparse.Namespace) -> int:
    ws = workspace.find(args.C)
    task = ws.task()
    if task is None:
        raise PracticeError("claim an issue first: a pull request fixes an issue")
    body_file = Path(args.body)
    body = rubric.read_body(body_file)
    here = maybe("symbolic-ref", "--short", "-q", "HEAD", cwd=ws.work)
    pr = task.get("pr")
    if pr and here in (None, "main", pr["branch"]):
        branch = pr["branch"]  # the body of the open pull request, edited
    elif here in (None, "main"):
        raise PracticeError(
            "switch to your branch first: a pull request is opened from a branch, never from main"
        )
    else:
        branch = here
    pushed = maybe("rev-parse", "--verify", f"refs/heads/{branch}", cwd=ws.fork)
    if pushed is None:
        raise PracticeError(f"{branch} is not on your fork yet: `git push -u origin {branch}`")
    lines = []
    if pr and branch == pr["branch"]:
        number = pr["number"]
        verb, gh = "updated the body of", f"gh pr edit {number} --body-file {body_file}"
    else:
        if pr:  # a second branch opens its own pull request; the project keeps one per issue
            lines.append(
                f"closed pull request #{pr['number']} from {pr['branch']}: one pull request per "
                f"issue (as `gh pr close {pr['number']}` would); its body file is kept"
            )
        number, verb = ws.state["next_pr"], "opened"
        gh = f"gh pr create --draft --body-file {body_file}"
        ws.state["next_pr"] += 1
        title = git("log", "-1", "--format=%s", pushed, cwd=ws.fork)
        task["pr"] = {"number": number, "branch": branch, "title": title, "opened_at": issues.now()}
        task["review"] = None
    task["pr"]["body_file"] = str(body_file.resolve())
    ws.write(".practice", "prs", f"{number}.md", text=body)
    ws.save()
    lines.append(f"{verb} pull request #{number} from {branch} (as `{gh}` would)")
    lines.append("next: `./practice.py check` runs CI, scores the body and asks for review")
    _lines(lines, ws.root, args.C)
    return 0


def cmd_reply(args: argparse.Namespace) -> int:
    """CONTRIBUTING.md §6: answer a review comment with a reason instead of a commit."""
    ws = workspace.find(args.C)
    task = ws.task()
    made = (task or {}).get("review")
    if not made or not made["comments"]:
        raise PracticeError("nothing to reply to: the pull request has no review comments")
    if not 1 <= args.comment <= len(made["comments"]):
        raise PracticeError(
            f"reviews/{task['pr']['number']}.md has comments 1 to {len(made['comments'])}"
        )
    comment = made["comments"][args.comment - 1]
    made.setdefault("replies", {})[str(args.comment)] = args.message
    answer = pr_review.reply(comment, args.message)
    pr_review_steps.write_review(ws, task["pr"]["number"], made, [])
    ws.save()
    say(f"replied to comment {args.comment}; the maintainer: {answer or 'accepted'}")
    return 0 if answer is None else 1


def cmd_reset(args: argparse.Namespace) -> int:
    say(f"reset {args.step}: {workspace.reset(workspace.locate(args.C), args.step)}")
    return 0


def argument_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="practice", description=__doc__.splitlines()[0])
    ap.add_argument(
        "-C",
        type=Path,
        default=Path.cwd(),
        metavar="DIR",
        help="the workspace (default: the current folder)",
    )
    sub = ap.add_subparsers(dest="command", required=True)

    def command(name: str, about: str) -> argparse.ArgumentParser:
        """A subcommand whose own --help opens with what it does, as the list above says it."""
        return sub.add_parser(name, help=about, description=about)

    p = command("start", "make a practice workspace in DIR (a new folder)")
    p.add_argument("dir")
    p.add_argument("--name", help="your name for commits and sign-offs (default: git's user.name)")
    p.add_argument("--email", help="your email (default: git's user.email)")
    p.set_defaults(func=cmd_start)
    command("status", "the nine steps, their state and the next hint").set_defaults(func=cmd_status)
    command("check", "run the project's CI, bot and reviewer").set_defaults(func=cmd_check)
    p = command("claim", "comment on issue N that you are working on it")
    p.add_argument("number", type=int)
    p.add_argument("-m", "--message", default="", help='the comment: your plan ("Plan: …")')
    p.set_defaults(func=cmd_claim)
    p = command("pr", "`pr open BODYFILE`: open (or update) your pull request")
    p.add_argument("action", choices=["open"])
    p.add_argument("body", metavar="BODYFILE")
    p.set_defaults(func=cmd_pr)
    p = command("reply", "answer review comment K with a reason (CONTRIBUTING §6)")
    p.add_argument("comment", type=int, metavar="K")
    p.add_argument("-m", "--message", required=True, help="the reason")
    p.set_defaults(func=cmd_reply)
    p = command("reset", "undo one step: " + ", ".join(workspace.RESETTABLE))
    p.add_argument("step")
    p.set_defaults(func=cmd_reset)
    return ap


def main(argv: list[str]) -> int:
    args = argument_parser().parse_args(argv)
    try:
        return args.func(args)
    except PracticeError as exc:
        text = f"practice: {exc}"
        with contextlib.suppress(PracticeError):  # outside a workspace: named as from its root
            text = text.replace(LAUNCHER, launcher_from(workspace.locate(args.C), args.C))
        say(text, err=True)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
