"""FSDP on ranks that do not exist: one rank of a sharded training step, traced by category.

A fake process group (``torch.testing._internal.distributed.fake_pg.FakeStore``: collectives
that return at once and move no data) lets one process play rank 0 of any number of ranks.
Under ``FakeTensorMode`` the stack is built, sharded with ``fully_shard`` block by block and as a
whole, and stepped (every block checkpointed, the forward under autocast, Adam), while
``torch.distributed._tools.fsdp2_mem_tracker.FSDPMemTracker`` sorts every byte the rank holds
into FSDP's categories: sharded and unsharded parameters and gradients, optimizer state,
all-gather and reduce-scatter buffers, activations and backward's temporaries. Its snapshot at
the step's peak is what one row of the traced file's ``fsdp`` part holds.

Two layouts, because they hold different bytes:

- ``root``: the training loop calls the sharded root (``model(x)``). The root's hooks run, each
  block is a non-root FSDP module, and it frees its gathered parameters after its forward.
- ``blocks``: the course's harness (``fsdp_step.py``, ``checkpointing.train_step``) calls the
  blocks one by one and never the root. FSDP then makes each block a root of its own, and a
  root keeps its parameters gathered from its forward to its backward (it would gather them
  again at once), so the forward's end holds every block's unsharded parameters.

The device mesh is made before the fake mode: building it reads real tensors. A configuration
whose op has no fake implementation raises; the caller reports it by name and leaves it out.

``python snippets/fsdp_trace.py`` traces the CPU run's two ranks in both layouts and prints them.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Any

import checkpointing
import fsdp_step
import torch
import torch.distributed as dist
from torch import nn
from torch._subclasses.fake_tensor import FakeTensorMode

EVERY_LAYER = checkpointing.Strategy("groups", layers_per_group=1)
LAYOUTS = ("root", "blocks")
# FSDPMemTracker's category names, and the keys a traced row holds them under.
CATEGORIES = {
    "Sharded Param": "sharded_parameter_bytes",
    "Unsharded Param": "unsharded_parameter_bytes",
    "Sharded Grad": "sharded_gradient_bytes",
    "Unsharded Grad": "unsharded_gradient_bytes",
    "OptState": "optimizer_bytes",
    "All Gather": "all_gather_bytes",
    "Reduce Scatter": "reduce_scatter_bytes",
    "Activation": "activation_bytes",
    "Temp": "temporary_bytes",
    "Buffer": "buffer_bytes",
    "Inputs": "input_bytes",
}


class Root(nn.Module):
    """The stack as one module whose forward runs a strategy over its blocks, so that calling it
    runs the FSDP root's hooks (the ``root`` layout)."""

    def __init__(self, layers: nn.Sequential, strategy: checkpointing.Strategy) -> None:
        super().__init__()
        self.layers, self.strategy = layers, strategy

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.strategy.forward(self.layers, x)


@dataclasses.dataclass(frozen=True)
class ThroughRoot:
    """A strategy for ``checkpointing.train_step`` that runs the stack by calling its root."""

    root: Root

    def forward(self, layers: nn.Sequential, x: torch.Tensor, policy: Any = None) -> torch.Tensor:
        return self.root(x)

    def hooks(self, x: torch.Tensor) -> None:
        return None


def _shard(layers: nn.Sequential, strategy: checkpointing.Strategy, layout: str, mesh: Any):
    """Shard per block, then the whole; (what ``train_step`` runs, the tracker's root)."""
    from torch.distributed.fsdp import fully_shard

    for block in layers:
        fully_shard(block, mesh=mesh)
    if layout == "blocks":
        return strategy, fully_shard(layers, mesh=mesh)
    root = fully_shard(Root(layers, strategy), mesh=mesh)
    return ThroughRoot(root), root


def trace_rank(
    config: checkpointing.Config,
    world: int,
    layout: str = "root",
    strategy: checkpointing.Strategy = EVERY_LAYER,
) -> dict[str, Any]:
    """Rank 0 of ``world`` fake ranks: its bytes by category at the step's peak, and in all."""
    from torch.distributed._tools.fsdp2_mem_tracker import FSDPMemTracker
    from torch.distributed.device_mesh import init_device_mesh
    from torch.testing._internal.distributed.fake_pg import FakeStore

    if layout not in LAYOUTS:
        raise ValueError(f"layout {layout!r}: one of {', '.join(LAYOUTS)}")
    cpu = torch.device("cpu")
    dist.init_process_group("fake", store=FakeStore(), rank=0, world_size=world)
    try:
        mesh = init_device_mesh("cpu", (world,))
        with FakeTensorMode(), checkpointing.cpu_threads(cpu):
            layers = checkpointing.build_stack(config, cpu)
            run, root = _shard(layers, strategy, layout, mesh)
            whole, make_input = checkpointing.prepare_step(layers, config, cpu, config.autocast)
            checkpointing.train_step(run, layers, make_input, whole=whole)  # Adam's state
            tracker = FSDPMemTracker(root, whole.adam)
            with tracker:
                checkpointing.train_step(run, layers, make_input, whole=whole)
            peak = tracker.get_tracker_snapshot("peak")[cpu]
    finally:
        dist.destroy_process_group()
    named = {str(getattr(k, "value", k)): v for k, v in peak.items()}
    return {
        "layout": layout,
        "world": world,
        "strategy": strategy.name,
        "layers_per_group": strategy.layers_per_group,
        **{key: named.get(name, 0) for name, key in CATEGORIES.items()},
        "total_bytes": named["Total"],
    }


def check_config() -> checkpointing.Config:
    """The CPU measurement's FSDP run (``fsdp_step.py``), with its autocast: traced at its size,
    it checks the tracer against the measured ranks."""
    return dataclasses.replace(fsdp_step.CONFIG, autocast=fsdp_step.AUTOCAST)


def trace_fsdp(
    name: str,
    config: checkpointing.Config,
    world: int,
    layout: str,
    progress: Callable[[str], None],
) -> dict[str, Any]:
    """One row of the traced file's ``fsdp`` part; a configuration that cannot be traced gets
    its error by name and no figures (never zeros)."""
    label = f"fsdp {name}: {world} ranks, {layout} layout"
    started = time.perf_counter()
    row: dict[str, Any] = {"name": name, "config": config.record()}
    try:
        row.update(trace_rank(config, world, layout))
    except Exception as error:
        message = f"{type(error).__name__}: {error}".splitlines()[0]
        progress(f"{label}: NOT TRACED ({message})")
        return {**row, "world": world, "layout": layout, "error": message}
    progress(f"{label}: {time.perf_counter() - started:.1f} s")
    return row


if __name__ == "__main__":
    import memory_model

    config = check_config()
    size = memory_model.ITEMSIZE[config.dtype]
    print(
        f"{config.layers} transformer blocks on [{config.batch}, {config.tokens}, "
        f"{config.hidden}], every block checkpointed, {config.autocast} autocast: "
        "rank 0 of 2 fake ranks, bytes at the step's peak (traced; the model's count)"
    )
    for layout in LAYOUTS:
        row = trace_rank(config, 2, layout)
        model = memory_model.fsdp_bytes(config.block, config.hidden, config.layers, size, 2, layout)
        print(f"{layout}:")
        for key in ("unsharded_parameter_bytes", "all_gather_bytes", "reduce_scatter_bytes"):
            print(f"  {key}: {row[key]:,} ({model[key]:,.0f})")
        print(f"  total_bytes: {row['total_bytes']:,}")
