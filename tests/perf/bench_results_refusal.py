"""How long a hostile results file takes to refuse: prints figures, asserts nothing.

    .venv/bin/python tests/perf/bench_results_refusal.py

1. The committed CPU results file with its rows repeated to 60,000 rows (about 40 MB, the
   file of issue #41): the time from the embed's request to the refusal.
2. The same rows in one line under the size limit, as empty rows: the row-count refusal.
3. ``schema.value_lines`` on files of 10k, 20k and 40k rows (past the limits, to show how it
   grows): linear means the time doubles with the rows.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from mkdocs_course import benchmarks  # noqa: E402
from mkdocs_course.benchmarks import schema  # noqa: E402
from mkdocs_course.course import config  # noqa: E402

COMMITTED = ROOT / "docs" / "benchmarks" / "checkpointing-cpu.json"
REGISTRY = config.benchmarks(ROOT)


def _rows(data: dict, rows: int) -> dict:
    return {**data, "rows": (data["rows"] * (rows // len(data["rows"]) + 1))[:rows]}


def _refusal_seconds(root: Path, text: str) -> float:
    (root / "docs" / "benchmarks" / "checkpointing-cpu.json").write_text(text, "utf-8")
    started = time.perf_counter()
    try:
        benchmarks.render_embed(["checkpointing", "table"], root, REGISTRY, strict=False)
    except benchmarks.BenchmarkError:
        return time.perf_counter() - started
    raise SystemExit("the file was not refused")


def main() -> None:
    data = json.loads(COMMITTED.read_text("utf-8"))
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        shutil.copytree(ROOT / "snippets", root / "snippets")  # the schema with them
        (root / "docs" / "benchmarks").mkdir(parents=True)
        big = json.dumps(_rows(data, 60_000), indent=2)
        seconds = _refusal_seconds(root, big)
        print(f"60,000 rows, {len(big) / 1e6:.1f} MB: refused in {seconds:.3f} s")
        small = json.dumps({**data, "rows": [{}] * 60_000})
        seconds = _refusal_seconds(root, small)
        print(f"60,000 empty rows, {len(small) / 1e6:.2f} MB: refused in {seconds:.3f} s")
    for rows in (10_000, 20_000, 40_000):
        text = json.dumps(_rows(data, rows), indent=2)
        started = time.perf_counter()
        schema.value_lines(text)
        print(f"value_lines, {rows:,} rows ({len(text) / 1e6:.1f} MB): "
              f"{time.perf_counter() - started:.2f} s")  # fmt: skip


if __name__ == "__main__":
    main()
