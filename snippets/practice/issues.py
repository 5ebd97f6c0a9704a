"""The project's issues as Markdown files: what the templates say, plus comments and closure.

An issue file in a workspace is always *rendered*: its template, the comments made with
``practice claim`` and the closing note of a merge, all kept in the workspace's state. So a file
edited by hand is recognised (it differs from its rendering), and rewriting the folder loses
nothing the learner said through the commands.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

from . import rubric, upstream
from .gitio import PracticeError


@dataclass(frozen=True)
class Issue:
    number: int
    title: str
    kind: str  # "bug" or "feature"
    assignees: tuple[str, ...]
    quoted_error: str | None  # the error line the reporter pasted, if any


def load(number: int) -> Issue:
    if number not in upstream.issue_numbers():
        known = ", ".join(f"#{n}" for n in upstream.issue_numbers())
        raise PracticeError(f"there is no issue #{number} in this project (its issues: {known})")
    text = upstream.issue_template(number)
    title = text.splitlines()[0].split(" ", 2)[2]
    field = dict(re.findall(r"^- ([a-z ]+): (.*)$", text, re.MULTILINE))
    assignees = tuple(a.strip() for a in field["assignees"].split(",") if a.strip() != "none")
    error = re.search(r"^(\w+Error: .+)$", text, re.MULTILINE)
    return Issue(number, title, field["kind"], assignees, error.group(1) if error else None)


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def claim_problem(text: str) -> str | None:
    """Why a claim comment is not one, or None: the project's CONTRIBUTING.md §1 asks for the
    plan with the claim, and an empty or one-word comment, or one of placeholders, tells the
    others nothing. The command puts no words in the learner's mouth: no ``-m``, no claim."""
    # "Plan: unsqueeze", the fewest words that can say what you do
    if len(rubric.words(text)) >= 2:
        return None
    said = f"not {text!r}" if text.strip() else "and this one says nothing"
    return (
        f"a claim comment says what you will do (CONTRIBUTING.md §1: your plan), {said}: "
        '`./practice.py claim N -m "Plan: …"`'
    )


def login(name: str) -> str:
    """A GitHub-like handle for the learner's name: ``Ada Lovelace`` -> ``ada-lovelace``."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "you"


def render(number: int, record: dict) -> str:
    """The issue file: its template, then the comments and closure in ``record`` (the state's)."""
    text = upstream.issue_template(number)
    if record.get("closed_by"):
        text = text.replace(
            "- state: open", f"- state: closed by pull request #{record['closed_by']}"
        )
    for comment in record.get("comments", []):
        text += f"\n### @{comment['author']} · {comment['at']}\n\n{comment['text']}\n"
    return text
