"""Results files are input too: impossible numbers and dates, and files too long to draw, are
errors naming the file and line, never "nan ms" on a page or a traceback."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest
from benchmark_files import REGISTRY, course_root
from conftest import ROOT
from mkdocs_course import benchmarks

from snippets import benchmark_views

COMMITTED = ROOT / "docs" / "benchmarks" / "checkpointing-cpu.json"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return course_root(tmp_path)


def write(root: Path, text: str) -> Path:
    path = root / "docs" / "benchmarks" / "checkpointing-cpu.json"
    path.write_text(text, encoding="utf-8")
    return path


def problems(root: Path) -> str:
    with pytest.raises(benchmarks.BenchmarkError) as caught:
        benchmarks.render_embed(["checkpointing", "table"], root, REGISTRY, strict=False)
    return str(caught.value)


def line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


@pytest.mark.parametrize(
    "old, new",
    [
        ('"step_time_s": ', '"step_time_s": NaN, "x_": '),
        ('"step_time_s": ', '"step_time_s": Infinity, "x_": '),
        ('"step_time_s": ', '"step_time_s": -Infinity, "x_": '),
        ('"step_time_s": ', '"step_time_s": 1e400, "x_": '),
        ('"saved_bytes": ', '"saved_bytes": 1' + "0" * 400 + ', "x_": '),
    ],
)
def test_non_finite_and_out_of_range_numbers_are_errors_at_their_line(root, old, new):
    text = COMMITTED.read_text().replace(old, new, 1)
    text = re.sub(r', "x_": [^,\n]*', "", text, count=1)  # drop the original value
    write(root, text)
    message = problems(root)
    needle = new.split(",")[0]
    assert f"checkpointing-cpu.json:{line_of(text, needle)}: rows[0]." in message, message
    assert "Traceback" not in message


@pytest.mark.parametrize(
    "date, why",
    [("2026-02-30T12:00:00Z", "not a real date"), ("2026-13-01T00:00:00Z", "not a real date"),
     ("2026-01-01T25:61:00Z", "not a real date"), ("2999-01-01T00:00:00Z", "in the future")],
)  # fmt: skip
def test_impossible_dates_are_errors_at_their_line(root, date, why):
    data = json.loads(COMMITTED.read_text())
    data["provenance"]["date"] = date
    text = json.dumps(data, indent=2)
    write(root, text)
    message = problems(root)
    assert (
        f"checkpointing-cpu.json:{line_of(text, date)}: provenance.date: {date} is {why}" in message
    )


def test_too_many_rows_are_an_error_not_a_long_render(root, monkeypatch):
    data = json.loads(COMMITTED.read_text())
    data["rows"] = data["rows"] * (benchmarks.schema.MAX_ROWS // len(data["rows"]) + 1)
    write(root, json.dumps(data, indent=2))

    def refuse(*args, **kwargs):
        raise AssertionError("a view was drawn from a file with too many rows")

    for name, view in list(benchmark_views.VIEWS.items()):  # refused before any drawing
        monkeypatch.setitem(benchmark_views.VIEWS, name, dataclasses.replace(view, render=refuse))
    message = problems(root)
    assert "rows: " in message and "more than the" in message


def test_label_placement_compares_each_label_with_a_bounded_number_of_boxes(monkeypatch):
    """Linear in the number of labels: the comparisons per label do not grow with their count
    (the old placement compared each new label with every label placed before it)."""
    from mkdocs_course.benchmarks import chart

    calls = 0
    overlaps = chart._overlaps

    def counted(a, b):
        nonlocal calls
        calls += 1
        return overlaps(a, b)

    monkeypatch.setattr(chart, "_overlaps", counted)

    def per_label(n: int) -> float:
        nonlocal calls
        calls = 0
        points = [(100 + (i * 37) % 500, 40 + (i * 53) % 250, f"s={i}") for i in range(n)]
        chart.Chart((0, 1), (0, 1)).label_points(points)
        return calls / n

    assert per_label(8_000) < 1.5 * per_label(1_000) + 10


def test_a_committed_file_is_submitted_unless_the_publishing_job_measured_it(monkeypatch):
    monkeypatch.delenv("COURSE_MEASURED_HERE", raising=False)
    table = benchmarks.render_embed(["checkpointing", "table"], ROOT, REGISTRY, strict=False)
    assert "Submitted: measured on " in table and "Measured on" not in table
    monkeypatch.setenv("COURSE_MEASURED_HERE", "checkpointing-cpu.json")
    table = benchmarks.render_embed(["checkpointing", "table"], ROOT, REGISTRY, strict=False)
    lines = re.findall(r'<p class="benchmark-provenance">.*?</p>', table, re.DOTALL)
    measured = [line for line in lines if "checkpointing-cpu.json" in line]
    assert measured and all(
        "by the job that published this site" in line and "Submitted" not in line
        for line in measured
    )
    # a file the job did not measure (a committed GPU file) is still shown as submitted
    assert all("Submitted" in line for line in lines if line not in measured)


def _rows_file(rows: int) -> str:
    """The committed file with its rows repeated up to ``rows`` rows."""
    data = json.loads(COMMITTED.read_text())
    data["rows"] = (data["rows"] * (rows // len(data["rows"]) + 1))[:rows]
    return json.dumps(data, indent=2)


def test_a_file_larger_than_any_results_file_is_refused_unread(root, monkeypatch):
    """Hostile (#41): a 60k-row, 40 MB file ran the build past 600 s. Refused at its size,
    before it is read or parsed (so the time is one stat, whatever the size)."""
    text = _rows_file(60_000)
    assert len(text.encode()) > 40_000_000
    write(root, text)

    def refuse(*args, **kwargs):
        raise AssertionError("the oversized file was parsed")

    monkeypatch.setattr(benchmarks.schema.json, "loads", refuse)
    message = problems(root)
    assert "checkpointing-cpu.json:1: a results file of " in message
    assert f"more than the {benchmarks.schema.MAX_BYTES:,}" in message


def test_too_many_small_rows_are_refused_before_the_schema_walks_them(root, monkeypatch):
    """60k empty rows fit under the size limit; the row count refuses them before the schema
    reads one row, at the line of ``rows``."""
    data = json.loads(COMMITTED.read_text())
    data["rows"] = [{}] * 60_000
    text = json.dumps(data)  # one line: the line of "rows" is 1
    assert len(text.encode()) < benchmarks.schema.MAX_BYTES
    write(root, text)

    def refuse(*args, **kwargs):
        raise AssertionError("the schema walked a file with too many rows")

    monkeypatch.setattr(benchmarks.schema, "_problems", refuse)
    message = problems(root)
    assert "checkpointing-cpu.json:1: rows: 60000 rows, more than the 500 allowed" in message


def test_value_lines_counts_each_newline_once(monkeypatch):
    """The line of every value, found by one pass: ``str.count`` is asked about each part of
    the text once (it was asked from the start for every value, quadratic in the file)."""
    text = _rows_file(400)
    counted: list[int] = []
    real = benchmarks.schema.value_lines

    class Text(str):
        def count(self, sub, start=0, end=None):  # type: ignore[override]
            counted.append((len(self) if end is None else end) - start)
            return str.count(self, sub, start, end)

    lines = real(Text(text))
    assert sum(counted) <= len(text)  # each character looked at once at most
    for path in [("rows", 399, "strategy"), ("provenance", "date"), ("rows", 0, "peak_bytes")]:
        shown = text.splitlines()[lines[path] - 1]
        assert f'"{path[-1]}"' in shown, (path, shown)


FILE = "docs/benchmarks/checkpointing-cpu.json"


def test_a_byte_that_is_not_utf8_is_an_error_at_its_line(root):
    text = COMMITTED.read_text()
    line = line_of(text, '"strategy"')
    data = text.encode().replace(b'"strategy"', b'"str\xffategy"', 1)
    (root / FILE).write_bytes(data)
    assert problems(root) == f"{FILE}:{line}: not UTF-8 (byte 0xff); save it as UTF-8"


def _planted(root: Path, value: str) -> int:
    """The committed file with ``value`` as its first row's saved bytes, written; its line."""
    text = COMMITTED.read_text().replace('"saved_bytes": ', f'"saved_bytes": {value}, "x_": ', 1)
    text = re.sub(r', "x_": [^,\n]*', "", text, count=1)
    write(root, text)
    return line_of(text, value)


def _named(root: Path, written: str) -> int:
    """The committed file with ``written`` (JSON string text) after its device's name; its line."""
    text = COMMITTED.read_text()
    name = re.search(r'"name": "([^"]*)"', text).group(1)
    text = text.replace(f'"name": "{name}"', f'"name": "{name} {written}"', 1)
    write(root, text)
    return line_of(text, written)


@pytest.mark.parametrize("sign", ["", "-"])
def test_an_integer_longer_than_python_reads_is_an_error_at_its_line(root, sign):
    """5,000 digits: past the 4,300 Python converts, which was a ValueError from the reader."""
    line = _planted(root, sign + "1" * 5000)
    assert problems(root) == f"{FILE}:{line}: a 5,000-digit number is out of range"


@pytest.mark.parametrize("depth", [33, 900, 100_000])
def test_values_nested_too_deep_are_an_error_at_the_line_they_go_too_deep(root, depth):
    """Nested arrays of 100,000 levels (200 KB) were a RecursionError from the reader; 900
    levels pass the reader and were one from the walk that finds each value's line."""
    line = _planted(root, "[" * depth + "]" * depth)
    assert problems(root) == (
        f"{FILE}:{line}: arrays and objects nested more than 32 deep; a results file needs a few "
        "levels"
    )


def test_a_key_given_twice_in_one_object_is_an_error_at_the_second(root):
    """The reader kept the last value without a word, so the file said two things."""
    text = COMMITTED.read_text().replace(
        '"saved_bytes": ', '"saved_bytes": 1,\n      "saved_bytes": ', 1
    )
    write(root, text)
    line = line_of(text, '"saved_bytes": 1,') + 1
    assert problems(root) == (
        f"{FILE}: malformed JSON (1 problem):\n"
        f"  {FILE}:{line}: rows[0].saved_bytes: the key is given twice in its object (a JSON "
        "reader keeps one of the values, which one is not said)"
    )


@pytest.mark.parametrize("escape", ["\\ud800", "\\udfff", "\\udc00\\ud800", "\\uDBFF x"])
def test_half_of_a_character_is_an_error_at_its_line(root, escape):
    """A ``\\u`` escape of a lone surrogate is valid JSON, and no text: the build crashed writing
    the search index (UTF-8 cannot hold it). A whole pair (a character past U+FFFF) is fine."""
    line = _named(root, escape)
    assert problems(root) == (
        f"{FILE}:{line}: a \\u escape names half of a character (a lone surrogate), which no text "
        "can hold; write the character itself"
    )


def test_a_character_past_ffff_written_as_a_pair_of_escapes_passes(root):
    _named(root, "\\ud83d\\ude00")
    assert benchmarks.render_embed(["checkpointing", "table"], root, REGISTRY, strict=False)
