"""Results files as input to the build: judged stale by the declared code hash, checked against
their schema (every problem at once, each at its line), and every bad file a clear error naming
it, reported once however many embeds show it.
"""

from __future__ import annotations

import json
import re
import shutil
import warnings
from pathlib import Path
from typing import Any

import codehash
import pytest
from benchmark_files import (
    CPU_KIND,
    REGISTRY,
    committed,
    course_root,
    render,
    write,
)
from mkdocs_course import benchmarks
from mkdocs_course.buildkit.buildinfo import ROOT
from mkdocs_course.course.check import load_checked_course
from mkdocs_course.plugin.syntax import MKDOCS


def test_code_hash_covers_imported_modules_only(tmp_path: Path) -> None:
    root = course_root(tmp_path)
    entry = root / "snippets" / "checkpointing.py"
    before = codehash.code_hash(entry, root)["sha256"]
    (root / "snippets" / "cosine_buggy.py").write_text("# not imported by the harness\n")
    assert codehash.code_hash(entry, root)["sha256"] == before
    helper = root / "snippets" / "provenance.py"
    helper.write_text(helper.read_text() + "\n# edited\n")
    assert codehash.code_hash(entry, root)["sha256"] != before
    crlf = root / "snippets" / "checkpointing.py"
    after_edit = codehash.code_hash(entry, root)["sha256"]
    crlf.write_bytes(crlf.read_bytes().replace(b"\n", b"\r\n"))
    assert codehash.code_hash(entry, root)["sha256"] == after_edit  # a Windows checkout
    # The engine uses the very same function (imported, not loaded by path).
    found = benchmarks.benchmark("checkpointing", REGISTRY, root)
    assert benchmarks.results.code_hash(found, CPU_KIND, root)["sha256"] == after_edit


def test_stale_results_warn_and_strict_refuses(tmp_path: Path) -> None:
    sample = committed()
    root = course_root(tmp_path)
    stale = json.loads(json.dumps(sample))
    stale["provenance"]["code"]["sha256"] = "0" * 64
    write(root, stale)
    with pytest.warns(benchmarks.StaleResultsWarning, match="checkpointing-cpu.json"):
        out = render(root, "table")
    assert "Stale results" in out and "python3 -m tools test tests/test_benchmarks.py" in out
    assert "<table" in out  # the table still shows
    with pytest.raises(benchmarks.BenchmarkError, match="stale"):
        render(root, "table", strict=True)
    # Editing the code (not the results) makes a current file stale too.
    write(root, sample)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert "Stale" not in render(root, "summary", strict=True)
    harness = root / "snippets" / "checkpointing.py"
    harness.write_text(harness.read_text() + "\n# a change\n")
    with pytest.raises(benchmarks.BenchmarkError, match="stale"):
        render(root, "summary", strict=True)


def test_bad_results_are_clear_errors(tmp_path: Path) -> None:
    sample = committed()
    root = course_root(tmp_path)
    with pytest.raises(
        benchmarks.BenchmarkError, match=r"docs/benchmarks/checkpointing-<device>\.json"
    ):
        render(root, "table")
    path = write(root, sample)
    path.write_text('{\n  "schema_version": 2,\n  "rows": [,]\n}\n')
    with pytest.raises(
        benchmarks.BenchmarkError, match=r"checkpointing-cpu\.json:3: malformed JSON"
    ):
        render(root, "table")
    write(root, sample)
    with pytest.raises(benchmarks.BenchmarkError, match="unknown benchmark view 'chart'"):
        render(root, "chart")
    with pytest.raises(benchmarks.BenchmarkError, match="unknown benchmark 'attention'"):
        benchmarks.render_embed(["attention", "table"], root, REGISTRY, strict=False)
    with pytest.raises(benchmarks.BenchmarkError, match="expected"):
        benchmarks.render_embed(["checkpointing"], root, REGISTRY, strict=False)


def test_a_transformer_row_missing_a_field_is_a_schema_error_with_its_line(
    tmp_path: Path,
) -> None:
    sample = committed()
    root = course_root(tmp_path)
    broken = json.loads(json.dumps(sample))
    del broken["runs"][1]["rows"][2]["step_peak_bytes"]
    path = write(root, broken)
    line = next(
        number
        for number, text in enumerate(path.read_text().splitlines(), 1)
        if '"attention": "fused"' in text
    )
    with pytest.raises(benchmarks.BenchmarkError) as caught:
        render(root, "table")
    (problem,) = [p for p in str(caught.value).splitlines() if "step_peak_bytes" in p]
    found = int(re.search(r"checkpointing-cpu\.json:(\d+): runs\[1\]\.rows\[2\]", problem)[1])
    assert found > line  # the line of that row, below the fused run's config


def _broken(sample: dict[str, Any]) -> dict[str, Any]:
    """Three problems in one file."""
    broken = json.loads(json.dumps(sample))
    del broken["rows"][1]["saved_bytes"]
    broken["rows"][3]["status"] = "crashed"
    broken["config"]["layers"] = "24"
    return broken


def test_every_problem_of_a_results_file_at_once_with_its_line(
    tmp_path: Path,
) -> None:
    sample = committed()
    root = course_root(tmp_path)
    path = write(root, _broken(sample))
    lines = path.read_text().splitlines()
    with pytest.raises(benchmarks.BenchmarkError) as caught:
        render(root, "table")
    message = str(caught.value)
    assert "3 problems" in message and "results.schema.json" in message

    def line_of(text: str, after: int = 0) -> int:
        return next(i for i, line in enumerate(lines, 1) if i > after and text in line)

    rows_start = line_of('"rows"')
    row1 = [i for i, line in enumerate(lines, 1) if line == "    {" and i > rows_start][1]
    layers, crashed = line_of('"layers": "24"'), line_of('"crashed"')
    expected = [
        f"checkpointing-cpu.json:{layers}: config.layers: '24' is not of type 'integer'",
        f"checkpointing-cpu.json:{row1}: rows[1]: 'saved_bytes' is a required property",
        f"checkpointing-cpu.json:{crashed}: rows[3].status: 'crashed' is not one",
    ]
    for text in expected:
        assert text in message, (text, message)


def test_a_broken_results_file_is_reported_once_not_once_per_embed(
    tmp_path: Path,
) -> None:
    sample = committed()
    root = course_root(tmp_path)
    shutil.copytree(ROOT / "docs", root / "docs", dirs_exist_ok=True, ignore=_no_assets)
    shutil.copy(ROOT / "mkdocs.yml", root / "mkdocs.yml")
    shutil.copytree(ROOT / "deck", root / "deck")  # the note templates its settings name
    write(root, _broken(sample))
    course = load_checked_course(root, syntax=MKDOCS)
    about_results = [e for e in course.errors if "checkpointing-cpu.json" in str(e)]
    embeds = sum(len(page.embeds) for page in course.pages)
    assert embeds > 1 and len(about_results) == 1, [str(e) for e in course.errors]
    assert len(re.findall(r"checkpointing-cpu\.json:\d+: ", str(about_results[0]))) == 3


def _no_assets(folder: str, names: list[str]) -> set[str]:
    return {"assets", "checkpointing-cpu.json"} & set(names)
