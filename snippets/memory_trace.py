"""GPU-scale memory without a GPU: the course's training step traced with fake tensors.

Under ``torch._subclasses.fake_tensor.FakeTensorMode`` every op runs on tensors that carry a
shape, a dtype and a storage size but no data, so a whole step of a 7B-class stack "runs" on a
laptop and allocates nothing. :class:`HeldBytes` sits above that mode and adds up the storage of
every tensor an op returns, subtracting it when the storage dies: its highest total is the
step's peak above what existed before it, the quantity the CPU run measures with the profiler
and a GPU run with ``max_memory_allocated``.

What a trace is, and is not:

- It runs torch's **CPU kernels'** choices: which tensors an op saves for backward is decided
  by the kernel torch dispatches to. CUDA differs where its kernels differ: fused attention
  (flash and memory-efficient kernels keep a log-sum-exp, never the scores, even with dropout;
  on CPU, SDPA with dropout falls back to the explicit ops), dropout's mask (CUDA keeps a 1-byte
  bool, CPU a scaled copy in the compute dtype), autocast's op lists (CUDA's runs ``softmax``
  and ``layer_norm`` in float32, CPU's does not) and Adam (on CUDA torch.optim steps over the
  whole parameter list at once, with one parameter-sized temporary; on CPU tensor by tensor).
  :data:`CUDA_DIFFERENCES` names them per run kind, and :data:`CUDA_ADAM` for every run.
- The random-number state that checkpointing stashes per checkpoint (``torch.get_rng_state``)
  is a real tensor made outside the fake mode's reach, a few KiB each: :func:`counting_rng_state`
  hands it to the count too, as the profiler sees it in the measurement.
- A configuration whose op has no fake implementation raises; :func:`trace_runs` reports it by
  name and leaves it out, never as a zero.

``python snippets/memory_trace.py`` traces the GPU configuration's every-layer row and prints it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import multiprocessing
import time
import weakref
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import checkpointing
import fsdp_trace
import provenance
import torch
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves

# What a CUDA run would keep differently from the CPU kernels traced here, per run kind.
CUDA_DIFFERENCES = {
    "fused": "CUDA's flash and memory-efficient SDPA kernels keep one log-sum-exp per row, with "
    "dropout too (they remake its mask from the random state); "
    "the CPU kernel traced here keeps the same without dropout, and falls back to the explicit "
    "ops (two score-sized tensors) with it",
    "explicit": "CUDA's dropout keeps a 1-byte bool mask per score; the CPU kernel traced here "
    "keeps a scaled copy in the compute dtype",
    "autocast": "CUDA's autocast list runs softmax and layer_norm in float32, so the explicit "
    "core keeps float32 probabilities and a bfloat16 copy of the dropped ones; the CPU list "
    "traced here keeps bfloat16 probabilities",
}
CUDA_ADAM = (
    "CUDA's Adam (torch.optim's foreach default) holds one parameter-sized temporary during the "
    "step; the CPU loop traced here holds two of the largest parameter's size"
)


class HeldBytes(TorchDispatchMode):
    """Bytes held by the storages that ops return while the mode is active, and their peak.

    A storage counts once, however many views share it, from the op that made it until its last
    reference goes. The storages of ``existing`` (parameters, gradients, optimizer state: made
    before the step, updated in place by it) are never counted, so ``peak`` is the peak above
    them.
    """

    def __init__(self, existing: list[torch.Tensor]) -> None:
        super().__init__()
        self.held = self.peak = 0
        self._seen: dict[int, Any] = {}
        for t in existing:
            storage = t.untyped_storage()
            self._seen[id(storage)] = storage  # held strongly: never freed, never counted

    def _free(self, key: int, nbytes: int) -> None:
        self._seen.pop(key, None)
        self.held -= nbytes

    def count(self, t: torch.Tensor) -> None:
        """Count ``t``'s storage from now until it dies, unless it is already counted."""
        storage = t.untyped_storage()
        key = id(storage)
        seen = self._seen.get(key)
        if seen is storage or (isinstance(seen, weakref.ref) and seen() is storage):
            return
        nbytes = storage.nbytes()
        self._seen[key] = weakref.ref(storage, lambda _, k=key, n=nbytes: self._free(k, n))
        self.held += nbytes
        self.peak = max(self.peak, self.held)

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        out = func(*args, **(kwargs or {}))
        for t in tree_leaves(out):
            if isinstance(t, torch.Tensor):
                self.count(t)
        return out


@contextlib.contextmanager
def counting_rng_state(counter: HeldBytes) -> Iterator[None]:
    """Count the CPU random-number state each checkpoint stashes (``preserve_rng_state``):
    ``torch.get_rng_state`` makes it without dispatching an op the mode could see."""
    original = torch.get_rng_state

    def get_rng_state() -> torch.Tensor:
        state = original()
        counter.count(state)
        return state

    torch.get_rng_state = get_rng_state
    try:
        yield
    finally:
        torch.get_rng_state = original


