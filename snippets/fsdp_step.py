"""FSDP with checkpointing and bf16 autocast: what one rank of two holds, measured.

Two local processes (gloo on CPU, 127.0.0.1 only) each build the course's transformer stack,
shard it with ``fully_shard`` block by block and then as a whole, and run whole training steps
(forward under bfloat16 autocast, every block checkpointed, backward, Adam). Each rank reports
the parameter, gradient and optimizer-state bytes it holds (its local shards, measured from the
tensors), the bytes saved for backward and its step peak. The same stack without FSDP, in the
calling process, is the unsharded reference.

Sharding divides the first three by the number of ranks and leaves the activations alone:
checkpointing and autocast cut activation memory, FSDP cuts the model's state. A rank that
raises reports its traceback; a rank that does not finish within the time limit is killed; both
fail the run with that rank's error, and no process is left behind.

    python snippets/fsdp_step.py       # two ranks on CPU; prints each rank's share

:func:`measure` is the CPU results file's ``fsdp`` section (``checkpointing.run_benchmark``
adds it), so the lesson's FSDP table is rendered from a measurement like every other table.
"""

from __future__ import annotations

import dataclasses
import datetime
import queue
import socket
import traceback
from typing import Any

import checkpointing
import torch
import torch.multiprocessing as mp

# Small enough that two ranks start, shard and step within seconds on two busy cores; the
# block and its proportions are the transformer rows' (checkpointing.VARIANTS["cpu"]).
CONFIG = dataclasses.replace(
    checkpointing.VARIANTS["cpu"][0], layers=4, layers_per_group=(1,), segments=(2,), warmup=1
)
EVERY_LAYER = checkpointing.Strategy("groups", layers_per_group=1)
# How long the ranks may take, all together, before they count as hung: starting torch in two
# spawned processes and stepping takes seconds on idle cores, but a machine shared with other
# work once took past a minute; a real hang still ends the run, just later.
TIMEOUT_S = 300.0
AUTOCAST = "bfloat16"


class RankFailed(RuntimeError):
    """One rank raised or did not finish in time; the message names the rank and its error."""


def measure_step(layers: torch.nn.Module, config: checkpointing.Config) -> dict[str, Any]:
    """One warm-up and one measured whole step, every block checkpointed, under autocast."""
    whole, make_input = checkpointing.prepare_step(layers, config, torch.device("cpu"), AUTOCAST)

    for _ in range(config.warmup):
        checkpointing.train_step(EVERY_LAYER, layers, make_input, whole=whole)
    local = [getattr(p, "_local_tensor", p) for p in layers.parameters()]  # FSDP: the shards
    meter = checkpointing.SavedBytes(local)
    resident = sum(whole.state_bytes().values())
    peak = checkpointing.start_cpu_peak_memory()
    try:
        checkpointing.train_step(EVERY_LAYER, layers, make_input, meter=meter, whole=whole)
    finally:
        peak_bytes = peak()
    return {
        **whole.state_bytes(),
        "saved_bytes": meter.total,
        "peak_bytes": peak_bytes,
        "step_peak_bytes": resident + peak_bytes,
    }


def _rank(rank: int, world: int, port: int, config: checkpointing.Config, out: Any) -> None:
    """One process: join the group, shard per block, measure; report a result or a traceback."""
    import torch.distributed as dist
    from torch.distributed.fsdp import fully_shard

    try:
        torch.set_num_threads(1)
        dist.init_process_group(
            "gloo",
            init_method=f"tcp://127.0.0.1:{port}",
            rank=rank,
            world_size=world,
            timeout=datetime.timedelta(seconds=20),
        )
        layers = checkpointing.build_stack(config, torch.device("cpu"))
        for block in layers:
            fully_shard(block)
        fully_shard(layers)
        out.put((rank, "ok", measure_step(layers, config)))
        dist.destroy_process_group()
    except BaseException:
        out.put((rank, "error", traceback.format_exc()))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_ranks(
    config: checkpointing.Config = CONFIG, world: int = 2, timeout_s: float = TIMEOUT_S
) -> list[dict[str, Any]]:
    """Each rank's measurement, by rank; raises :class:`RankFailed` for a failing or hung rank,
    after killing every rank still running."""
    context = mp.get_context("spawn")
    out = context.Queue()
    port = _free_port()
    ranks = [
        context.Process(target=_rank, args=(r, world, port, config, out), daemon=True)
        for r in range(world)
    ]
    for process in ranks:
        process.start()
    results: dict[int, dict[str, Any]] = {}
    try:
        deadline = datetime.datetime.now() + datetime.timedelta(seconds=timeout_s)
        while len(results) < world:
            left = (deadline - datetime.datetime.now()).total_seconds()
            try:
                rank, status, payload = out.get(timeout=max(left, 0.01))
            except queue.Empty:
                missing = sorted(set(range(world)) - set(results))
                raise RankFailed(
                    f"rank {missing[0]} did not finish within {timeout_s:.0f} s (hung)"
                ) from None
            if status == "error":
                raise RankFailed(f"rank {rank} failed:\n{payload}")
            results[rank] = payload
        for process in ranks:
            process.join(timeout=10)
    finally:
        for process in ranks:
            if process.is_alive():
                process.kill()
            process.join()
    return [results[r] for r in range(world)]


def unsharded(config: checkpointing.Config = CONFIG) -> dict[str, Any]:
    """The same stack and step without FSDP, in this process: the reference."""
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return measure_step(checkpointing.build_stack(config, torch.device("cpu")), config)
    finally:
        torch.set_num_threads(previous)


def measure(
    config: checkpointing.Config = CONFIG, world: int = 2, timeout_s: float = TIMEOUT_S
) -> dict[str, Any]:
    """The unsharded reference and each rank, with the sizes they ran at and one block's
    parameter bytes (counted from its tensors) to read the ranks' extra memory against."""
    block = checkpointing.build_stack(config, torch.device("cpu"))[0]
    return {
        "layers": config.layers,
        "hidden": config.hidden,
        "heads": config.heads,
        "tokens": config.tokens,
        "batch": config.batch,
        "attention": config.attention,
        "autocast": AUTOCAST,
        "layers_per_group": EVERY_LAYER.layers_per_group,
        "world": world,
        "block_parameter_bytes": sum(p.numel() * p.element_size() for p in block.parameters()),
        "reference": unsharded(config),
        "ranks": run_ranks(config, world, timeout_s),
    }


if __name__ == "__main__":
    fsdp = measure()
    reference, ranks = fsdp["reference"], fsdp["ranks"]
    keys = ("parameter_bytes", "gradient_bytes", "optimizer_bytes", "saved_bytes")
    print(f"{CONFIG.layers} transformer blocks, every block checkpointed, {AUTOCAST} autocast")
    print(f"{'':<16}" + "".join(f"{k.removesuffix('_bytes'):>12}" for k in keys))
    print(f"{'no FSDP (KiB)':<16}" + "".join(f"{reference[k] / 1024:>12.1f}" for k in keys))
    for rank, result in enumerate(ranks):
        shares = "".join(f"{result[k] / reference[k]:>12.0%}" for k in keys)
        print(f"{f'rank {rank} of {len(ranks)}':<16}{shares}")
