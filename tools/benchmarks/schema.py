"""Checking a results file against ``results.schema.json``, every problem at once, each with a line.

The format is written down once, as a JSON Schema beside this module: it is the document a
GPU-results author reads, and the maintained ``jsonschema`` package checks it. This module only
adds what a reader of the error needs: the file and line of each problem (JSON parsers keep no
positions, so :func:`value_lines` walks the text once to find them), all problems in one message.
"""

from __future__ import annotations

import json
import math
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from tools.benchmarks.errors import BenchmarkError

SCHEMA_FILE = Path(__file__).with_name("results.schema.json")
# A traced file (its device is the tracer, ``"type": "traced"``) has its own format.
TRACED_SCHEMA_FILE = (
    Path(__file__).resolve().parents[2] / "snippets/benchmark_views/traced.schema.json"
)
_SPACE = re.compile(r"\s*")
_DECODER = json.JSONDecoder()

JsonPath = tuple[str | int, ...]

# What JSON Schema cannot say: JSON has no NaN or Infinity (Python's reader accepts them, and
# 1e400 reads as infinity), a figure beyond any real measurement is a typo or an attack, a date
# must exist and be past, and a file is as long as a benchmark's strategies, not unbounded (the
# site draws every row).
MAX_ROWS = 500
# Bytes of a file with MAX_ROWS rows and every section, with room: a larger file is refused
# before it is parsed, and one with too many rows before the schema walks them, so a hostile
# file costs one read of at most this many bytes, never a long build.
MAX_BYTES = 2 * 2**20
MAX_MAGNITUDE = 1e18  # bytes of the largest machine, seconds of the longest run, with room
_DATE_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


# The schema is part of the engine's code: read once, when the module is imported.
_VALIDATOR = Draft202012Validator(json.loads(SCHEMA_FILE.read_text(encoding="utf-8")))
_TRACED_VALIDATOR = Draft202012Validator(json.loads(TRACED_SCHEMA_FILE.read_text(encoding="utf-8")))


def is_traced(data: Any) -> bool:
    """Whether ``data`` says it was traced (its device is the tracer), not measured."""
    provenance = data.get("provenance") if isinstance(data, dict) else None
    device = provenance.get("device") if isinstance(provenance, dict) else None
    return isinstance(device, dict) and device.get("type") == "traced"


def validate(data: Any, text: str, rel: Path, name: str) -> None:
    """Raise one :class:`BenchmarkError` listing every problem of the file, each as path:line."""
    lines = value_lines(text)
    rows = data.get("rows") if isinstance(data, dict) else None
    if isinstance(rows, list) and len(rows) > MAX_ROWS:  # alone, before the schema walks them
        _raise(
            rel, [(lines[("rows",)], f"rows: {len(rows)} rows, more than the {MAX_ROWS} allowed")]
        )
    problems = []
    traced = is_traced(data)
    for error in (_TRACED_VALIDATOR if traced else _VALIDATOR).iter_errors(data):
        path = tuple(error.absolute_path)
        where = _dotted(path)
        problems.append((_line(lines, path), f"{where + ': ' if where else ''}{error.message}"))
    problems += [(_line(lines, path), message) for path, message in _beyond_schema(data)]
    found = data.get("benchmark") if isinstance(data, dict) else None
    if isinstance(found, str) and found != name:
        problems.append((lines[("benchmark",)], f"benchmark: {found!r}, expected {name!r}"))
    if problems:
        _raise(rel, problems, TRACED_SCHEMA_FILE if traced else SCHEMA_FILE)


def _raise(rel: Path, problems: list[tuple[int, str]], schema: Path = SCHEMA_FILE) -> None:
    listed = "\n".join(f"  {rel.as_posix()}:{line}: {msg}" for line, msg in sorted(problems))
    count = f"{len(problems)} problem{'s' if len(problems) > 1 else ''}"
    raise BenchmarkError(
        f"{rel.as_posix()}: malformed results file ({count}; the format is "
        f"{schema.relative_to(Path(__file__).resolve().parents[2]).as_posix()}):\n{listed}"
    )


def _beyond_schema(data: Any) -> list[tuple[JsonPath, str]]:
    """``(path, message)`` for non-finite or out-of-range numbers and impossible or future
    dates."""
    found: list[tuple[JsonPath, str]] = []
    stack: list[tuple[JsonPath, Any]] = [((), data)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, dict):
            stack += [((*path, key), item) for key, item in value.items()]
        elif isinstance(value, list):
            stack += [((*path, index), item) for index, item in enumerate(value)]
        elif isinstance(value, float) and not math.isfinite(value):
            found.append((path, f"{_dotted(path)}: {value} is not a number JSON allows"))
        elif (
            isinstance(value, int | float)
            and not isinstance(value, bool)
            and abs(value) > MAX_MAGNITUDE
        ):
            shown = str(value) if len(str(value)) < 24 else f"a {len(str(value))}-digit number"
            found.append((path, f"{_dotted(path)}: {shown} is out of range"))
    provenance = data.get("provenance") if isinstance(data, dict) else None
    date = provenance.get("date") if isinstance(provenance, dict) else None
    if isinstance(date, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z", date):
        try:
            when = datetime.strptime(date, _DATE_FORMAT).replace(tzinfo=UTC)
        except ValueError:
            found.append((("provenance", "date"), f"provenance.date: {date} is not a real date"))
        else:
            if when > datetime.now(UTC) + timedelta(days=1):
                found.append((("provenance", "date"), f"provenance.date: {date} is in the future"))
    return found


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
    """Line number of every value in an already valid JSON text, keyed by its path.

    Linear in the text: values are met in order, so the newlines are counted once, from the
    previous value on (counting from the start for each value made a large file quadratic)."""
    found: dict[JsonPath, int] = {}
    counted = [0, 1]  # the position up to which newlines are counted, and the line there

    def value(i: int, path: JsonPath) -> int:
        i = _SPACE.match(text, i).end()
        counted[1] += text.count("\n", counted[0], i)
        counted[0] = i
        found[path] = counted[1]
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
