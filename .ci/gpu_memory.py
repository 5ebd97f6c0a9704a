"""How much GPU memory the full-size benchmark needs, and whether this machine's device has it.

The need is worked out, not remembered: the course's memory model (``snippets/checkpointing.py``
``predict``) gives the largest peak of any strategy at the GPU size, on top of which the run
holds the weights, their gradients and the reference gradients it compares against; a margin
covers the allocator's rounding, CUDA's context and kernels' workspaces. README.md states the
figure this prints (``tests/test_benchmarks.py`` checks that they agree).

    python .ci/gpu_memory.py            # prints "needed <bytes>", exits 0
    python .ci/gpu_memory.py --check    # also compares with device 0; exits 1 when short

Imports torch and the snippets only (the GPU machine has nothing else).
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "snippets"))
import checkpointing

MARGIN = 1.25
GIB = 2**30


def needed_bytes(config: checkpointing.Config = checkpointing.CONFIGS["gpu"]) -> int:
    peak = max(checkpointing.predict(strategy, config)[1] for strategy in config.strategies())
    with torch.device("meta"):
        model = checkpointing.build_model(config.layers, config.hidden)
    itemsize = torch.empty((), dtype=getattr(torch, config.dtype)).element_size()
    weights = sum(p.numel() for p in model.parameters()) * itemsize
    return int((peak + 3 * weights) * MARGIN)  # weights, gradients, reference gradients


def main(argv: list[str]) -> int:
    needed = needed_bytes()
    print(f"needed {needed} bytes ({needed / GIB:.0f} GiB)")
    if "--check" not in argv:
        return 0
    if not torch.cuda.is_available():
        print("gpu-benchmarks: torch sees no CUDA device; nothing measured", file=sys.stderr)
        return 1
    free, total = torch.cuda.mem_get_info(0)
    name = torch.cuda.get_device_name(0)
    print(f"device {name}: {total / GIB:.1f} GiB in all, {free / GIB:.1f} GiB free")
    if free < needed:
        print(
            f"gpu-benchmarks: {name} has {free / GIB:.1f} GiB free; the full-size benchmark "
            f"needs about {needed / GIB:.0f} GiB. Nothing was measured: use a larger GPU, or "
            "free the memory other processes hold (nvidia-smi lists them).",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
