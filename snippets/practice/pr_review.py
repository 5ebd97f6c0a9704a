"""The pull-request reviewer: deterministic comments on a pull request, from its diff and CI.

Each rule is a question a maintainer of the project would ask of this kind of change. A comment
is made when its rule holds at the reviewed commit, and is answered by a later commit at which it
no longer holds. The same pull request always gets the same comments. The rules ask for what a
first pull request usually lacks (the issue named in its test, the batched case, the docstring),
and for the release-notes line that is named by the pull request's number (CONTRIBUTING.md §7):
that number exists only once the pull request is open, so a first review asks for at least one
revision unless the learner guessed the number beforehand. For a bug fix it asks for an input
that tells apart each wrong fix (:mod:`.wrongfixes`) the new tests did not catch.

CONTRIBUTING.md §6 lets a comment be answered with a reason instead of a commit
(``practice reply K -m "..."``): the maintainer accepts one for a matter of taste (a docstring's
wording, where the issue is named) and answers that the others are needed.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from . import ci, rubric
from .gitio import git, show
from .wrongfixes import WRONG_FIXES


@dataclass(frozen=True)
class Change:
    """What the reviewer reads: the repository, the commits, CI's result and the issue's kind."""

    repo: Path
    base: str
    head: str
    ci: dict
    kind: str
    issue: int
    pr: int

    def added_lines(self, path: str) -> list[str]:
        diff = git("diff", f"{self.base}...{self.head}", "--", path, cwd=self.repo)
        return [
            line[1:]
            for line in diff.splitlines()
            if line.startswith("+") and not line.startswith("+++")
        ]

    def docstring(self, path: str, name: str) -> str:
        text = show(self.repo, self.head, path) or ""
        try:
            tree = ast.parse(text)
        except SyntaxError:
            return ""
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.ClassDef) and node.name == name:
                return ast.get_docstring(node) or ""
        return ""


def _missed(change: Change) -> list:
    """The wrong fixes on which every new test passes."""
    missed = []
    for wrong in WRONG_FIXES:
        results = ci.new_tests(change.ci, f"wrong:{wrong.key}")
        if results and all(message is None for message in results.values()):
            missed.append(wrong)
    return missed


def _wrong_fix_missed(change: Change) -> bool:
    return bool(_missed(change))


def _missed_text(change: Change) -> str:
    return " ".join(f"`{w.key}` ({w.what}): test {w.catch}." for w in _missed(change))


def _one_d_undocumented(change: Change) -> bool:
    text = change.docstring("simkit/similarity.py", "cosine_similarity")
    return not re.search(r"1-?D|one-dimensional|single vector", text, re.I)


def _reentrant_implicit(change: Change) -> bool:
    added = "\n".join(change.added_lines("simkit"))
    return "checkpoint" in added and "use_reentrant=False" not in added


def _option_undocumented(change: Change) -> bool:
    return "checkpointing" not in change.docstring("simkit/model.py", "MLPStack")


# The release-notes line CONTRIBUTING §7 asks for, by the issue's kind.
NEWS_PREFIX = {"bug": "Fixed:", "feature": "Added:"}


def _no_news_fragment(change: Change) -> bool:
    """No ``changes/PR.md``, or none of its lines is the release-notes line for the change's kind
    (``Fixed: ...`` for a bug, ``Added: ...`` for a feature) with words after it beyond
    placeholders (:func:`.rubric.says_something`)."""
    text = show(change.repo, change.head, f"changes/{change.pr}.md") or ""
    prefix = NEWS_PREFIX.get(change.kind, "")
    return not any(
        line.strip().startswith(prefix) and rubric.says_something(line.strip()[len(prefix) :])
        for line in text.splitlines()
    )


def _issue_unnamed_in_tests(change: Change) -> bool:
    return not any(str(change.issue) in line for line in change.added_lines("tests"))


@dataclass(frozen=True)
class Rule:
    key: str
    kind: str  # "bug", "feature" or "any"
    holds: Callable[[Change], bool]
    comment: str
    negotiable: bool = False  # a reason may answer it instead of a commit
    detail: Callable[[Change], str] | None = None  # what the comment adds for this change


RULES = (
    Rule(
        "issue-in-test",
        "any",
        _issue_unnamed_in_tests,
        "tests: name the issue in your new test (a comment or docstring such as `Regression "
        "test for #N`), so whoever meets the test later can find the discussion.",
        negotiable=True,
    ),
    Rule(
        "news-fragment",
        "any",
        _no_news_fragment,
        "changes/: now that the pull request has its number, add `changes/#PR.md` with its "
        "line for the release notes (`Fixed: ...` for a bug, `Added: ...` for a feature), "
        "as CONTRIBUTING.md §7 asks; an empty file, or one of placeholders (TODO, …), says "
        "nothing.",
    ),
    Rule(
        "wrong-fixes",
        "bug",
        _wrong_fix_missed,
        "tests: your new test also passes on wrong fixes CI tried, so it cannot tell them from "
        "yours. Add a case for each:",
        detail=_missed_text,
    ),
    Rule(
        "docstring-1d",
        "bug",
        _one_d_undocumented,
        "simkit/similarity.py: the docstring still speaks only of rows. Say what a 1-D input "
        "means now, so callers know it is supported.",
        negotiable=True,
    ),
    Rule(
        "use-reentrant",
        "feature",
        _reentrant_implicit,
        "simkit/model.py: pass `use_reentrant=False` to `checkpoint` explicitly: it is the "
        "recommended implementation, and PyTorch warns when the argument is left out "
        "(Lesson 2.5).",
    ),
    Rule(
        "docstring-option",
        "feature",
        _option_undocumented,
        "simkit/model.py: document `checkpointing` in MLPStack's docstring: what it trades "
        "(activation memory for one more forward pass) and that it is off by default.",
        negotiable=True,
    ),
)


def comments(change: Change) -> list[dict[str, str]]:
    made = []
    for r in RULES:
        if r.kind in {change.kind, "any"} and r.holds(change):
            text = r.comment.replace("#N", f"#{change.issue}").replace("#PR", str(change.pr))
            made.append(
                {"rule": r.key, "text": text + (f" {r.detail(change)}" if r.detail else "")}
            )
    return made


RULES_BY_KEY = {r.key: r for r in RULES}
MIN_REASON_WORDS = 6


def reply(comment: dict[str, str], reason: str) -> str | None:
    """The maintainer's answer to a reason given instead of a commit: None when accepted."""
    if not RULES_BY_KEY[comment["rule"]].negotiable:
        return "this one is needed, a reason does not replace it: " + comment["text"]
    if len(rubric.words(reason)) < MIN_REASON_WORDS:
        return f"say why in a sentence (at least {MIN_REASON_WORDS} words, not placeholders)"
    return None


def still_open(
    change: Change, made: list[dict[str, str]], replies: dict[str, str] | None = None
) -> list[dict[str, str]]:
    """The comments of ``made`` that ``change`` (a later commit) has not answered, by a commit
    or by an accepted reason (``replies``: comment number -> reason)."""
    replies = replies or {}
    return [
        c
        for number, c in enumerate(made, 1)
        if RULES_BY_KEY[c["rule"]].holds(change)
        and not (str(number) in replies and reply(c, replies[str(number)]) is None)
    ]
