"""The CPU checkpointing measurements against their targets: prints figures, asserts nothing.

    .venv/bin/python tests/perf/bench_checkpointing_cpu.py

Runs what ``pytest --regenerate`` measures for the committed file: ``run_benchmark(CONFIGS["cpu"],
variants=VARIANTS["cpu"])`` (the MLP rows and the transformer runs; a normal test run times the
MLP rows in fewer rounds, ``TIMED_ROUNDS`` in tests/test_benchmarks.py), the GPU path's dress
rehearsal (``tests/test_benchmarks_gpu.py`` at its rehearsal size, offload emulated, the results
file written to a temporary folder) and the two-rank FSDP run. Prints how long each took and
their total (budget: 60 s together on two cores, FSDP at most 30 s of that), every
strategy's whole-step peak as a share of no checkpointing's, predicted / measured whole-step
peak per row (target within 10%, or lesson 2 names the term), and the FSDP rank's share of the
unsharded parameter, gradient and optimizer bytes (target 50% +- 5%).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "snippets"), str(ROOT / "tests")]

import checkpointing  # noqa: E402  (needs snippets/ on the path)
import fsdp_step  # noqa: E402
import test_benchmarks_gpu as gpu_run  # noqa: E402  (needs tests/ on the path)


def _title(config: dict) -> str:
    if config.get("block", "mlp") == "mlp":
        return f"MLP block, {config['dtype']}"
    precision = (
        f"{config['dtype']} + {config['autocast']} autocast"
        if config["autocast"]
        else config["dtype"]
    )
    return f"transformer, {config['attention']} attention, {precision}"


def rehearse() -> None:
    """The dress rehearsal's measurement, as ``test_gpu_path_dress_rehearsal`` makes it."""
    small, variants = gpu_run.rehearsal_configs()
    with (
        tempfile.TemporaryDirectory() as folder,
        mock.patch.dict(os.environ, BENCHMARK_RESULTS_DIR=folder),
        mock.patch.object(checkpointing, "offload_hooks", gpu_run.emulated_offload),
    ):
        gpu_run.measure_and_write(small, "cpu", variants)


def clocks() -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process and its finished children, the ranks)."""
    times = os.times()
    cpu = times.user + times.system + times.children_user + times.children_system
    return time.perf_counter(), cpu


def main() -> None:
    marks = [clocks()]
    results = checkpointing.run_benchmark(
        checkpointing.CONFIGS["cpu"], "cpu", variants=checkpointing.VARIANTS["cpu"]
    )
    marks.append(clocks())
    rehearse()
    marks.append(clocks())
    reference = fsdp_step.unsharded()
    ranks = fsdp_step.run_ranks()
    marks.append(clocks())
    # Wall time is the budget's measure; CPU time says how much of it was this work, not a
    # neighbour's, on a shared machine.
    print(f"{'CPU measurements':<42} {'wall':>7} {'CPU':>7}")
    parts = ("harness (MLP rows, transformer runs)", "GPU path's dress rehearsal", "FSDP ranks")
    for name, (wall0, cpu0), (wall1, cpu1) in zip(parts, marks[:-1], marks[1:], strict=True):
        budget = " (budget 30 s)" if name.startswith("FSDP") else ""
        print(f"  {name:<40} {wall1 - wall0:>6.1f}s {cpu1 - cpu0:>6.1f}s{budget}")
    (wall0, cpu0), (wall1, cpu1) = marks[0], marks[-1]
    print(f"  {'together':<40} {wall1 - wall0:>6.1f}s {cpu1 - cpu0:>6.1f}s (budget 60 s)")
    for run in [results, *results["runs"]]:
        rows = run["rows"]
        none = next(r for r in rows if r["strategy"] == "none")
        print(f"\n{_title(run['config'])}")
        head = f"  {'strategy':<20} {'parameter':<19} {'step peak':>10} {'of none':>8}"
        print(f"{head} {'pred/meas':>9}")
        for row in rows:
            share = row["step_peak_bytes"] / none["step_peak_bytes"]
            ratio = row["predicted_step_peak_bytes"] / row["step_peak_bytes"]
            flag = "" if abs(ratio - 1) <= 0.10 else "  outside 10%"
            print(
                f"  {row['strategy']:<20} {checkpointing._describe(row):<19} "
                f"{row['step_peak_bytes'] / 2**20:>6.1f} MiB {share:>8.0%} {ratio:>9.2f}{flag}"
            )
    print("\nFSDP, two ranks, every block checkpointed, bf16 autocast: share of the unsharded run")
    for rank, result in enumerate(ranks):
        shares = ", ".join(
            f"{key.removesuffix('_bytes')} {result[key] / reference[key]:.1%}"
            for key in ("parameter_bytes", "gradient_bytes", "optimizer_bytes", "saved_bytes")
        )
        print(f"  rank {rank}: {shares}")


if __name__ == "__main__":
    main()
