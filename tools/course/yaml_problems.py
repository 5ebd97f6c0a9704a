"""How a YAML mistake is worded, in ``mkdocs.yml`` and in a page's front matter alike.

PyYAML names the line where it gave up, which is often lines after the mistake (a ``[`` never
closed is found at the end of the text): the words say where the construct it was reading
opened, on that construct's own line of the file.
"""

from __future__ import annotations

import yaml


def located(exc: yaml.YAMLError, first_line: int = 1) -> tuple[int | None, str]:
    """``(line, words)`` for YAML text that starts at line ``first_line`` of its file: the line
    where PyYAML gave up (None when it names none) and its problem, with the opening line of the
    construct it was reading where it names one."""
    problem = getattr(exc, "problem", None) or str(exc)
    mark = getattr(exc, "problem_mark", None)
    line = mark.line + first_line if mark else None
    context, opened = getattr(exc, "context", None), getattr(exc, "context_mark", None)
    if context and opened:
        where = opened.line + first_line
        problem += f" ({context} started by {opened.buffer[opened.pointer]!r} at line {where})"
    return line, problem
