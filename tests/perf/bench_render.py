"""How long the build spends on benchmark embeds: prints figures, asserts nothing.

    .venv/bin/python tests/perf/bench_render.py [repeats]

Times ``tools.benchmarks.render_embed`` for every view of the committed results: the first call
in a fresh process and later ones. Nothing is cached, so every call reads and validates the JSON
and hashes the measuring code again; that is what a rebuild under ``mkdocs serve`` pays. The
budget is 2 s for all views of a build.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from mkdocs_course import benchmarks  # noqa: E402  (needs the repository root on the path)
from mkdocs_course.course import config  # noqa: E402

REGISTRY = config.benchmarks(ROOT)


def main(repeats: int = 20) -> None:
    files = benchmarks.results_files(REGISTRY["checkpointing"], ROOT)
    views = benchmarks.benchmark("checkpointing", REGISTRY, ROOT).views
    print(f"results files: {', '.join(str(f.relative_to(ROOT)) for f in files)}")
    start = time.perf_counter()
    sizes = {
        view: len(benchmarks.render_embed(["checkpointing", view], ROOT, REGISTRY, strict=False))
        for view in views
    }
    cold = time.perf_counter() - start
    print(f"first render, all {len(sizes)} views (fresh process): {cold:.4f} s")
    totals = []
    for _ in range(repeats):
        start = time.perf_counter()
        for view in views:
            benchmarks.render_embed(["checkpointing", view], ROOT, REGISTRY, strict=False)
        totals.append(time.perf_counter() - start)
    print(
        f"later renders, all views: median {statistics.median(totals) * 1e3:.2f} ms, "
        f"max {max(totals) * 1e3:.2f} ms over {repeats} rebuilds (budget 2000 ms)"
    )
    for view, size in sizes.items():
        print(f"  {view:<14} {size:>7} characters of HTML")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