def trace_step(config: checkpointing.Config, strategy: checkpointing.Strategy) -> dict[str, Any]:
    """One whole step (forward, backward, Adam) of ``strategy`` on ``config``, traced.

    As the measurement does, the step starts with parameters, gradients and Adam's state
    allocated (here by one optimizer step on zero gradients, the measurement's warm-up), so
    ``peak_bytes`` is the peak above them and ``step_peak_bytes`` adds them back.
    """
    cpu = torch.device("cpu")
    with FakeTensorMode(), checkpointing.cpu_threads(cpu):
        layers = checkpointing.build_stack(config, cpu)
        whole, make_input = checkpointing.prepare_step(layers, config, cpu, config.autocast)
        whole.step()  # Adam's state exists from here on, as after the measurement's warm-up
        adam = [v for s in whole.adam.state.values() for v in s.values() if torch.is_tensor(v)]
        counter = HeldBytes([*whole.params, *(p.grad for p in whole.params), *adam])
        with counter, counting_rng_state(counter):
            checkpointing.train_step(strategy, layers, make_input, whole=whole)
        state = whole.state_bytes()
    return {
        "peak_bytes": counter.peak,
        "step_peak_bytes": sum(state.values()) + counter.peak,
        "state": state,
    }


def traced_row(config: checkpointing.Config, strategy: checkpointing.Strategy) -> dict[str, Any]:
    """A traced row: the strategy, its traced peaks and the memory model's predictions."""
    traced = trace_step(config, strategy)
    _, predicted_peak = checkpointing.predict(strategy, config)
    state = round(checkpointing.predicted_state(config)["total"])
    return {
        "strategy": strategy.name,
        "layers_per_group": strategy.layers_per_group,
        "segments": strategy.segments,
        "peak_bytes": traced["peak_bytes"],
        "predicted_peak_bytes": predicted_peak,
        "step_peak_bytes": traced["step_peak_bytes"],
        "predicted_step_peak_bytes": state + predicted_peak,
        "state": traced["state"],
    }


def run_kind(config: checkpointing.Config) -> str:
    """The key of :data:`CUDA_DIFFERENCES` that names how a CUDA run would differ, if any."""
    if config.autocast:
        return "autocast"
    return config.attention if config.block == "transformer" else "mlp"


def say(line: str) -> None:
    """A progress line, printed at once (a worker's output is otherwise held until it ends)."""
    print(line, flush=True)


