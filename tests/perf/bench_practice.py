"""Times of the practice workspace: ``start`` to the first check, and the checker's full run.

    .venv/bin/python tests/perf/bench_practice.py

The first is two commands, each its own process, as a learner types them. A full run is a
check whose CI has nothing cached: on the bug task, the tests at both commits and on each wrong
fix the checker holds; on the checkpointing task, the tests and the benchmark's measurement.
The targets are 10 s and 30 s on 2 cores (issues #25 and #35). The learner's commits are the
ones tests/test_practice.py makes, with the same helpers; the bug task's test is the course's
own regression test, and the figures end with the wrong fixes it catches.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import test_practice as lifecycle  # noqa: E402

from snippets.practice import cli  # noqa: E402
from snippets.practice.verdict import wrong_fixes  # noqa: E402


class Capture:
    """Enough of pytest's capsys for the test's Learner: the output is not needed here."""

    def readouterr(self) -> SimpleNamespace:
        return SimpleNamespace(out="", err="")


def timed(fn) -> tuple[float, float]:
    """Wall seconds, and CPU seconds of this process and its children: on a machine that other
    work keeps busy, the CPU time is what the run itself needs."""

    def cpu() -> float:
        own, children = (
            resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
        )
        return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime

    started, started_cpu = time.perf_counter(), cpu()
    fn()
    return time.perf_counter() - started, cpu() - started_cpu


def _bug_check(tmp: Path) -> tuple[tuple[float, float], tuple[list[str], list[str]]]:
    """A full check of the bug task with the course's own regression test, and what it caught."""
    root = tmp / "bug"
    cli.main(["start", str(root), "--name", lifecycle.NAME, "--email", lifecycle.EMAIL])
    learner = lifecycle.Learner(root, Capture())
    lifecycle.claimed_and_branched(learner)
    learner.fix_one_d()
    learner.write("tests/test_one_d.py", lifecycle.ONE_D_TEST)
    learner.commit("Accept 1-D input", "-s")
    took = timed(lambda: cli.main(["-C", str(root / "work"), "check"]))
    cache = root / ".practice" / "ci"
    (result,) = [json.loads(f.read_text("utf-8")) for f in cache.glob("*.json")]
    return took, wrong_fixes(result)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stdout(io.StringIO()):
        root = Path(tmp) / "ws"

        def start_and_check() -> None:  # as a learner types them, each its own process
            who = ["--name", lifecycle.NAME, "--email", lifecycle.EMAIL]
            subprocess.run(
                [sys.executable, "-m", "tools", "practice", "start", str(root), *who],
                cwd=ROOT,
                check=True,
                capture_output=True,
            )
            subprocess.run([str(root / "practice.py"), "check"], cwd=root, capture_output=True)

        first = timed(start_and_check)
        learner = lifecycle.Learner(root, Capture())
        lifecycle.claimed_and_branched(learner, 1235, "feat/1235-checkpointing")
        learner.write("simkit/model.py", lifecycle.checkpointed_model(learner))
        learner.write("tests/test_checkpointing.py", lifecycle.GRADIENT_TEST)
        learner.commit("Checkpointing", "-s")
        feature = timed(lambda: cli.main(["-C", str(root / "work"), "check"]))
        bug, (caught, missed) = _bug_check(Path(tmp))
    load = os.getloadavg()[0]
    print(f"load average {load:.1f} on {os.cpu_count()} cores", file=sys.stderr)
    for name, (wall, cpu), target in (
        ("start -> first check", first, 10),
        ("full check, #1234 (CI at both commits, 4 wrong fixes)", bug, 30),
        ("full check, #1235 (CI at both commits, the benchmark)", feature, 30),
    ):
        print(f"{name}: {wall:.2f} s wall, {cpu:.2f} s CPU (target <= {target} s)", file=sys.stderr)
    total = len(caught) + len(missed)
    print(
        f"the course's regression test catches {len(caught)} of {total} wrong fixes: "
        f"{', '.join(caught) or 'none'}; misses {', '.join(missed) or 'none'}",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
