"""The GPU job's device checks: is there a CUDA device, which one, and has it the memory the
full-size benchmark needs.

    python .ci/gpu_memory.py --device   # torch only: exits 1 without CUDA, else prints
                                        # "<device name>\t<results file name>"
    python .ci/gpu_memory.py            # prints "needed <bytes>", exits 0
    python .ci/gpu_memory.py --check    # also compares with device 0; exits 1 when short

``--device`` runs before any course code is imported (the snippets and the tests are
contributors' code, and module-level code in them would run before the check): it imports
torch alone, and names the one results file the job may ship, from
``torch.cuda.get_device_name()``, as the harness names it (:func:`results_file`;
``tests/test_gpu_job.py`` checks that it agrees with ``snippets/provenance.py``).

The need is worked out, not remembered: the course's memory model (``snippets/checkpointing.py``
``predict``) gives the largest peak of any strategy at the GPU size, on top of which the run
holds the weights, their gradients and the reference gradients it compares against; a margin
covers the allocator's rounding, CUDA's context and kernels' workspaces. README.md states the
figure this prints (``tests/test_benchmarks.py`` checks that they agree).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import torch

SNIPPETS = Path(__file__).resolve().parent.parent / "snippets"
MARGIN = 1.25
GIB = 2**30
BENCHMARK = "checkpointing"


def results_file(device_name: str) -> str:
    """The results file the harness writes for ``device_name``: its lower-cased letters and
    digits, each other run of characters one ``-``."""
    words = re.split(r"[\W_]+", device_name.lower())
    return f"{BENCHMARK}-{'-'.join(w for w in words if w) or 'device'}.json"


def needed_bytes() -> int:
    sys.path.insert(0, str(SNIPPETS))  # course code: imported only once CUDA is known to be there
    import checkpointing

    config = checkpointing.CONFIGS["gpu"]
    peak = max(checkpointing.predict(strategy, config)[1] for strategy in config.strategies())
    with torch.device("meta"):
        model = checkpointing.build_model(config.layers, config.hidden)
    itemsize = torch.empty((), dtype=getattr(torch, config.dtype)).element_size()
    weights = sum(p.numel() for p in model.parameters()) * itemsize
    return int((peak + 3 * weights) * MARGIN)  # weights, gradients, reference gradients


def _no_cuda() -> bool:
    if torch.cuda.is_available():
        return False
    print("gpu-benchmarks: torch sees no CUDA device; nothing measured", file=sys.stderr)
    return True


def main(argv: list[str]) -> int:
    if "--device" in argv:
        if _no_cuda():
            return 1
        name = torch.cuda.get_device_name(0)
        print(f"{name}\t{results_file(name)}")
        return 0
    needed = needed_bytes()
    print(f"needed {needed} bytes ({needed / GIB:.0f} GiB)")
    if "--check" not in argv:
        return 0
    if _no_cuda():
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