def trace_run(
    name: str,
    config: checkpointing.Config,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Every strategy of ``config``, traced; a strategy that cannot be traced is listed in
    ``untraced`` with its error and has no row."""
    progress = progress or say
    rows: list[dict[str, Any]] = []
    untraced: list[dict[str, Any]] = []
    for strategy in config.strategies():
        label = f"{name}: {strategy.name} {strategy.layers_per_group or strategy.segments or ''}"
        started = time.perf_counter()
        try:
            rows.append(traced_row(config, strategy))
        except Exception as error:
            untraced.append(
                {
                    "strategy": strategy.name,
                    "layers_per_group": strategy.layers_per_group,
                    "segments": strategy.segments,
                    "error": f"{type(error).__name__}: {error}".splitlines()[0],
                }
            )
            progress(f"{label.strip()}: NOT TRACED ({untraced[-1]['error']})")
            continue
        progress(f"{label.strip()}: {time.perf_counter() - started:.1f} s")
    states = [row.pop("state") for row in rows]
    return {
        "name": name,
        "config": config.record(),
        "boundary_bytes": config.boundary_bytes,
        "cuda_differs": "; ".join(
            filter(None, (CUDA_DIFFERENCES.get(run_kind(config)), CUDA_ADAM))
        ),
        "state": {
            **(states[0] if states else {}),
            "predicted": checkpointing.predicted_state(config),
        },
        "rows": rows,
        "untraced": untraced,
    }


def gpu_runs() -> dict[str, checkpointing.Config]:
    """The GPU configuration at full size: its MLP rows and ``VARIANTS["gpu"]``, each also in the
    precisions the GPU run does not measure (float32, bfloat16, bfloat16 autocast)."""
    mlp = checkpointing.CONFIGS["gpu"]
    explicit, fused, fused_dropout, _ = checkpointing.VARIANTS["gpu"]
    runs: dict[str, checkpointing.Config] = {}
    for name, config in (("MLP", mlp), ("explicit", explicit), ("fused", fused)):
        for precision, (dtype, autocast) in PRECISIONS.items():
            runs[f"{name}, {precision}"] = dataclasses.replace(
                config, dtype=dtype, autocast=autocast
            )
    runs["fused, dropout, bfloat16"] = fused_dropout
    return runs


# The precisions traced, as (model dtype, autocast dtype).
PRECISIONS = {
    "float32": ("float32", None),
    "bfloat16": ("bfloat16", None),
    "bfloat16 autocast": ("float32", "bfloat16"),
}
# The FSDP part shards the 7B-class preset over one node of eight devices.
FSDP_PRESET, FSDP_RANKS = "7b", 8
# What the presets are traced with: the planner's default precision and attention path, one
# sequence of the model's context per step.
PRESET_STEP = {"batch": 1, "dtype": "float32", "autocast": "bfloat16", "attention": "explicit"}


def preset_config(preset: dict[str, Any]) -> checkpointing.Config:
    """A planner preset (layers, hidden, heads, tokens) as a transformer run of every strategy."""
    return dataclasses.replace(
        checkpointing.VARIANTS["gpu"][0],
        layers=preset["layers"],
        hidden=preset["hidden"],
        heads=preset["heads"],
        tokens=preset["tokens"],
        layers_per_group=(1, 4),
        segments=(4,),
        **PRESET_STEP,
    )


def trace_all(
    presets: list[dict[str, Any]], progress: Callable[[str], None] | None = None, workers: int = 2
) -> dict[str, Any]:
    """The traced results file's parts: the CPU run's configurations (to check the tracer
    against the measurement), the GPU configuration at full size, the planner's presets (the
    7B-class shape among them), and FSDP by category: the CPU run's two ranks and the 7B-class shape
    on :data:`FSDP_RANKS` fake ranks, each in both of ``fsdp_trace.LAYOUTS``."""
    cpu = {"MLP": checkpointing.CONFIGS["cpu"]}
    for config in checkpointing.VARIANTS["cpu"]:
        cpu[describe(config)] = config
    parts: dict[str, dict[str, checkpointing.Config]] = {
        "cpu_check": cpu,
        "gpu": gpu_runs(),
        "presets": {p["label"]: preset_config(p) for p in presets},
    }
    sharded = next(p["label"] for p in presets if p["key"] == FSDP_PRESET)
    fsdp = [
        ("CPU check", fsdp_trace.check_config(), 2, layout) for layout in fsdp_trace.LAYOUTS
    ] + [(sharded, parts["presets"][sharded], FSDP_RANKS, layout) for layout in fsdp_trace.LAYOUTS]
    progress = progress or say
    out: dict[str, Any] = {}
    # Runs are independent: one process per core traces them (spawned, so no worker inherits
    # torch's threads), each printing its own progress lines.
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(workers, mp_context=context) as pool:
        for part, runs in parts.items():
            started = time.perf_counter()
            jobs = [pool.submit(trace_run, name, config, progress) for name, config in runs.items()]
            out[part] = [job.result() for job in jobs]
            progress(f"== {part}: {len(runs)} runs in {time.perf_counter() - started:.0f} s")
        started = time.perf_counter()
        jobs = [pool.submit(fsdp_trace.trace_fsdp, *run, progress) for run in fsdp]
        out["fsdp"] = [job.result() for job in jobs]
        progress(f"== fsdp: {len(fsdp)} runs in {time.perf_counter() - started:.0f} s")
    return out


METHOD = "traced with fake tensors, not measured"


def results_file(parts: dict[str, Any], root: Path) -> dict[str, Any]:
    """The traced results file: ``parts`` with provenance (torch, date, commit, code hash), its
    device the tracer itself, so nothing reads it as a measurement."""
    found = provenance.collect(torch.device("cpu"), Path(__file__), root)
    host = found["device"]["name"]
    found["device"] = {
        "type": "traced",
        "name": "fake tensors on CPU kernels",
        "slug": "traced",
        "host": host,
    }
    found["method"] = METHOD
    return {
        "schema_version": provenance.SCHEMA_VERSION,
        "benchmark": "checkpointing",
        "provenance": found,
        **parts,
    }


def describe(config: checkpointing.Config) -> str:
    """ "explicit, dropout 0.1, bfloat16 autocast": a transformer run's name."""
    precision = f"{config.autocast} autocast" if config.autocast else config.dtype
    return f"{config.attention}, dropout {config.attention_dropout:g}, {precision}"


if __name__ == "__main__":
    gpu = checkpointing.CONFIGS["gpu"]
    every_layer = checkpointing.Strategy("groups", layers_per_group=1)
    found = traced_row(gpu, every_layer)
    print(
        f"{gpu.layers} MLP blocks on [{gpu.batch}, {gpu.tokens}, {gpu.hidden}] {gpu.dtype}, "
        "every layer checkpointed, traced with fake tensors:"
    )
    for key, value in found.items():
        print(f"  {key}: {value}")
