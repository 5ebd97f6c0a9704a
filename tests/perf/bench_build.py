"""Print build timings (a benchmark, not a test): clean build, then a rebuild with nothing changed.

Run: ``.venv/bin/python tests/perf/bench_build.py``. "Clean" removes ``site/`` and the notebook
cache, so the lab notebook is executed; the rebuild reuses the cache like any later build does.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def timed_build() -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "mkdocs_course.cli", "build"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - started


def main() -> None:
    shutil.rmtree(ROOT / "site", ignore_errors=True)
    shutil.rmtree(ROOT / ".cache", ignore_errors=True)
    print(f"clean build (site/ and notebook cache removed): {timed_build():.1f} s")
    print(f"rebuild, nothing changed:                        {timed_build():.1f} s")


if __name__ == "__main__":
    main()
