"""Regenerate the traced results file, docs/benchmarks/checkpointing-traced.json (maintainers).

    .venv/bin/python tests/perf/trace_checkpointing.py

Traces, with fake tensors on CPU kernels (``snippets/memory_trace.py``), every strategy of the
CPU run's configurations (the tracer's check against the measurement), of the GPU configuration
at full size in three precisions, and of the planner's presets; prints one line per
configuration and the time of each part. Allocates no memory for the tensors, so it runs on any
machine; the normal test run never runs it, and reads the committed file (stale when its code
changes, like the measured ones).
"""

from __future__ import annotations

import dataclasses
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "snippets"), str(ROOT)]

import memory_trace  # noqa: E402  (needs snippets/ on the path)
import provenance  # noqa: E402

import tools.benchmarks  # noqa: E402, F401  (first: the engine still imports the views)

# isort: split
from snippets.benchmark_views.planner import PRESETS  # noqa: E402


def main() -> None:
    started = time.perf_counter()
    parts = memory_trace.trace_all([dataclasses.asdict(p) for p in PRESETS])
    results = memory_trace.results_file(parts, ROOT)
    path = provenance.write_results(results, ROOT / "docs" / "benchmarks")
    print(f"wrote {path.relative_to(ROOT)} in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
