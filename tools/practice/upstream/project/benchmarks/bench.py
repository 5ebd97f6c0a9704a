"""Peak memory of one training step of MLPStack on the CPU, with and without checkpointing.

Run it from the project's root, on your branch:

    python benchmarks/bench.py          # the Markdown table a checkpointing pull request shows
    python benchmarks/bench.py --json   # the same figures for CI, with the gradients' agreement

Peak memory comes from ``peak.py`` (the allocator's events, recorded by torch.profiler). Both
runs start from the same weights and input, so their gradients must agree; the largest
difference is given relative to each parameter gradient's own largest entry.
"""

import inspect
import json
import os
import sys

sys.path.insert(0, os.getcwd())  # the project under test: the folder this is run from

import torch
from peak import peak_bytes
from simkit.model import MLPStack

BATCH, WIDTH, LAYERS = 1024, 128, 8
MIB = 1 << 20


def measure() -> dict:
    if "checkpointing" not in inspect.signature(MLPStack).parameters:
        return {"error": "MLPStack(...) takes no `checkpointing` argument"}
    torch.manual_seed(0)
    plain = MLPStack(layers=LAYERS, width=WIDTH, checkpointing=False)
    checkpointed = MLPStack(layers=LAYERS, width=WIDTH, checkpointing=True)
    checkpointed.load_state_dict(plain.state_dict())
    x = torch.randn(BATCH, WIDTH)
    peaks = [peak_bytes(lambda m=m: m(x).sum().backward()) for m in (plain, checkpointed)]
    worst, missing = 0.0, 0
    for mine, reference in zip(checkpointed.parameters(), plain.parameters(), strict=True):
        if mine.grad is None:
            missing += 1
            continue
        scale = reference.grad.abs().max().clamp_min(torch.finfo(reference.grad.dtype).tiny)
        worst = max(worst, ((mine.grad - reference.grad).abs().max() / scale).item())
    return {
        "peak_off_mib": peaks[0] / MIB,
        "peak_on_mib": peaks[1] / MIB,
        "max_relative_gradient_difference": worst,
        "parameters_without_gradient": missing,
    }


if __name__ == "__main__":
    figures = measure()
    if "--json" in sys.argv:
        print(json.dumps(figures))
    elif "error" in figures:
        sys.exit(figures["error"])
    else:
        print(f"batch {BATCH}, width {WIDTH}, {LAYERS} blocks, torch {torch.__version__}, CPU\n")
        print("| checkpointing | peak memory of one step (MiB) |")
        print("| --- | --- |")
        print(f"| off | {figures['peak_off_mib']:.1f} |")
        print(f"| on | {figures['peak_on_mib']:.1f} |")
