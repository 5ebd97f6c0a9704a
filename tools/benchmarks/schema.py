"""Checking a results file against ``results.schema.json``, every problem at once, each with a line.

The format is written down once, as a JSON Schema beside this module: it is the document a
GPU-results author reads, and the maintained ``jsonschema`` package checks it. This module only
adds what a reader of the error needs: the file and line of each problem (JSON parsers keep no
positions, so :func:`value_lines` walks the text once to find them), all problems in one message.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from tools.benchmarks.errors import BenchmarkError

SCHEMA_FILE = Path(__file__).with_name("results.schema.json")
_SPACE = re.compile(r"\s*")
_DECODER = json.JSONDecoder()

JsonPath = tuple[str | int, ...]


# The schema is part of the engine's code: read once, when the module is imported.
_VALIDATOR = Draft202012Validator(json.loads(SCHEMA_FILE.read_text(encoding="utf-8")))


def validate(data: Any, text: str, rel: Path, name: str) -> None:
    """Raise one :class:`BenchmarkError` listing every problem of the file, each as path:line."""
    lines = value_lines(text)
    problems = []
    for error in _VALIDATOR.iter_errors(data):
        path = tuple(error.absolute_path)
        where = _dotted(path)
        problems.append((_line(lines, path), f"{where + ': ' if where else ''}{error.message}"))
    found = data.get("benchmark") if isinstance(data, dict) else None
    if isinstance(found, str) and found != name:
        problems.append((lines[("benchmark",)], f"benchmark: {found!r}, expected {name!r}"))
    if problems:
        listed = "\n".join(f"  {rel.as_posix()}:{line}: {msg}" for line, msg in sorted(problems))
        count = f"{len(problems)} problem{'s' if len(problems) > 1 else ''}"
        raise BenchmarkError(
            f"{rel.as_posix()}: malformed results file ({count}; the format is "
            f"tools/benchmarks/{SCHEMA_FILE.name}):\n{listed}"
        )


def _dotted(path: JsonPath) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _line(lines: dict[JsonPath, int], path: JsonPath) -> int:
    """The line of the value at ``path``, or of its nearest enclosing value that exists."""
    while path not in lines and path:
        path = path[:-1]
    return lines.get(path, 1)


def value_lines(text: str) -> dict[JsonPath, int]:
    """Line number of every value in an already valid JSON text, keyed by its path."""
    found: dict[JsonPath, int] = {}

    def value(i: int, path: JsonPath) -> int:
        i = _SPACE.match(text, i).end()
        found[path] = text.count("\n", 0, i) + 1
        if text[i] not in "{[":
            return _DECODER.raw_decode(text, i)[1]
        closing, index = ("}" if text[i] == "{" else "]"), 0
        i = _SPACE.match(text, i + 1).end()
        while text[i] != closing:
            if closing == "}":
                key, i = _DECODER.raw_decode(text, i)
                i = _SPACE.match(text, i).end() + 1  # past the ':'
                i = value(i, (*path, key))
            else:
                i = value(i, (*path, index))
                index += 1
            i = _SPACE.match(text, i).end()
            if text[i] == ",":
                i = _SPACE.match(text, i + 1).end()
        return i + 1

    value(0, ())
    return found
