"""The practice's upstream project, simkit, as templates, and its short history.

Three of its files are the course's own code, taken from ``snippets/`` when the history is made,
so the practice holds the same bug and the same model the lessons show and nothing is written
twice: the buggy ``cosine_similarity`` of Lesson 3, the ``MLPStack`` of Exercise 2.5 (without
its TODO line) and the CPU peak meter. The published download carries the made history as a
git bundle (:mod:`..bundle`), so a workspace started from it needs no ``snippets/``.

Every commit has a fixed author and date, so the history, and so every commit id, is the same
each time it is made from the same sources.
"""

from __future__ import annotations

import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROJECT = HERE / "project"
ISSUES = HERE / "issues"
SNIPPETS = HERE.parents[1]  # the course's snippets/, this package's parent; absent in the download

AUTHOR = ("Ali Maintainer", "ali@simkit.example.org")
MAIN = "main"


def section(snippet: str, name: str) -> str:
    """The lines of ``snippets/<snippet>`` between its ``[start:name]`` and ``[end:name]``
    markers, without TODO comments (they are the exercise's, not the project's)."""
    text = (SNIPPETS / snippet).read_text("utf-8")
    match = re.search(rf"# --8<-- \[start:{name}\]\n(.*?)# --8<-- \[end:{name}\]", text, re.S)
    if match is None:
        raise ValueError(f"snippets/{snippet}: no section {name!r}")
    lines = [line for line in match.group(1).splitlines() if "# TODO" not in line]
    return "\n".join(lines).strip() + "\n"


def _similarity() -> str:
    return '"""Similarity measures for batches of embeddings."""\n\nimport torch\n\n\n' + section(
        "cosine_buggy.py", "buggy"
    )


def _model() -> str:
    return (
        '"""The residual MLP that simkit\'s examples train."""\n\n'
        "import torch\nfrom torch import nn\n\n\n" + section("checkpoint_exercise.py", "model")
    )


def _peak_meter() -> str:
    """The meter of the course's ``snippets/cpu_peak.py`` with a docstring of the project's own:
    the snippet's own names files and commands the workspace does not have."""
    return (
        '"""Peak CPU memory of a function, from torch.profiler\'s record of every allocation and\n'
        "free: the largest running total of their bytes, above what was held before it ran.\n\n"
        "It reads ``prof.profiler.kineto_results``, which torch does not document: bench.py is\n"
        'its only caller, so a torch update that moves it shows there first.\n"""\n\n'
        "from collections.abc import Callable\n\nimport torch\n"
        "from torch.profiler import ProfilerActivity, profile\n\n\n"
        + section("cpu_peak.py", "meter")
    )


def _files(*paths: str) -> dict[str, str]:
    return {path: (PROJECT / path).read_text("utf-8") for path in paths}


def history() -> list[tuple[str, str, dict[str, str]]]:
    """The project's commits, oldest first: (date, message, files written by the commit)."""
    return [
        (
            "2026-09-01T10:00:00Z",
            "Start simkit: cosine similarity for batches of embeddings",
            {
                **_files("README.md", "pyproject.toml", "simkit/__init__.py"),
                **_files("tests/test_similarity.py"),
                "simkit/similarity.py": _similarity(),
            },
        ),
        (
            "2026-09-15T14:30:00Z",
            "Add MLPStack, the residual MLP of the examples",
            {"simkit/model.py": _model(), **_files("tests/test_model.py")},
        ),
        (
            "2026-10-02T09:00:00Z",
            "Add CONTRIBUTING.md: claims, branch names, DCO, the pull-request body",
            _files("CONTRIBUTING.md"),
        ),
        (
            "2026-10-20T16:45:00Z",
            "Add benchmarks/: peak memory of a training step on the CPU",
            {"benchmarks/peak.py": _peak_meter(), **_files("benchmarks/bench.py")},
        ),
    ]


def issue_numbers() -> list[int]:
    return sorted(int(path.stem) for path in ISSUES.glob("*.md"))


def issue_template(number: int) -> str:
    return (ISSUES / f"{number}.md").read_text("utf-8")
