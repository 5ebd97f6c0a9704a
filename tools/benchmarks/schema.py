"""Checking a results file against its schema, every problem at once, each with a line.

The format of each kind of results file is written down once, as a JSON Schema the course
declares (``files.KIND.schema`` of its ``benchmarks`` setting): it is the document a results
author reads, and the maintained ``jsonschema`` package checks it. What the engine itself reads
of every file (its benchmark, its device and the hash of its code) is ``envelope.schema.json``
beside this module, checked once the course's schema passes. This module only adds what a
reader of the error needs: the file and line of each problem (JSON parsers keep no positions, so
:func:`value_lines` walks the text once to find them), all problems in one message.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from .errors import BenchmarkError

ENVELOPE_FILE = Path(__file__).with_name("envelope.schema.json")
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
# What JSON allows and Python's reader does not take calmly: values nested deeper than any
# results file needs (a file nests 6 deep) are refused before the reader or the walks of this
# module recurse into them, which ends in a RecursionError; integers longer than every Python
# converts (a longer one is a ValueError, or a setting away from one), out of range anyway.
MAX_DEPTH = 32
MAX_DIGITS = sys.int_info.str_digits_check_threshold
# The tokens of JSON text that say where a value nests or which integer it is, strings among
# them only to be skipped: exact for any text that the reader parsed up to the token.
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]|-?\d[\d.eE+-]*')
_DATE_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


@dataclass(frozen=True)
class Schema:
    """A schema's validator and how messages name it (its path from the course root)."""

    validator: Any
    shown: str


class Validators:
    """The schemas of one load of results, each read and compiled once."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._found: dict[Path, Schema] = {}

    def get(self, path: Path) -> Schema:
        """The course's schema at ``path`` (relative to the course root)."""
        if path not in self._found:
            self._found[path] = _compile(self.root / path, path.as_posix())
        return self._found[path]

    @property
    def envelope(self) -> Schema:
        """What the engine reads of every file: its own schema, beside this module."""
        if ENVELOPE_FILE not in self._found:
            shown = "tools/benchmarks/envelope.schema.json"
            self._found[ENVELOPE_FILE] = _compile(ENVELOPE_FILE, shown)
        return self._found[ENVELOPE_FILE]


def _compile(path: Path, shown: str) -> Schema:
    from jsonschema import Draft202012Validator  # imported where used: a course may have none
    from jsonschema.exceptions import SchemaError

    try:
        schema = json.loads(path.read_text(encoding="utf-8"))
        Draft202012Validator.check_schema(schema)
    except OSError as exc:
        raise BenchmarkError(f"{shown}: cannot read the results schema: {exc.strerror}") from exc
    except (ValueError, SchemaError) as exc:
        first = str(exc).splitlines()[0]
        raise BenchmarkError(f"{shown}: not a valid JSON Schema: {first}") from exc
    return Schema(Draft202012Validator(schema), shown)


def parse(text: str, rel: Path) -> Any:
    """The JSON value of a results file's ``text``, refusing with its line what the format
    allows but a results file cannot mean: nesting deeper than :data:`MAX_DEPTH`, an integer of
    more than :data:`MAX_DIGITS` digits, half of a character (a lone surrogate), and a key given
    twice in one object (readers keep either value, so the file would say two things)."""
    repeated: list[bool] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        found = dict(items)
        if len(found) < len(items):
            repeated.append(True)
        return found

    try:
        data = json.loads(text, object_pairs_hook=pairs, parse_int=_integer)
    except json.JSONDecodeError as exc:
        raise BenchmarkError(f"{rel}:{exc.lineno}: malformed JSON: {exc.msg}") from exc
    except _LongInteger as exc:
        number = exc.number
        line = next(_lines_of(text, lambda token: token.group() == number))
        digits = len(number.lstrip("-"))
        raise BenchmarkError(f"{rel}:{line}: a {digits:,}-digit number is out of range") from exc
    except RecursionError:  # the nesting, found below: the text parsed up to it
        data = None
    line = next(_lines_of(text, _deeper_than(MAX_DEPTH)), None)
    if line is not None:
        raise BenchmarkError(
            f"{rel}:{line}: arrays and objects nested more than {MAX_DEPTH} deep; a results "
            "file needs a few levels"
        )
    line = next(_lines_of(text, _holds_half_a_character), None) if "\\u" in text else None
    if line is not None:
        raise BenchmarkError(
            f"{rel}:{line}: a \\u escape names half of a character (a lone surrogate), which no "
            "text can hold; write the character itself"
        )
    if repeated:
        problems = [
            (line, f"{_dotted(path)}: the key is given twice in its object (a JSON reader keeps "
             "one of the values, which one is not said)")
            for path, line in _walk(text)[1]
        ]  # fmt: skip
        raise BenchmarkError(_listed(rel, "malformed JSON", problems))
    return data


