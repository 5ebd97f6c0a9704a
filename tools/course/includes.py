"""Snippet includes (``--8<-- "snippets/NAME.py:section"``): only from ``snippets/``, all checked.

pymdownx.snippets resolves includes from the repository root, so without a rule a lesson could
publish any file of the checkout (``.git/config`` included). Its own check reports one missing
file per build, for one page, without the lesson's line. This module reads every include the way
pymdownx.snippets does (its own line patterns, handed in as :class:`~tools.course.model.SiteSyntax`;
nested includes in included files too) and reports,
all in one run and with the lesson's file and line: a path with a ``..`` part, a file outside the
allowed folders, a missing file, and a missing section.

pymdownx.snippets judges and opens the path as it reads, with ``..`` removed lexically
(``os.path.abspath``), and the system then follows the symbolic links left in it; resolving the
links first reads ``link/../x`` in the snippets folder as another file. So a ``..`` is refused,
and both the path pymdownx reads and the file it opens must be inside the allowed folders.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from .model import CourseError, Location, SiteSyntax

# Folders (relative to the repository root) whose files lessons may include. Add one here, with
# the reason, only for a file a page truly needs to show.
INCLUDE_ROOTS = ("snippets",)


def check(
    root: Path,
    path: str,
    lines: list[str],
    *,
    syntax: SiteSyntax,
    seen: frozenset[str] = frozenset(),
) -> list[CourseError]:
    """Errors for the includes in file ``path`` (its ``lines``), following nested includes;
    ``syntax`` says which lines include a file (pymdownx.snippets' patterns on the site)."""
    errors: list[CourseError] = []
    base = Path(os.path.abspath(root))
    allowed = [(base / folder, (root / folder).resolve()) for folder in INCLUDE_ROOTS]
    for line0, spec in syntax.includes(lines):
        at = Location(path, line0 + 1)
        target = syntax.include_target(spec)
        if target is None:  # names no file: pymdownx includes nothing
            continue
        file_part, section = target
        if file_part.lower().startswith(("http://", "https://")):
            errors.append(CourseError(at, f"include {spec!r}: includes come from files, not URLs"))
            continue
        if ".." in re.split(r"[\\/]", file_part):
            errors.append(
                CourseError(
                    at,
                    f"include {spec!r}: '..' is not allowed in an include's path "
                    "(name the file from the repository root, e.g. snippets/NAME.py)",
                )
            )
            continue
        read = Path(os.path.abspath(base / file_part))  # the path pymdownx judges and opens
        file = (root / file_part).resolve()  # the file the system opens
        if not any(read.is_relative_to(a) and file.is_relative_to(b) for a, b in allowed):
            folders = ", ".join(f"{folder}/" for folder in INCLUDE_ROOTS)
            errors.append(
                CourseError(at, f"include {spec!r}: only files in {folders} may be included")
            )
            continue
        if not file.is_file():
            errors.append(CourseError(at, f"include {spec!r}: there is no file {file_part}"))
            continue
        try:
            included = file.read_text("utf-8").splitlines()
        except UnicodeDecodeError:
            errors.append(CourseError(at, f"include {spec!r}: {file_part} is not UTF-8"))
            continue
        if section and not syntax.has_section(included, section):
            errors.append(
                CourseError(
                    at,
                    f"include {spec!r}: {file_part} has no section {section!r} "
                    f"(mark it with '# --8<-- [start:{section}]' and '# --8<-- [end:{section}]')",
                )
            )
        rel = file.relative_to(root.resolve()).as_posix()
        if rel not in seen:
            errors += check(root, rel, included, syntax=syntax, seen=seen | {path, rel})
    return errors
