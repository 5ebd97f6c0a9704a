"""The CPU checkpointing measurements against their targets: prints figures, asserts nothing.

    .venv/bin/python tests/perf/bench_checkpointing_cpu.py

Runs what the normal test run measures, as its fixtures do: ``run_benchmark(CONFIGS["cpu"],
variants=VARIANTS["cpu"])`` (the MLP rows and the transformer runs) and the two-rank FSDP run.
Prints how long each took (budget: 60 s together on two cores, FSDP at most 30 s of that), every
strategy's whole-step peak as a share of no checkpointing's, predicted / measured whole-step
peak per row (target within 10%, or lesson 2 names the term), and the FSDP rank's share of the
unsharded parameter, gradient and optimizer bytes (target 50% +- 5%).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "snippets"))

import checkpointing  # noqa: E402  (needs snippets/ on the path)
import fsdp_step  # noqa: E402


def _title(config: dict) -> str:
    if config.get("block", "mlp") == "mlp":
        return f"MLP block, {config['dtype']}"
    precision = (
        f"{config['dtype']} + {config['autocast']} autocast"
        if config["autocast"]
        else config["dtype"]
    )
    return f"transformer, {config['attention']} attention, {precision}"


def main() -> None:
    start = time.perf_counter()
    results = checkpointing.run_benchmark(
        checkpointing.CONFIGS["cpu"], "cpu", variants=checkpointing.VARIANTS["cpu"]
    )
    measured = time.perf_counter() - start
    start = time.perf_counter()
    reference = fsdp_step.unsharded()
    ranks = fsdp_step.run_ranks(timeout_s=30)
    fsdp = time.perf_counter() - start
    total = measured + fsdp
    print(f"CPU measurements: {total:.1f} s (budget 60 s); FSDP {fsdp:.1f} s of it (budget 30 s)")
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
