"""Peak CPU memory of a piece of code, from torch.profiler's record of every allocation and free.

A CPU has no counter like CUDA's ``max_memory_allocated``, but the profiler with
``profile_memory=True`` records each allocation (positive bytes) and each free (negative bytes).
Summing them in time order gives the bytes held at every moment; the largest running total is
the peak above what was allocated before the measurement began.

The raw records are read from ``prof.profiler.kineto_results.events()``: in torch 2.13 the
higher-level ``prof.events()`` list kept only a few of them and reported a peak of 0. That
attribute is not a documented API, so ``tests/test_exercise_checkpointing.py`` pins this meter
against an allocation of known size.

    python snippets/cpu_peak.py      # measures a known allocation
"""

from collections.abc import Callable

import torch
from torch.profiler import ProfilerActivity, profile


# --8<-- [start:meter]
def profiled_peak(prof: profile) -> int:
    """Largest running total of a finished profiler's CPU allocation (+) and free (-) records."""
    records = [
        event
        for event in prof.profiler.kineto_results.events()
        if event.name() == "[memory]" and event.device_type() == torch.autograd.DeviceType.CPU
    ]
    held = peak = 0
    for event in sorted(records, key=lambda e: e.start_ns()):
        held += event.nbytes()  # negative for a free
        peak = max(peak, held)
    return peak


def peak_bytes(fn: Callable[[], object]) -> int:
    """Largest number of bytes held at once while ``fn()`` ran, above what it started with."""
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        fn()
    return profiled_peak(prof)


# --8<-- [end:meter]

if __name__ == "__main__":
    mib = 1 << 20

    def allocate_and_free() -> None:
        block = torch.ones(4 * mib // 4)  # 4 MiB of float32, freed on return
        del block

    print(f"peak while holding a 4 MiB tensor: {peak_bytes(allocate_and_free) / mib:.2f} MiB")
