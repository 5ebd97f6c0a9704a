"""A step's outcome, and the facts about the pull request that the nine checks share."""

from __future__ import annotations

from dataclasses import dataclass, field

from . import issues


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
    commits: list[tuple[str, str, str, str, str, str, str]] = field(default_factory=list)
    ci: dict | None = None


def passed(step: Step, line: str) -> None:
    step.state = "passed"
    step.lines.append(line)


def failed(step: Step, why: str, hint: str) -> None:
    step.state = "failed"
    step.lines.append(why)
    step.hint = hint
