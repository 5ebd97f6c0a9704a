"""Gradient checkpointing, measured: one stack of blocks, several ways to trade compute for memory.

For each strategy this harness measures, on whatever device it is given:

- bytes saved for backward, counted with ``saved_tensors_hooks`` (exact and device-independent);
- peak memory above the parameters-and-gradients baseline, recompute peak included: CUDA's
  ``max_memory_allocated``, or on CPU the running total of the allocator's events recorded by
  ``torch.profiler`` (the same quantity, counted another way);
- median step time and forward time (CUDA events, or ``perf_counter`` on CPU), which give the
  "one extra forward" estimate of the overhead, t_fwd / t_step (the whole step, the optimizer's
  update included, as the measured overhead is a share of that same step);
- whether the gradients equal those of no checkpointing, tensor by tensor, relative to each
  tensor's own scale, with the largest relative difference reported;
- the step time of checkpointing every layer with the random-number state stash off
  (``preserve_rng_state=False``; the model has no dropout, so the gradients stay equal) beside
  the default, in the same timing rounds: what that one named extra cost of checkpointing takes;
- for a float32 model, the bytes saved for backward under bfloat16 autocast, by dtype, and which
  ops computed in which dtype (autocast keeps some in float32);

and sets each memory figure beside the analytic prediction from per-layer sizes.

``python snippets/checkpointing.py`` runs a tiny CPU measurement and prints the deterministic part
(bytes, gradients; no timings). The tests call ``run_benchmark`` and write the results files in
``docs/benchmarks/``. Only torch and the standard library: the GPU machine that regenerates the
results has nothing else. Everything CUDA-specific sits in the ``device`` section.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import inspect
import math
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import cpu_peak
import memory_model
import provenance
import torch
from torch import nn
from torch.autograd.graph import save_on_cpu, saved_tensors_hooks
from torch.nn import functional as F
from torch.profiler import ProfilerActivity, profile
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.checkpoint import (
    CheckpointPolicy,
    checkpoint,
    checkpoint_sequential,
    create_selective_checkpoint_contexts,
)

ROOT = Path(__file__).resolve().parent.parent
OutOfMemory = getattr(torch, "OutOfMemoryError", torch.cuda.OutOfMemoryError)


# Newer torch warns that saved-tensor hooks around selective checkpointing will change meaning.
# Where ``checkpoint`` takes the option, opt out of them explicitly: the SavedBytes hooks below
# count selective's cache themselves, and must not see those tensors a second time.
def hooks_option(checkpoint_fn: Callable[..., Any]) -> dict[str, bool]:
    """``respect_saved_tensors_hooks=False`` where ``checkpoint_fn`` takes it, else nothing."""
    takes = "respect_saved_tensors_hooks" in inspect.signature(checkpoint_fn).parameters
    return {"respect_saved_tensors_hooks": False} if takes else {}


SELECTIVE_OPTIONS = hooks_option(checkpoint)


# --8<-- [start:block]
class Block(nn.Module):
    """Pre-norm MLP block on [batch, tokens, hidden]: x + Linear(GELU(Linear(LayerNorm(x))))."""

    def __init__(self, hidden: int) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(hidden)
        self.up = nn.Linear(hidden, 4 * hidden)
        self.act = nn.GELU()
        self.down = nn.Linear(4 * hidden, hidden)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.down(self.act(self.up(self.norm(x))))


class AttentionCore(nn.Module):
    """softmax(q kᵀ / √d + causal mask) v on [batch, heads, tokens, head size]: the part of
    attention whose memory grows with tokens², and what Korthikanti et al. recompute.

    ``explicit`` writes the ops out (matmul, softmax, dropout), so autograd keeps the scores'
    softmax, the dropout mask and the dropped probabilities, each [batch, heads, T, T].
    ``fused`` is ``F.scaled_dot_product_attention``, which keeps its output and one
    log-sum-exp per row instead, but only without dropout on CPU: with dropout, torch's CPU
    SDPA falls back to its math path, which keeps what the explicit ops keep (CUDA's flash and
    memory-efficient kernels keep the log-sum-exp either way).
    """

    def __init__(self, path: str, dropout: float) -> None:
        super().__init__()
        self.path, self.dropout = path, dropout

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        p = self.dropout if self.training else 0.0
        if self.path == "fused":
            return F.scaled_dot_product_attention(q, k, v, dropout_p=p, is_causal=True)
        tokens = q.shape[-2]
        scores = q @ k.transpose(-2, -1) * q.shape[-1] ** -0.5
        mask = torch.full((tokens, tokens), -math.inf, dtype=scores.dtype, device=q.device)
        probs = torch.softmax(scores + mask.triu(1), dim=-1)  # an add keeps nothing for backward
        return F.dropout(probs, p, self.training) @ v


def run_core(
    core: AttentionCore, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor
) -> torch.Tensor:
    return core(q, k, v)


class TransformerBlock(nn.Module):
    """Pre-norm decoder block: x + Linear(Attention(LayerNorm(x))), then the MLP block above.

    Causal multi-head self-attention with ``heads`` heads of size hidden / heads. q, k and v
    are made contiguous, so each is its own [B, T, H] tensor whatever the attention path.
    ``forward(x, core=...)`` lets a strategy wrap the attention core (selective recomputation).
    """

    def __init__(self, hidden: int, heads: int, attention: str, dropout: float) -> None:
        super().__init__()
        self.heads = heads
        self.norm = nn.LayerNorm(hidden)
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.core = AttentionCore(attention, dropout)
        self.proj = nn.Linear(hidden, hidden)
        self.mlp = Block(hidden)

    def forward(
        self, x: torch.Tensor, core: Callable[..., torch.Tensor] = run_core
    ) -> torch.Tensor:
        batch, tokens, hidden = x.shape
        qkv = self.qkv(self.norm(x)).view(batch, tokens, 3, self.heads, hidden // self.heads)
        q, k, v = (t.contiguous() for t in qkv.permute(2, 0, 3, 1, 4))
        out = core(self.core, q, k, v).transpose(1, 2).reshape(batch, tokens, hidden)
        return self.mlp(x + self.proj(out))


def build_model(
    layers: int,
    hidden: int,
    block: str = "mlp",
    heads: int = 1,
    attention: str = "explicit",
    dropout: float | None = None,
) -> nn.Sequential:
    """L identical blocks; every boundary between two blocks is one [B, T, H] tensor, size a.
    ``dropout``: attention-probability dropout (None: the path's default)."""
    if block == "mlp":
        return nn.Sequential(*(Block(hidden) for _ in range(layers)))
    dropout = ATTENTION_DROPOUT[attention] if dropout is None else dropout
    return nn.Sequential(
        *(TransformerBlock(hidden, heads, attention, dropout) for _ in range(layers))
    )


# Attention-probability dropout per path, by default: GPT-2's 0.1 where the ops are explicit
# (the case the classic formula counts); none on the fused path, whose CPU kernel falls back to
# the explicit ops with dropout (see AttentionCore). A run that compares the two paths at the
# same dropout sets ``Config.dropout``.
ATTENTION_DROPOUT = {"explicit": 0.1, "fused": 0.0}


# What backward needs from one block, in units of a: LayerNorm keeps its input (1), Linear-up
# its input, the norm's output (1), GELU its input (4), Linear-down its input (4). So c = 10,
# plus LayerNorm's per-token mean and 1/std, which are tiny.
ACTIVATIONS_PER_LAYER = 1 + 1 + 4 + 4
# Selective checkpointing (below) keeps the matmul outputs instead: Linear-up (4), Linear-down (1).
MATMUL_OUTPUTS_PER_LAYER = 4 + 1
# --8<-- [end:block]


# --8<-- [start:strategies]
def run_plain(layers: nn.Sequential, x: torch.Tensor) -> torch.Tensor:
    """No checkpointing: autograd keeps every block's activations until backward."""
    for layer in layers:
        x = layer(x)
    return x


def run_groups(
    layers: nn.Sequential, x: torch.Tensor, layers_per_group: int, preserve_rng_state: bool = True
) -> torch.Tensor:
    """Checkpoint each run of ``layers_per_group`` consecutive blocks.

    Only each group's input is kept; backward re-runs the group's forward to get the rest.
    ``preserve_rng_state=False`` skips stashing and restoring the random-number state: safe only
    without randomness (dropout) inside the groups.
    """
    for start in range(0, len(layers), layers_per_group):
        group = layers[start : start + layers_per_group]
        x = checkpoint(group, x, use_reentrant=False, preserve_rng_state=preserve_rng_state)
    return x


def run_segments(layers: nn.Sequential, x: torch.Tensor, segments: int) -> torch.Tensor:
    """``checkpoint_sequential``: split into ``segments`` chunks and checkpoint all but the LAST.

    The last chunk is never checkpointed, so ``segments=1`` means no checkpointing at all.
    """
    return checkpoint_sequential(layers, segments, x, use_reentrant=False)


MATMULS = (torch.ops.aten.mm.default, torch.ops.aten.addmm.default, torch.ops.aten.bmm.default)


def save_matmuls(ctx: Any, op: Any, *args: Any, **kwargs: Any) -> CheckpointPolicy:
    """Selective policy: keep matmul outputs (costly to redo), recompute the rest (cheap)."""
    if op in MATMULS:
        return CheckpointPolicy.MUST_SAVE
    return CheckpointPolicy.PREFER_RECOMPUTE


def run_selective(
    layers: nn.Sequential, x: torch.Tensor, policy: Callable[..., Any] = save_matmuls
) -> torch.Tensor:
    """Selective activation checkpointing of every block: the policy decides op by op."""
    context = partial(create_selective_checkpoint_contexts, policy)  # () -> (forward, recompute)
    for layer in layers:
        x = checkpoint(layer, x, use_reentrant=False, context_fn=context, **SELECTIVE_OPTIONS)
    return x


def checkpointed_core(
    core: AttentionCore, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor
) -> torch.Tensor:
    """Keep only q, k and v; backward recomputes scores, softmax and dropout (same mask)."""
    return checkpoint(core, q, k, v, use_reentrant=False)


def run_selective_attention(layers: nn.Sequential, x: torch.Tensor) -> torch.Tensor:
    """Selective recomputation after Korthikanti et al.: every transformer block keeps all it
    keeps without checkpointing, except its attention core, which backward recomputes."""
    for layer in layers:
        x = layer(x, core=checkpointed_core)
    return x


def offload_hooks(x: torch.Tensor) -> saved_tensors_hooks:
    """CPU offload: recompute nothing, copy every saved tensor to host memory instead."""
    return save_on_cpu(pin_memory=x.is_cuda)  # pinned host memory copies faster on CUDA


# --8<-- [end:strategies]


@dataclass(frozen=True)
class Strategy:
    """One row of the results: a strategy name and its (named, never "k") parameter."""

    name: str  # "none" | "groups" | "segments" | "selective" | "selective-attention" | "offload"
    layers_per_group: int | None = None
    segments: int | None = None
    preserve_rng_state: bool = True  # False only for the RNG-stash timing (groups)

    def forward(
        self, layers: nn.Sequential, x: torch.Tensor, policy: Callable[..., Any] = save_matmuls
    ) -> torch.Tensor:
        if self.name == "groups":
            return run_groups(layers, x, self.layers_per_group, self.preserve_rng_state)
        if self.name == "segments":
            return run_segments(layers, x, self.segments)
        if self.name == "selective":
            return run_selective(layers, x, policy)
        if self.name == "selective-attention":
            return run_selective_attention(layers, x)
        return run_plain(layers, x)  # "none", and "offload" (plain + hooks)

    def hooks(self, x: torch.Tensor) -> saved_tensors_hooks | None:
        return offload_hooks(x) if self.name == "offload" else None


# --8<-- [start:saved_bytes]
class SavedBytes:
    """Count the bytes autograd keeps between forward and backward.

    Every tensor an op saves for backward passes through ``pack``. We note its storage (views of
    one storage count once) and skip parameters, which exist anyway. Nothing is copied, so the
    count is exact and the same on any device. Two things hide from plain hooks:

    - Only the innermost hooks run, so CPU offload's ``save_on_cpu`` would hide everything. We
      wrap it instead: count, then delegate. Each pack there is its own host copy, so each counts.
    - Selective checkpointing keeps MUST_SAVE outputs in its own cache, not through hooks.
      ``watch(policy)`` counts those by replaying the op on "meta" tensors (shapes, no data).
    """

    def __init__(self, params: list[nn.Parameter], inner: saved_tensors_hooks | None = None):
        self.skip = {p.untyped_storage().data_ptr() for p in params}
        self.inner = inner
        self.storages: dict[int, int] = {}  # storage address -> bytes, for kept tensors
        self.dtypes: dict[int, torch.dtype] = {}  # storage address -> dtype of the kept tensor
        self.copied = 0  # bytes handed to the inner hooks (host copies when offloading)
        self.cached = 0  # bytes kept by selective checkpointing's cache

    def pack(self, tensor: torch.Tensor) -> Any:
        storage = tensor.untyped_storage()
        if storage.data_ptr() in self.skip:
            pass  # a parameter (or a view of one): not activation memory
        elif self.inner is not None:
            self.copied += tensor.numel() * tensor.element_size()
        else:
            self.storages[storage.data_ptr()] = storage.nbytes()
            self.dtypes[storage.data_ptr()] = tensor.dtype
        return self.inner.pack_hook(tensor) if self.inner is not None else tensor

    def unpack(self, packed: Any) -> torch.Tensor:
        return self.inner.unpack_hook(packed) if self.inner is not None else packed

    def watch(self, policy: Callable[..., Any]) -> Callable[..., Any]:
        def counting_policy(ctx: Any, op: Any, *args: Any, **kwargs: Any) -> Any:
            decision = policy(ctx, op, *args, **kwargs)
            if decision == CheckpointPolicy.MUST_SAVE and not ctx.is_recompute:
                meta = [a.to("meta") if isinstance(a, torch.Tensor) else a for a in args]
                out = op(*meta, **kwargs)
                for t in out if isinstance(out, (tuple, list)) else [out]:
                    self.cached += t.numel() * t.element_size()
            return decision

        return counting_policy

    @property
    def total(self) -> int:
        return sum(self.storages.values()) + self.copied + self.cached

    def by_dtype(self) -> dict[str, int]:
        """Bytes of the kept storages per dtype name (no offload, no selective cache)."""
        totals: dict[str, int] = {}
        for address, nbytes in self.storages.items():
            name = str(self.dtypes[address]).removeprefix("torch.")
            totals[name] = totals.get(name, 0) + nbytes
        return dict(sorted(totals.items()))

    def __enter__(self) -> SavedBytes:
        self._hooks = saved_tensors_hooks(self.pack, self.unpack)
        self._hooks.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._hooks.__exit__(*exc)


# --8<-- [end:saved_bytes]


@dataclass(frozen=True)
class Config:
    """Sizes and strategy parameters of one benchmark run (covered by the code hash)."""

    layers: int
    batch: int
    tokens: int
    hidden: int
    dtype: str
    layers_per_group: tuple[int, ...]
    segments: tuple[int, ...]
    warmup: int  # untimed steps before measuring (allocator, kernel selection)
    repeats: int  # timed steps; the median is reported; 0 = no timing
    block: str = "mlp"  # "mlp" | "transformer"
    heads: int = 1  # attention heads (transformer)
    attention: str = "explicit"  # "explicit" | "fused" (transformer)
    autocast: str | None = None  # e.g. "bfloat16": forward under torch.autocast in that dtype
    dropout: float | None = None  # attention dropout (transformer); None: ATTENTION_DROPOUT's

    def __post_init__(self) -> None:
        for n in (*self.layers_per_group, *self.segments):
            if not 1 <= n <= self.layers:  # checkpoint_sequential raises for segments > layers
                raise ValueError(f"{n} layers per group or segments: needs 1..{self.layers}")
        if self.block not in ("mlp", "transformer") or self.attention not in ATTENTION_DROPOUT:
            raise ValueError(f"unknown block {self.block!r} or attention {self.attention!r}")
        if self.heads < 1 or self.hidden % self.heads:
            raise ValueError(f"{self.heads} heads do not divide hidden size {self.hidden}")

    def strategies(self) -> list[Strategy]:
        attention = [Strategy("selective-attention")] if self.block == "transformer" else []
        return [
            Strategy("none"),
            *(Strategy("groups", layers_per_group=n) for n in self.layers_per_group),
            *(Strategy("segments", segments=n) for n in self.segments),
            Strategy("selective"),
            *attention,
            Strategy("offload"),
        ]

    def record(self) -> dict[str, Any]:
        """The configuration as a results file records it: the dropout that ran, not None."""
        dropout = self.attention_dropout if self.block == "transformer" else None
        return {**dataclasses.asdict(self), "dropout": dropout}

    @property
    def attention_dropout(self) -> float:
        return ATTENTION_DROPOUT[self.attention] if self.dropout is None else self.dropout

    def block_bytes(self, device: torch.device | str = "cpu") -> dict[str, int]:
        """What one block keeps for backward, by ``memory_model.block_bytes``. Fused attention
        with dropout on CPU runs SDPA's math path, which keeps what the explicit ops keep."""
        compute = memory_model.ITEMSIZE[self.autocast] if self.autocast else None
        on_cuda = torch.device(device).type == "cuda"
        falls_back = self.attention == "fused" and self.attention_dropout > 0 and not on_cuda
        return memory_model.block_bytes(
            self.block,
            self.batch,
            self.tokens,
            self.hidden,
            heads=self.heads,
            attention="explicit" if falls_back else self.attention,
            size=memory_model.ITEMSIZE[self.dtype],
            compute_size=compute,
            mask_size=1 if on_cuda else None,  # CUDA's fused dropout keeps a bool mask
            softmax_size=4 if on_cuda and compute else None,  # CUDA's autocast: float32 softmax
            cuda_kernels=on_cuda,
        )

    @property
    def boundary_bytes(self) -> int:
        """a: one [B, T, H] tensor."""
        itemsize = torch.empty((), dtype=getattr(torch, self.dtype)).element_size()
        return self.batch * self.tokens * self.hidden * itemsize


# H200-sized: no checkpointing keeps 24 * 10 * a = 24 GB of activations (a = 101 MB in bfloat16).
# segments=5 is near sqrt(L) = 4.9; sqrt(c * L) = 15.5 is where the model puts the optimum.
GPU = Config(
    24, 6, 4096, 2048, "bfloat16", (1, 2, 3, 4, 6), (2, 3, 5, 8, 12, 24), warmup=2, repeats=5
)
CONFIGS = {
    # The GPU run in miniature, for the normal test run on two cores: the same layers and
    # strategies, and the same B*T/H (12), the ratio of an activation (B*T*H) to a weight (H*H),
    # so weight-gradient buffers weigh as much against a as on the GPU and ratios in units of a
    # carry over. float32, because CPUs compute bfloat16 slowly.
    "cpu": dataclasses.replace(GPU, batch=4, tokens=192, hidden=64, dtype="float32", warmup=1),
    "gpu": GPU,
}


def transformer_variants(
    base: Config, *, batch: int, tokens: int, heads: int
) -> tuple[Config, ...]:
    """The transformer block beside ``base``'s MLP rows: explicit and fused attention in the
    base dtype (fused both without dropout and with the explicit rows' dropout, so the two paths
    also compare at the same dropout), and explicit attention with a float32 model under
    bfloat16 autocast. Half the
    layers and fewer group sizes and segment counts than the MLP rows: those trade-offs are the
    MLP rows' topic; here it is attention, the whole step and precision, whose ratios to a do
    not depend on the number of layers."""
    block = dataclasses.replace(
        base,
        block="transformer",
        layers=12,
        batch=batch,
        tokens=tokens,
        heads=heads,
        layers_per_group=(1, 4),
        segments=(4,),
        repeats=min(base.repeats, 3),
    )
    return (
        block,
        dataclasses.replace(block, attention="fused"),
        dataclasses.replace(block, attention="fused", dropout=ATTENTION_DROPOUT["explicit"]),
        dataclasses.replace(block, dtype="float32", autocast="bfloat16"),
    )


# Heads * tokens / hidden = 32 in both: the attention scores weigh 32 a per softmax-sized
# tensor, as in a 2048-wide, 16-head model at 4,096 tokens; batch * tokens / hidden = 2 in both.
VARIANTS = {
    "cpu": transformer_variants(CONFIGS["cpu"], batch=1, tokens=128, heads=16),
    "gpu": transformer_variants(GPU, batch=1, tokens=4096, heads=16),
}


def predict(
    strategy: Strategy, config: Config, device: torch.device | str = "cpu"
) -> tuple[int, int]:
    """(bytes saved for backward, peak bytes): the course's model (``memory_model``), from the
    per-layer sizes a and c * a that ``memory_model.block_bytes`` counts from the blocks, and
    the Adam step of :class:`WholeStep` (torch.optim's default: foreach on CUDA)."""
    a, per_block = config.boundary_bytes, config.block_bytes(device)
    kept = per_block["attention" if strategy.name == "selective-attention" else "matmuls"]
    optimizer = memory_model.optimizer_units(
        "adam",
        predicted_state(config)["parameter_bytes"],
        config.hidden,
        memory_model.ITEMSIZE[config.dtype],
        a,
        foreach=torch.device(device).type == "cuda",
    )
    saved, peak = memory_model.predict(
        strategy.name,
        config.layers,
        a,
        per_block["full"] / a,
        kept / a,
        optimizer=optimizer,
        layers_per_group=strategy.layers_per_group,
        segments=strategy.segments,
        **memory_model.transient_units(per_block, a),
    )
    return round(saved), round(peak)


def predicted_state(config: Config) -> dict[str, float]:
    """Parameter, gradient and Adam-state bytes of the model, by ``memory_model``."""
    per_block, tensors = memory_model.block_parameters(config.block, config.hidden)
    size = memory_model.ITEMSIZE[config.dtype]
    return memory_model.state_bytes(config.layers * per_block, config.layers * tensors, size)


def recomputed_fraction(strategy: Strategy, config: Config) -> float | None:
    """Share of one forward pass that backward re-runs (None: offload moves data instead)."""
    core = memory_model.attention_core_share(config.tokens, config.hidden)
    return memory_model.recomputed_fraction(strategy.name, config.layers, strategy.segments, core)


# --8<-- [start:device]
def start_peak_memory(device: torch.device) -> Callable[[], int]:
    """Start counting; the returned function gives the highest allocation above "now".

    "Now" is parameters and gradients (already allocated). CUDA counts it for us; a CPU has no
    such counter, so there the profiler records every allocation and free instead.
    """
    if device.type != "cuda":
        return start_cpu_peak_memory()
    torch.cuda.synchronize(device)
    torch.cuda.reset_peak_memory_stats(device)
    baseline = torch.cuda.memory_allocated(device)

    def peak() -> int:
        torch.cuda.synchronize(device)
        return torch.cuda.max_memory_allocated(device) - baseline

    return peak


def start_cpu_peak_memory() -> Callable[[], int]:
    """CPU peak above "now": the running total of the allocator's events, at its highest.

    The profiler's friendly event list drops most memory records (torch 2.13), so this reads
    the raw ones from ``kineto_results``, an undocumented attribute: a test pins it against a
    known allocation, so an upgrade that moves it fails loudly instead of reporting 0. Frees of
    blocks allocated before any profiler watched are not recorded: start it before the step
    allocates what it measures (parameters and gradients, allocated earlier, are never freed).
    """
    profiler = profile(activities=[ProfilerActivity.CPU], profile_memory=True)
    profiler.start()

    def peak() -> int:
        profiler.stop()
        return cpu_peak.profiled_peak(profiler)

    return peak


def time_step(step: Callable[..., None], device: torch.device) -> tuple[float, float]:
    """Run ``step(mark)`` once; return (forward seconds, whole-step seconds).

    ``step`` calls mark(0) before the forward, mark(1) after it, mark(2) after backward and
    mark(3) after the optimizer step. On CUDA the marks are events on the stream (kernels run
    asynchronously); on CPU wall-clock reads.
    """
    if device.type == "cuda":
        events = [torch.cuda.Event(enable_timing=True) for _ in range(4)]
        step(lambda i: events[i].record())
        torch.cuda.synchronize(device)
        return events[0].elapsed_time(events[1]) / 1e3, events[0].elapsed_time(events[3]) / 1e3
    marks = [0.0, 0.0, 0.0, 0.0]

    def mark(i: int) -> None:
        marks[i] = time.perf_counter()

    step(mark)
    return marks[1] - marks[0], marks[3] - marks[0]


@contextlib.contextmanager
def torch_setting(get: Callable[[], Any], put: Callable[[Any], None], value: Any) -> Any:
    """One of torch's process-wide settings set to ``value`` for a block, then put back."""
    previous = get()
    put(value)
    try:
        yield
    finally:
        put(previous)


def cpu_threads(device: torch.device, threads: int = 1) -> Any:
    """Time CPU runs on one thread: on a shared machine, thread contention swamps the signal."""
    if device.type != "cpu":
        return contextlib.nullcontext()
    return torch_setting(torch.get_num_threads, torch.set_num_threads, threads)


def default_dtype(dtype: torch.dtype) -> Any:
    """Build a model in ``dtype`` directly: under the fake mode of ``memory_trace.py``,
    ``Module.to`` has to swap parameters, which fails for parameters a tracker holds weak
    references to."""
    return torch_setting(torch.get_default_dtype, torch.set_default_dtype, dtype)


def release_memory(device: torch.device) -> None:
    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()


# --8<-- [end:device]


def _no_mark(i: int) -> None:
    pass


# --8<-- [start:whole_step]
class WholeStep:
    """Adam over the model's parameters, and what it takes to give every strategy the same step.

    After each ``optimizer.step()`` the weights go back to where they started, so every strategy
    computes its gradients from the same weights and they can be compared; the optimizer's
    arithmetic and memory are those of a real step. ``autocast``: the forward's dtype, or None.
    """

    def __init__(self, layers: nn.Sequential, autocast: str | None = None) -> None:
        self.params = list(layers.parameters())
        self.adam = torch.optim.Adam(self.params)
        self.initial = [p.detach().clone() for p in self.params]
        self.autocast = autocast

    def forward_context(self, device: torch.device) -> Any:
        if self.autocast is None:
            return contextlib.nullcontext()
        return torch.autocast(device.type, dtype=getattr(torch, self.autocast))

    def step(self) -> None:
        self.adam.step()

    def restore(self) -> None:
        with torch.no_grad():
            for p, w in zip(self.params, self.initial, strict=True):
                p.copy_(w)

    def state_bytes(self) -> dict[str, int]:
        """Parameter, gradient and optimizer-state bytes, measured from the tensors themselves."""

        def nbytes(tensors: Any) -> int:
            local = [getattr(t, "_local_tensor", t) for t in tensors if t is not None]
            return sum(t.numel() * t.element_size() for t in local)  # FSDP: this rank's shard

        state = [v for s in self.adam.state.values() for v in s.values() if torch.is_tensor(v)]
        return {
            "parameter_bytes": nbytes(self.params),
            "gradient_bytes": nbytes(p.grad for p in self.params),
            "optimizer_bytes": nbytes(state),
        }


# --8<-- [end:whole_step]


# --8<-- [start:measure]
def train_step(
    strategy: Strategy,
    layers: nn.Sequential,
    make_input: Callable[[], torch.Tensor],
    mark: Callable[[int], None] = _no_mark,
    meter: SavedBytes | None = None,
    whole: WholeStep | None = None,
) -> None:
    """One forward + backward (+ optimizer step with ``whole``); ``mark(0..3)`` brackets them."""
    layers.zero_grad(set_to_none=False)  # keep gradient buffers: part of the baseline
    torch.manual_seed(2)  # the same dropout masks in every step, so gradients compare
    x = make_input()  # created after the baseline, so it counts as activation memory
    mark(0)
    hooks, policy = strategy.hooks(x), save_matmuls
    if meter is not None:  # count what the strategy keeps, around its own hooks and policy
        meter.inner, hooks, policy = hooks, meter, meter.watch(policy)
    precision = whole.forward_context(x.device) if whole else contextlib.nullcontext()
    with hooks if hooks is not None else contextlib.nullcontext(), precision:
        loss = strategy.forward(layers, x, policy).float().mean()
    mark(1)
    loss.backward()
    mark(2)
    if whole is not None:
        whole.step()
    mark(3)
    if whole is not None:
        whole.restore()


def measure(
    strategy: Strategy,
    layers: nn.Sequential,
    make_input: Callable[[], torch.Tensor],
    config: Config,
    reference: list[torch.Tensor] | None,
    whole: WholeStep,
) -> tuple[dict[str, Any], list[torch.Tensor]]:
    """Memory and gradients of one strategy (timing is done later, for all strategies at once).

    The whole step's peak is what was resident before it (parameters, gradients, optimizer
    state) plus the highest allocation above that during forward, backward and optimizer step.
    """
    params = list(layers.parameters())
    for _ in range(config.warmup):
        train_step(strategy, layers, make_input, whole=whole)
    meter = SavedBytes(params)
    device = params[0].device
    resident = sum(whole.state_bytes().values())
    peak = start_peak_memory(device)
    try:
        train_step(strategy, layers, make_input, meter=meter, whole=whole)
    finally:  # stop counting (on CPU: stop the profiler) even when the step fails
        peak_bytes = peak()
    grads = [p.grad.detach().clone() for p in params]

    equal, max_diff = None, None
    if reference is not None:
        equal, max_diff = compare_grads(grads, reference, config.dtype)
    predicted_saved, predicted_peak = predict(strategy, config, device)
    row = {
        "strategy": strategy.name,
        "layers_per_group": strategy.layers_per_group,
        "segments": strategy.segments,
        "status": "ok",
        "saved_bytes": meter.total,
        "saved_on": "host" if strategy.name == "offload" else "device",
        "predicted_saved_bytes": predicted_saved,
        "peak_bytes": peak_bytes,
        "predicted_peak_bytes": predicted_peak,
        "step_peak_bytes": resident + peak_bytes,
        "predicted_step_peak_bytes": round(predicted_state(config)["total"]) + predicted_peak,
        "recomputed_fraction": recomputed_fraction(strategy, config),
        "grads_equal": equal,
        "grad_max_rel_diff": max_diff,
    }
    return row, grads


# --8<-- [end:measure]


# Largest allowed |gradient - reference| / max |reference|, per tensor. Recomputation runs the same
# kernels on the same inputs, so differences are rounding at most: a few units of the dtype's
# last place (bfloat16 keeps 8 significant bits, float32 24).
GRAD_TOLERANCE = {"float32": 1e-5, "bfloat16": 1.6e-2}


def compare_grads(
    grads: list[torch.Tensor], reference: list[torch.Tensor], dtype: str
) -> tuple[bool, float]:
    """(every tensor within tolerance, largest relative difference), each tensor on its own scale.

    One absolute tolerance for all tensors would let a tensor whose entries are all smaller than
    it pass even if it were zero; scaling by the tensor's own largest entry cannot.
    """
    worst = 0.0
    for grad, ref in zip(grads, reference, strict=True):
        diff = (grad.float() - ref.float()).abs().max().item()
        scale = ref.float().abs().max().item()
        worst = max(worst, diff / scale if scale else (0.0 if diff == 0 else math.inf))
    return worst <= GRAD_TOLERANCE[dtype], worst


# --8<-- [start:timing]
def time_strategies(
    strategies: list[Strategy],
    layers: nn.Sequential,
    make_input: Callable[[], torch.Tensor],
    repeats: int,
    whole: WholeStep | None = None,
) -> tuple[dict[Strategy, list[tuple[float, float]]], dict[Strategy, str]]:
    """(forward, step) seconds per strategy, in rounds: one step of each strategy per round.

    Interleaving means a slow spell of the machine hits every strategy alike, instead of
    whichever one happened to be running; the median then discards the outliers. A strategy
    that runs out of memory here (it fitted once, not every time) stops being timed; the
    second dict holds its error message.
    """
    device = next(layers.parameters()).device
    times: dict[Strategy, list[tuple[float, float]]] = {s: [] for s in strategies}
    failed: dict[Strategy, str] = {}
    for _ in range(repeats):
        for strategy in [s for s in strategies if s not in failed]:
            try:
                step = partial(train_step, strategy, layers, make_input, whole=whole)
                times[strategy].append(time_step(step, device))
                continue
            except OutOfMemory as error:
                failed[strategy] = str(error).splitlines()[0]
            times[strategy] = []  # outside the except: its traceback no longer pins tensors
            release_memory(device)
    return times, failed


# --8<-- [end:timing]


# --8<-- [start:autocast]
class OpDtypes(TorchDispatchMode):
    """Record the dtype each aten op computed in. The mode runs below autocast, so it sees the
    ops autocast chose (bfloat16 matmuls, a float32 LayerNorm), not the ones the model wrote."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: dict[str, set[str]] = {}  # op name -> dtypes of its floating-point outputs

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        out = func(*args, **(kwargs or {}))
        for t in out if isinstance(out, (tuple, list)) else [out]:
            if isinstance(t, torch.Tensor) and t.is_floating_point():
                dtype = str(t.dtype).removeprefix("torch.")
                self.seen.setdefault(func.overloadpacket.__name__, set()).add(dtype)
        return out


def measure_autocast(
    layers: nn.Sequential, make_input: Callable[[], torch.Tensor], dtype: str = "bfloat16"
) -> dict[str, Any]:
    """What the float32 model saves for backward without checkpointing, under autocast.

    Bytes by dtype (the bfloat16 copies autocast makes of the weights count: they are not the
    parameters), and the ops that computed in each dtype.
    """
    params = list(layers.parameters())
    device = params[0].device
    meter, ops = SavedBytes(params), OpDtypes()
    layers.zero_grad(set_to_none=False)
    x = make_input()
    with torch.autocast(device.type, dtype=getattr(torch, dtype)), meter, ops:
        loss = run_plain(layers, x).mean()
    loss.backward()
    by_op = {name: sorted(dtypes) for name, dtypes in sorted(ops.seen.items())}
    return {
        "dtype": dtype,
        "saved_bytes": meter.total,
        "saved_bytes_by_dtype": meter.by_dtype(),
        "ops_by_dtype": {
            kind: [name for name, dtypes in by_op.items() if kind in dtypes]
            for kind in sorted({d for dtypes in by_op.values() for d in dtypes})
        },
    }


# --8<-- [end:autocast]


def _oom_row(strategy: Strategy, config: Config, message: str) -> dict[str, Any]:
    """Out of memory is a result: the row keeps its prediction and says OOM."""
    predicted_saved, predicted_peak = predict(strategy, config)
    return {
        "strategy": strategy.name,
        "layers_per_group": strategy.layers_per_group,
        "segments": strategy.segments,
        "status": "oom",
        "error": message,
        "saved_bytes": None,
        "saved_on": "host" if strategy.name == "offload" else "device",
        "predicted_saved_bytes": predicted_saved,
        "peak_bytes": None,
        "predicted_peak_bytes": predicted_peak,
        "step_peak_bytes": None,
        "predicted_step_peak_bytes": round(predicted_state(config)["total"]) + predicted_peak,
        "recomputed_fraction": recomputed_fraction(strategy, config),
        "grads_equal": None,
        "grad_max_rel_diff": None,
    }


def run_benchmark(
    config: Config,
    device: torch.device | str = "cpu",
    strategies: list[Strategy] | None = None,
    variants: tuple[Config, ...] = (),
    fsdp: bool = False,
) -> dict[str, Any]:
    """Measure every strategy of ``config`` on ``device``, then every strategy of each variant
    (another block, attention path or precision), then with ``fsdp`` the two-rank FSDP step of
    ``fsdp_step`` (CPU processes: one GPU cannot run two ranks); returns the results-file
    content."""
    device = torch.device(device)
    with cpu_threads(device):
        main = _run(config, device, strategies or config.strategies())
        runs = [_run(variant, device, variant.strategies()) for variant in variants]
    if fsdp:
        import fsdp_step  # it imports this module; imported here, it is part of the code hash

        main["fsdp"] = fsdp_step.measure()
    return {
        "schema_version": provenance.SCHEMA_VERSION,
        "benchmark": "checkpointing",
        "provenance": provenance.collect(device, Path(__file__), ROOT),
        **main,
        **({"runs": runs} if runs else {}),
    }


def build_stack(config: Config, device: torch.device) -> nn.Sequential:
    """``config``'s stack of blocks on ``device``, in its dtype, from the same seed every time."""
    torch.manual_seed(0)
    with torch.device(device), default_dtype(getattr(torch, config.dtype)):
        return build_model(
            config.layers,
            config.hidden,
            config.block,
            config.heads,
            config.attention,
            config.dropout,
        )


def prepare_step(
    layers: nn.Module, config: Config, device: torch.device, autocast: str | None
) -> tuple[WholeStep, Callable[[], torch.Tensor]]:
    """What every measured or traced step starts from: gradient buffers allocated (part of the
    baseline), the optimizer, and a maker of the same input every step (made inside the step,
    so it counts as activation memory)."""
    for p in layers.parameters():
        p.grad = torch.zeros_like(p)
    whole = WholeStep(layers, autocast)
    dtype = getattr(torch, config.dtype)

    def make_input() -> torch.Tensor:
        generator = torch.Generator(device=device).manual_seed(1)
        shape = (config.batch, config.tokens, config.hidden)
        return torch.randn(shape, generator=generator, device=device, dtype=dtype)

    return whole, make_input


def _run(config: Config, device: torch.device, strategies: list[Strategy]) -> dict[str, Any]:
    layers = build_stack(config, device)
    whole, make_input = prepare_step(layers, config, device, config.autocast)
    rows, reference, measured = [], None, []
    for strategy in strategies:
        try:
            row, grads = measure(strategy, layers, make_input, config, reference, whole)
            measured.append(strategy)
        except OutOfMemory as error:
            row, grads = _oom_row(strategy, config, str(error).splitlines()[0]), None
        release_memory(device)  # outside the except: its traceback no longer pins tensors
        if strategy.name == "none":
            reference = grads
        rows.append(row)
    # Every layer checkpointed, RNG stash off: timed in the same rounds as the rows. Only for
    # the MLP block, which has no dropout: without the stash, dropout's masks would differ.
    every_layer = Strategy("groups", layers_per_group=1)
    no_stash = dataclasses.replace(every_layer, preserve_rng_state=False)
    stash_grads_equal = None
    if config.repeats and config.block == "mlp" and every_layer in measured:
        stash_row, _ = measure(no_stash, layers, make_input, config, reference, whole)
        stash_grads_equal = stash_row["grads_equal"]
        measured.append(no_stash)
    times: dict[Strategy, list[tuple[float, float]]] = {}
    failed: dict[Strategy, str] = {}
    if config.repeats:
        times, failed = time_strategies(measured, layers, make_input, config.repeats, whole)
        release_memory(device)
    for strategy, row in zip(strategies, rows, strict=True):
        if strategy in failed:  # its memory figures stand; a timing it could not finish does not
            row.update(status="oom", error=f"out of memory while timing: {failed[strategy]}")
        row.update(_timing(times.get(strategy)))
    _add_overheads(rows)
    extra: dict[str, Any] = {}
    if stash_grads_equal is not None and times.get(every_layer) and times.get(no_stash):
        extra["rng_stash"] = {
            "layers_per_group": 1,
            "grads_equal": stash_grads_equal,
            "step_times_s": [t[1] for t in times[every_layer]],
            "step_times_no_stash_s": [t[1] for t in times[no_stash]],
        }
    if config.dtype == "float32" and config.block == "mlp" and config.autocast is None:
        extra["autocast"] = measure_autocast(layers, make_input)  # the MLP block's dtypes
        release_memory(device)
    per_block = config.block_bytes(device)
    a = config.boundary_bytes
    return {
        "config": {**config.record(), "device": str(device)},
        "model": {
            "block": BLOCK_DESCRIPTIONS[config.block],
            "boundary_bytes": a,
            "activations_per_layer": ACTIVATIONS_PER_LAYER if config.block == "mlp" else None,
            "matmul_outputs_per_layer": MATMUL_OUTPUTS_PER_LAYER if config.block == "mlp" else None,
            "block_bytes": per_block,
            "parameter_bytes": sum(p.numel() * p.element_size() for p in layers.parameters()),
        },
        "state": {**whole.state_bytes(), "predicted": predicted_state(config)},
        "rows": rows,
        **extra,
    }


BLOCK_DESCRIPTIONS = {
    "mlp": "pre-norm MLP: LayerNorm -> Linear(H, 4H) -> GELU -> Linear(4H, H), residual",
    "transformer": "pre-norm decoder: LayerNorm -> causal multi-head self-attention -> "
    "Linear(H, H), residual; then the MLP block",
}


def _timing(samples: list[tuple[float, float]] | None) -> dict[str, Any]:
    """Median step and forward times, every round's step time, and their spread: the
    interquartile range of the rounds (None with fewer than two rounds)."""
    if not samples:
        return {
            "step_time_s": None,
            "forward_time_s": None,
            "step_times_s": [],
            "step_time_spread_s": None,
        }
    steps = [t[1] for t in samples]
    quartiles = statistics.quantiles(steps, n=4) if len(steps) > 1 else None
    return {
        "step_time_s": statistics.median(steps),
        "forward_time_s": statistics.median(t[0] for t in samples),
        "step_times_s": steps,
        "step_time_spread_s": quartiles[2] - quartiles[0] if quartiles else None,
    }


def _add_overheads(rows: list[dict[str, Any]]) -> None:
    """Overhead vs no checkpointing, and its one-forward estimate (``overhead_bound``, the
    results file's name for it): the recomputed share of t_fwd / t_step, the whole step."""
    base = next((r for r in rows if r["strategy"] == "none" and r["step_time_s"]), None)
    for row in rows:
        row["overhead"] = row["overhead_bound"] = None
        if base is None or row["step_time_s"] is None:
            continue
        row["overhead"] = row["step_time_s"] / base["step_time_s"] - 1
        if row["recomputed_fraction"] is not None:
            one_forward = base["forward_time_s"] / base["step_time_s"]
            row["overhead_bound"] = row["recomputed_fraction"] * one_forward


def _describe(row: dict[str, Any]) -> str:
    """The strategy's parameter, always with its name."""
    if row["layers_per_group"] is not None:
        n = row["layers_per_group"]
        return f"{n} layer{'s' if n != 1 else ''} per group"
    if row["segments"] is not None:
        return f"{row['segments']} segments"
    return "host copies" if row["saved_on"] == "host" else "-"


if __name__ == "__main__":
    config = dataclasses.replace(CONFIGS["cpu"], warmup=0, repeats=0)  # memory only, no timing
    results = run_benchmark(config)
    a = config.boundary_bytes
    shape = f"[{config.batch}, {config.tokens}, {config.hidden}]"
    print(f"{config.layers} blocks; a = one {shape} {config.dtype} tensor = {a // 1024} KiB")
    print("Memory in units of a: bytes saved for backward, and peak (recompute included):")
    head = ("strategy", "parameter", "saved", "predicted", "peak", "predicted", "gradients")
    print(
        f"{head[0]:<10} {head[1]:<19} {head[2]:>7} {head[3]:>9} {head[4]:>7} {head[5]:>9}  "
        f"{head[6]}"
    )
    for row in results["rows"]:
        equal = {True: "equal", False: "DIFFER", None: "reference"}[row["grads_equal"]]
        print(
            f"{row['strategy']:<10} {_describe(row):<19} {row['saved_bytes'] / a:>7.2f} "
            f"{row['predicted_saved_bytes'] / a:>9.2f} {row['peak_bytes'] / a:>7.2f} "
            f"{row['predicted_peak_bytes'] / a:>9.2f}  {equal}"
        )
