"""``practice start|status|claim|pr open|check|reset``: the practice workspace's commands.

The same entry point serves ``python3 -m tools practice ...`` in the course's repository and
``python3 practice.py ...`` (or ``python3 -m practice ...``) in the downloaded workspace; every
wrong move and every damaged workspace ends in one message, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import issues, steps, workspace
from .gitio import PracticeError, git, maybe

MARK = {"passed": "passed", "failed": "FAILED", "waiting": "waiting"}


def cmd_start(args: argparse.Namespace) -> int:
    ws = workspace.start(Path(args.dir), args.name, args.email)
    print(f"made a practice workspace in {ws.root}:")
    print(
        "  upstream.git  the project simkit; fork.git your fork; work/ your clone; issues/ its "
        "issues"
    )
    print(
        f"next: cd {ws.root}, read issues/*.md and work/CONTRIBUTING.md, then `./practice.py "
        "claim N`"
    )
    print(
        "      (`./practice.py status` shows the nine steps at any time, from anywhere in the "
        "workspace)"
    )
    return 0


def _report(ws: workspace.Workspace, found: list[steps.Step], done: list[str]) -> None:
    for line in done:
        print(f"the project: {line}")
    current = ws.state.get("current")
    title = f"#{current}: {issues.load(int(current)).title}" if current else "no issue chosen"
    print(f"practice workspace {ws.root}, {title}")
    merged = [f"#{n}" for n, t in sorted(ws.state["tasks"].items()) if t.get("merged")]
    if merged:
        print(f"merged so far: {', '.join(merged)}")
    for number, step in enumerate(found, 1):
        print(
            f"{number}. {step.title:<13} {MARK[step.state]:<8} "
            f"{step.lines[0] if step.lines else ''}"
        )
        for line in step.lines[1:]:
            print(f"{'':<26}{line}")
    todo = next((s for s in found if s.state == "failed"), None)
    todo = todo or next((s for s in found if s.state != "passed"), None)
    last = found[-1]
    if todo is not None:
        print(f"next: {todo.hint or 'finish the step before it'}")
        print(f"  on GitHub: {todo.github}")
    elif last.hint:
        print(f"next: {last.hint}")


def cmd_status(args: argparse.Namespace) -> int:
    ws = workspace.find(args.C)
    _report(ws, *steps.evaluate(ws, act=False))
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    ws = workspace.find(args.C)
    found, done = steps.evaluate(ws, act=True)
    ws.save()
    _report(ws, found, done)
    return 1 if any(s.state == "failed" for s in found) else 0


def cmd_claim(args: argparse.Namespace) -> int:
    ws = workspace.find(args.C)
    issue = issues.load(args.number)
    key = str(issue.number)
    task = ws.state["tasks"].get(key)
    if task and task.get("merged"):
        raise PracticeError(f"#{issue.number} is closed: your pull request fixed it")
    if task:
        raise PracticeError(f"you already claimed #{issue.number} on {task['claimed_at']}")
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
    print(f"commented on issues/{key}.md as @{me} at {at}: {args.message}")
    if issue.assignees:
        print(
            f"duplicate: #{key} is already assigned to {', '.join(issue.assignees)}, who claimed "
            "it in "
            "the comments. Read an issue to the end before you claim it (Lesson 1.1); "
            "`practice reset claim` withdraws yours."
        )
    return 0


def cmd_pr(args: argparse.Namespace) -> int:
    ws = workspace.find(args.C)
    task = ws.task()
    if task is None:
        raise PracticeError("claim an issue first: a pull request fixes an issue")
    body_file = Path(args.body)
    try:
        body = body_file.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise PracticeError(
            f"{body_file}: no such file: write the pull-request body there first"
        ) from None
    except UnicodeDecodeError as exc:
        line = body_file.read_bytes()[: exc.start].count(b"\n") + 1
        raise PracticeError(f"{body_file}:{line}: not UTF-8 text") from None
    if not body.strip():
        raise PracticeError(f"{body_file}:1: the body is empty")
    branch = (
        task["pr"]["branch"]
        if task.get("pr")
        else maybe("symbolic-ref", "--short", "-q", "HEAD", cwd=ws.work)
    )
    if branch in (None, "main"):
        raise PracticeError(
            "switch to your branch first: a pull request is opened from a branch, never from main"
        )
    pushed = maybe("rev-parse", "--verify", f"refs/heads/{branch}", cwd=ws.fork)
    if pushed is None:
        raise PracticeError(f"{branch} is not on your fork yet: git push -u origin {branch}")
    prs = ws.root / ".practice" / "prs"
    prs.mkdir(exist_ok=True)
    if task.get("pr"):
        number, verb = task["pr"]["number"], "updated the body of"
    else:
        number, verb = ws.state["next_pr"], "opened"
        ws.state["next_pr"] += 1
        title = git("log", "-1", "--format=%s", pushed, cwd=ws.fork)
        task["pr"] = {"number": number, "branch": branch, "title": title, "opened_at": issues.now()}
    (prs / f"{number}.md").write_text(body, "utf-8")
    ws.save()
    print(
        f"{verb} pull request #{number} from {branch} (as `gh pr create --draft --body-file "
        f"{body_file}` would)"
    )
    print("next: `practice check` runs CI, scores the body and asks for review")
    return 0


def cmd_reset(args: argparse.Namespace) -> int:
    print(f"reset {args.step}: {workspace.reset(workspace.locate(args.C), args.step)}")
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
    p = sub.add_parser("start", help="make a practice workspace in DIR (a new folder)")
    p.add_argument("dir")
    p.add_argument("--name", help="your name for commits and sign-offs (default: git's user.name)")
    p.add_argument("--email", help="your email (default: git's user.email)")
    p.set_defaults(func=cmd_start)
    sub.add_parser("status", help="the nine steps, their state and the next hint").set_defaults(
        func=cmd_status
    )
    sub.add_parser("check", help="run the project's CI, bot and reviewer").set_defaults(
        func=cmd_check
    )
    p = sub.add_parser("claim", help="comment on issue N that you are working on it")
    p.add_argument("number", type=int)
    p.add_argument(
        "-m", "--message", default="I'd like to work on this.", help="the comment (say your plan)"
    )
    p.set_defaults(func=cmd_claim)
    p = sub.add_parser("pr", help="`pr open BODYFILE`: open (or update) your pull request")
    p.add_argument("action", choices=["open"])
    p.add_argument("body", metavar="BODYFILE")
    p.set_defaults(func=cmd_pr)
    p = sub.add_parser("reset", help="undo one step: " + ", ".join(workspace.RESETTABLE))
    p.add_argument("step")
    p.set_defaults(func=cmd_reset)
    return ap


def main(argv: list[str]) -> int:
    args = argument_parser().parse_args(argv)
    try:
        return args.func(args)
    except PracticeError as exc:
        print(f"practice: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
