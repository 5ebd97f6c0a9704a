"""Validation: everything that can be wrong in the sources, found in one run without writing.

``check``, ``deck`` and the MkDocs hook all start here, so they report the same problems.
"""

from __future__ import annotations

from pathlib import Path

from tools import benchmarks
from tools.model import Course, CourseError
from tools.parser import parse_course


def load_checked_course(root: Path, *, strict_results: bool = False) -> Course:
    """Parse the course and add the problems of its embeds (missing or malformed results)."""
    course = parse_course(root)
    reported: set[str] = set()  # a broken results file breaks every embed of it: say so once
    for page in course.pages:
        for embed in page.embeds:
            try:
                benchmarks.render_embed(list(embed.args), root, strict=strict_results)
            except benchmarks.BenchmarkError as exc:
                if str(exc) not in reported:
                    reported.add(str(exc))
                    course.errors.append(CourseError(embed.location, str(exc)))
    course.errors.sort(key=lambda error: error.location)
    return course


def report(course: Course) -> str:
    return "\n".join(str(error) for error in course.errors)
