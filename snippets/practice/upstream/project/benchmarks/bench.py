"""Peak memory of one training step of MLPStack on the CPU, with and without checkpointing.

Run it from the project's root, on your branch:

    python benchmarks/bench.py          # the Markdown table a checkpointing pull request shows
    python benchmarks/bench.py --json   # the same figures for CI, with the gradients' agreement

Peak memory comes from ``peak.py`` (the allocator's events, recorded by torch.profiler). Both
runs start from the same weights, the same input and the same random seed (reseeded before
each run, so dropout draws the same masks), so their gradients must agree; the largest
difference is given relative to each parameter gradient's own largest entry. When they differ,
both run again in eval mode, where random layers are off: if the gradients then agree, the
difference came from random numbers drawn again differently during recomputation.
"""

import inspect
import json
import os
import sys
import warnings

sys.path.insert(0, os.getcwd())  # the project under test: the folder this is run from

import torch
from peak import peak_bytes
from simkit.model import MLPStack

BATCH, WIDTH, LAYERS = 1024, 128, 8
MIB = 1 << 20


def step(model, x) -> None:
    """One training step's forward and backward, from the same random state every time."""
    torch.manual_seed(1)
    model(x).sum().backward()


def difference(checkpointed, plain) -> tuple[float, int]:
    """The largest gradient difference (relative) and the parameters left without a gradient."""
    worst, missing = 0.0, 0
    for mine, reference in zip(checkpointed.parameters(), plain.parameters(), strict=True):
        if mine.grad is None:
            missing += 1
            continue
        scale = reference.grad.abs().max().clamp_min(torch.finfo(reference.grad.dtype).tiny)
        worst = max(worst, ((mine.grad - reference.grad).abs().max() / scale).item())
    return worst, missing


def measure() -> dict:
    if "checkpointing" not in inspect.signature(MLPStack).parameters:
        return {"error": "MLPStack(...) takes no `checkpointing` argument"}
    torch.manual_seed(0)
    plain = MLPStack(layers=LAYERS, width=WIDTH, checkpointing=False)
    checkpointed = MLPStack(layers=LAYERS, width=WIDTH, checkpointing=True)
    checkpointed.load_state_dict(plain.state_dict())
    x = torch.randn(BATCH, WIDTH)
    peaks = [peak_bytes(lambda m=m: step(m, x)) for m in (plain, checkpointed)]
    worst, missing = difference(checkpointed, plain)
    figures = {
        "peak_off_mib": peaks[0] / MIB,
        "peak_on_mib": peaks[1] / MIB,
        "max_relative_gradient_difference": worst,
        "parameters_without_gradient": missing,
    }
    if worst > 0:
        for model in (plain, checkpointed):
            model.eval()
            model.zero_grad(set_to_none=True)
            step(model, x)
        figures["max_relative_gradient_difference_in_eval"] = difference(checkpointed, plain)[0]
    return figures


def measured() -> dict:
    """``measure()``, with what torch warned about ``use_reentrant`` and any error as figures."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            figures = measure()
        except Exception as error:  # the branch's model failed: CI reports it, not a traceback
            figures = {"error": f"{type(error).__name__}: {error}"}
    said = [str(w.message) for w in caught if "use_reentrant" in str(w.message)]
    if said:
        figures["use_reentrant_warning"] = said[0]
    return figures


if __name__ == "__main__":
    figures = measured()
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