class _LongInteger(ValueError):
    """An integer of more than :data:`MAX_DIGITS` digits, as the text writes it."""

    def __init__(self, number: str) -> None:
        super().__init__(number)
        self.number = number


def _integer(number: str) -> int:
    if len(number.lstrip("-")) > MAX_DIGITS:
        raise _LongInteger(number)
    return int(number)


def _holds_half_a_character(token: re.Match[str]) -> bool:
    """Whether a token is a string whose ``\\u`` escapes leave half of a UTF-16 pair: valid
    JSON, yet no text (UTF-8 cannot hold it, so the page that shows it cannot be written)."""
    word = token.group()
    if not word.startswith('"') or "\\u" not in word:
        return False
    return any("\ud800" <= char <= "\udfff" for char in json.loads(word))


def _deeper_than(depth: int) -> Callable[[re.Match[str]], bool]:
    """A test of each token, in order, that holds at the first bracket opened ``depth`` deep."""
    level = [0]

    def test(token: re.Match[str]) -> bool:
        level[0] += {"[": 1, "{": 1, "]": -1, "}": -1}.get(token.group(), 0)
        return level[0] > depth

    return test


def _lines_of(text: str, test: Callable[[re.Match[str]], bool]) -> Iterator[int]:
    """The line of each JSON token of ``text`` (:data:`_TOKEN`) that passes ``test``."""
    for token in _TOKEN.finditer(text):
        if test(token):
            yield text.count("\n", 0, token.start()) + 1


def device_type(data: Any) -> Any:
    """The device type ``data`` says it was made on (its kind of file), if it says one."""
    provenance = data.get("provenance") if isinstance(data, dict) else None
    device = provenance.get("device") if isinstance(provenance, dict) else None
    return device.get("type") if isinstance(device, dict) else None


def validate(data: Any, text: str, rel: Path, name: str, schema: Schema, envelope: Schema) -> None:
    """Raise one :class:`BenchmarkError` listing every problem of the file, each as path:line:
    first against its own ``schema``, then against the ``envelope`` every file has."""
    lines = value_lines(text)
    rows = data.get("rows") if isinstance(data, dict) else None
    if isinstance(rows, list) and len(rows) > MAX_ROWS:  # alone, before the schema walks them
        _raise(
            rel,
            [(lines[("rows",)], f"rows: {len(rows)} rows, more than the {MAX_ROWS} allowed")],
            schema,
        )
    problems = _problems(schema, data, lines)
    problems += [(_line(lines, path), message) for path, message in _beyond_schema(data)]
    found = data.get("benchmark") if isinstance(data, dict) else None
    if isinstance(found, str) and found != name:
        problems.append((lines[("benchmark",)], f"benchmark: {found!r}, expected {name!r}"))
    if problems:
        _raise(rel, problems, schema)
    problems = _problems(envelope, data, lines)
    if problems:
        _raise(rel, problems, envelope)


def _problems(schema: Schema, data: Any, lines: dict[JsonPath, int]) -> list[tuple[int, str]]:
    found = []
    for error in schema.validator.iter_errors(data):
        path = tuple(error.absolute_path)
        where = _dotted(path)
        found.append((_line(lines, path), f"{where + ': ' if where else ''}{error.message}"))
    return found


def _raise(rel: Path, problems: list[tuple[int, str]], schema: Schema) -> None:
    raise BenchmarkError(
        _listed(rel, "malformed results file", problems, f"; the format is {schema.shown}")
    )


def _listed(rel: Path, what: str, problems: list[tuple[int, str]], note: str = "") -> str:
    """One message for every problem of a file: ``what`` it is, then each at its line."""
    listed = "\n".join(f"  {rel.as_posix()}:{line}: {msg}" for line, msg in sorted(problems))
    count = f"{len(problems)} problem{'s' if len(problems) > 1 else ''}"
    return f"{rel.as_posix()}: {what} ({count}{note}):\n{listed}"


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
    """Line number of every value in an already valid JSON text, keyed by its path (a key
    given twice: the later value's, the one JSON readers keep)."""
    return _walk(text)[0]


def _walk(text: str) -> tuple[dict[JsonPath, int], list[tuple[JsonPath, int]]]:
    """:func:`value_lines`, and the path and line of each key given again in its object.

    Linear in the text: values are met in order, so the newlines are counted once, from the
    previous value on (counting from the start for each value made a large file quadratic)."""
    found: dict[JsonPath, int] = {}
    repeated: list[tuple[JsonPath, int]] = []
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
                again = (*path, key) in found
                i = value(i, (*path, key))
                if again:
                    repeated.append(((*path, key), found[(*path, key)]))
            else:
                i = value(i, (*path, index))
                index += 1
            i = _SPACE.match(text, i).end()
            if text[i] == ",":
                i = _SPACE.match(text, i + 1).end()
        return i + 1

    value(0, ())
    return found, repeated
