"""The course's analytic model of a training step's memory under checkpointing, in plain arithmetic.

Two readers need it: the benchmark harness (``checkpointing.py``, which needs torch) writes the
tables' "predicted" columns with it, and the memory planner of Lesson 2
(``benchmark_views/planner.js``, a port checked against this file by the browser tests) plans
whole steps nobody measured, on real model shapes. So it imports nothing but ``math``, and every
size is a parameter:

- ``a``: bytes of one boundary tensor between two layers, [batch, tokens, hidden];
- ``c``: what one layer keeps for backward, in units of a (:func:`block_bytes` counts it from
  the blocks' code);
- ``kept``: what selective checkpointing keeps per layer, in units of a;
- the resident state: parameters, gradients and optimizer state (:func:`state_bytes`), divided
  across FSDP ranks.

``python snippets/memory_model.py`` prints the planner's answer for one example model.
"""

from __future__ import annotations

import math

ITEMSIZE = {"float32": 4, "bfloat16": 2, "float16": 2}
# t_fwd / (t_fwd + t_bwd) with a backward pass about twice the forward: recomputing a whole
# forward pass then costs about a third of a step (the "+33%" estimate of Lesson 2, not a bound:
# the course's measurements exceed it).
FORWARD_SHARE = 1 / 3


def boundary_bytes(batch: int, tokens: int, hidden: int, dtype: str) -> int:
    """a: one [batch, tokens, hidden] tensor."""
    return batch * tokens * hidden * ITEMSIZE[dtype]


def block_bytes(
    block: str,
    batch: int,
    tokens: int,
    hidden: int,
    *,
    heads: int = 1,
    attention: str = "explicit",
    size: int = 4,
    compute_size: int | None = None,
    mask_size: int | None = None,
    softmax_size: int | None = None,
    cuda_kernels: bool = False,
) -> dict[str, int]:
    """Bytes one block of ``snippets/checkpointing.py`` keeps for backward, counted from its code.

    ``size``: the model's item size (its parameters and residual stream); ``compute_size``: the
    autocast dtype's (matmul inputs and outputs, GELU, softmax; default ``size``); ``mask_size``:
    dropout's mask per element (torch's CPU dropout keeps its scaled noise in the compute dtype,
    CUDA's fused kernel a 1-byte bool); ``softmax_size``: the explicit softmax's output per
    element (CUDA's autocast list runs softmax in float32 whatever the autocast dtype, the CPU
    list in the autocast dtype; default the compute size); ``cuda_kernels``: count explicit
    attention's backward and recomputation as CUDA's kernels hold them (seen op by op on an
    H200): the softmax's backward kernel holds a scratch tensor of the scores' size while it
    runs, and recomputing a block under autocast holds nothing more than running it once (the
    CPU kernels' extra float32 score-sized tensor, ``recompute_extra``, is CPU autocast's).
    Keys: ``full`` (no checkpointing), ``matmuls`` (what selective checkpointing with the
    keep-the-matmuls policy keeps: the block input plus every mm/addmm/bmm output),
    ``attention`` (what selective recomputation of the attention core keeps: all but the core's
    insides). The terms:

    - LayerNorm keeps its input (``size``) and a float32 mean and 1/std per token;
    - a Linear keeps its input in the compute dtype; under autocast also the 16-bit copy of its
      weight (a new tensor, not the parameter);
    - GELU keeps its input (4 H per token);
    - explicit attention keeps q, k, v, the softmax output and the dropped probabilities
      (heads·T² each; under CUDA's autocast a float32 softmax output, and the dropped float32
      probabilities' 16-bit copy that the matmul with v keeps) and dropout's mask; fused
      attention keeps q, k, v, its output and one float32 log-sum-exp per head and token.

    Three more keys are what a block holds *beyond* what it keeps, while backward runs (the
    transient terms of :func:`predict`):

    - ``backward``: the most one block's backward holds at once above its kept tensors. In the
      MLP part that is Linear-down's backward: the incoming gradient (``size``), the gradient of
      its input (4 H per token, compute dtype), its weight gradient (4 H², compute dtype) before
      it is added to ``.grad``, and under autocast the incoming gradient's 16-bit copy. Explicit
      attention's is larger when the scores are: the probabilities' gradient (heads·T²; a
      float32 softmax's backward holds its incoming gradient and its result in float32, where
      the 16-bit copy it was given is freed: 2·4 − 2 bytes per score) and the incoming gradient
      with four [B, T, H] gradients around the core, by then without the MLP part's kept
      tensors, which its backward freed. Fused attention's is smaller than the MLP's.
    - ``recompute_extra``: recomputing a whole explicit-attention block under autocast holds one
      more float32 score-sized tensor (heads·T², ``size``) than running it once does.
    - ``needed``: of what selective checkpointing keeps, what backward reads (the block's input
      and Linear-up's output); the recomputation remakes the rest of ``full``.

    Three are what the *forward* holds while a checkpointed block runs (nothing saved):

    - ``cached``: the 16-bit copies of the block's Linear weights and biases that autocast makes
      (0 without autocast). Autocast caches each copy of a leaf parameter until the outermost
      autocast region ends, which is after the whole forward: a checkpointed stack holds every
      block's copies at the end of its forward, though backward keeps none of them.
    - ``forward``: the most one block's forward holds above its input when it saves nothing,
      with its own copies cast so far: q, k, v and the qkv output stay alive to the block's end
      (named locals); at the explicit core the scaled scores, the probabilities, dropout's mask
      and the dropped probabilities (heads·T² each), at the fused core its output and
      log-sum-exp; in the MLP part, Linear-up's output and GELU's together (4 H each).
    - ``forward_selective``: the same beyond what selective checkpointing keeps (the matmul
      outputs, held in its cache anyway, are not counted twice).
    """
    m = compute_size or size
    mask = m if mask_size is None else mask_size
    s = softmax_size or m
    n, per_token = batch * tokens * hidden, batch * tokens
    casts = compute_size is not None and compute_size != size  # autocast: weight copies kept
    norm = n * size + 2 * per_token * 4

    def linear(inputs: int, weight: int) -> int:
        return inputs * m + (weight * m if casts else 0)

    def copies(*shapes: tuple[int, int]) -> int:  # autocast's cached weight and bias copies
        return sum(i * o + o for i, o in shapes) * m if casts else 0

    up, down = (hidden, 4 * hidden), (4 * hidden, hidden)
    mlp = norm + linear(n, 4 * hidden * hidden) + 4 * n * m + linear(4 * n, 4 * hidden * hidden)
    mlp_matmuls = (4 + 1) * n * m
    mlp_backward = n * size + 4 * n * m + 4 * hidden * hidden * m + (n * m if casts else 0)
    transient = {"needed": n * size + 4 * n * m}
    if block == "mlp":
        return {
            "full": mlp,
            "matmuls": n * size + mlp_matmuls,
            "attention": mlp,
            "backward": mlp_backward,
            "recompute_extra": 0,
            **transient,
            "cached": copies(up, down),
            "forward": 8 * n * m + copies(up),
            "forward_selective": 4 * n * m + copies(up),
        }
    scores = batch * heads * tokens * tokens
    qkv, proj = (hidden, 3 * hidden), (hidden, hidden)
    if attention == "explicit":
        core, core_matmuls = scores * (s + mask + m), (scores + n) * m  # q·kᵀ and probs·v
        if cuda_kernels:  # at the softmax's backward: its incoming gradient, its result and
            # its scratch, with the dropped probabilities and the mask freed; q's and k's
            # gradients come later, so two [B, T, H] gradients (v's, the core output's)
            core_backward = scores * (3 * s - m - mask) + 2 * n * m - mlp
        else:
            core_backward = scores * (2 * s - m) + 5 * n * m - mlp
        extra = scores * size if casts and not cuda_kernels else 0
        # the scaled scores, the probabilities, the mask, the dropped probabilities (and, for a
        # float32 softmax, the dropped probabilities' 16-bit copy for the matmul with v)
        at_core = scores * (m + 2 * s + mask + (m if s != m else 0))
    else:
        core, core_matmuls = n * m + batch * heads * tokens * 4, 0
        core_backward, extra = 0, 0
        at_core = core
    outside = norm + linear(n, 3 * hidden * hidden) + 3 * n * m + linear(n, hidden * hidden) + mlp
    # beyond q, k, v (and qkv's output, which selective keeps): at the core, or in the MLP part
    # with the core's reshaped output, the residual sum and Linear-up's and GELU's outputs
    core_time = at_core + copies(qkv)
    mlp_time = n * m + n * size + copies(qkv, proj, up)
    return {
        "full": outside + core,
        "matmuls": n * size + (3 + 1) * n * m + core_matmuls + mlp_matmuls,
        "attention": outside,
        "backward": max(mlp_backward, core_backward),
        "recompute_extra": extra,
        **transient,
        "cached": copies(qkv, proj, up, down),
        "forward": 6 * n * m + max(core_time, mlp_time + 8 * n * m),
        "forward_selective": 3 * n * m + max(core_time, mlp_time + 4 * n * m),
    }


def block_parameters(block: str, hidden: int) -> tuple[int, int]:
    """(parameters, parameter tensors) of one block: LayerNorm 2H; Linear(i, o) i·o + o.

    MLP block: LayerNorm, Linear(H, 4H), Linear(4H, H). Transformer block: LayerNorm,
    Linear(H, 3H), Linear(H, H), then the MLP block.
    """
    h = hidden
    mlp = 2 * h + (4 * h * h + 4 * h) + (4 * h * h + h)
    if block == "mlp":
        return mlp, 6
    return 2 * h + (3 * h * h + 3 * h) + (h * h + h) + mlp, 12


# What an optimizer keeps: (values per parameter, in the parameter's dtype; bytes per parameter
# tensor). Adam and AdamW keep two moments (exp_avg, exp_avg_sq) and one float32 step count per
# tensor (torch.optim without capturable/fused); SGD with momentum one buffer; plain SGD nothing.
OPTIMIZERS = {"adam": (2, 4), "sgd-momentum": (1, 0), "sgd": (0, 0)}
# What a step allocates beyond that state, and frees before it ends: (parameter-sized tensors
# over the whole list with torch.optim's foreach implementation; tensors of one parameter's size
# at once, tensor by tensor, without it). Adam divides by the square root of exp_avg_sq: foreach
# makes that root for every parameter at once (``_foreach_sqrt``), the single-tensor path makes
# the root and then its quotient by the bias correction. SGD updates in place.
STEP_TEMPORARIES = {"adam": (1, 2), "sgd-momentum": (0, 0), "sgd": (0, 0)}


def state_bytes(
    parameters: int, tensors: int, size: int, ranks: int = 1, optimizer: str = "adam"
) -> dict[str, float]:
    """Parameter, gradient and optimizer-state bytes one rank holds, sharded evenly over
    ``ranks`` (FSDP); the step counts are not sharded. ``size``: the parameters' item size."""
    values, per_tensor = OPTIMIZERS[optimizer]
    params = parameters * size / ranks
    state = values * params + per_tensor * tensors
    return {
        "parameter_bytes": params,
        "gradient_bytes": params,
        "optimizer_bytes": state,
        "total": 2 * params + state,
    }


# How a training loop reaches FSDP's blocks. "root": it calls the sharded model, whose hooks make
# every block a non-root FSDP module that frees its gathered parameters after its forward.
# "blocks": it calls the blocks one by one (as the course's harness, ``checkpointing.train_step``,
# does); FSDP then makes each block a root of its own, and a root keeps its parameters gathered
# from its forward to its backward, since backward would gather them again at once.
FSDP_LAYOUTS = ("root", "blocks")


def fsdp_bytes(
    block: str, hidden: int, layers: int, size: int, ranks: int, layout: str = "root"
) -> dict[str, float]:
    """What one FSDP rank holds beyond its shards at the step's peak, by the categories of
    ``FSDPMemTracker`` (all 0 without FSDP). Each buffer is whole blocks at full size, because a
    gathered block is the whole block whichever rank holds it; only the shards divide by ranks.

    - ``unsharded_parameter_bytes``: the gathered parameters of the block being computed
      (``root``), or of every block at the forward's end (``blocks``);
    - ``all_gather_bytes``: the next block's all-gather output, gathered ahead of its use (FSDP2
      prefetches one block);
    - ``reduce_scatter_bytes``: one block's full-size gradients on their way to being reduced and
      scattered, held while the next block's backward runs (``root``). A peak at the forward's
      end has none yet, so there it is an upper bound; the ``blocks`` layout peaks at the
      forward's end, where every block's parameters are held, so it counts none.
    """
    if layout not in FSDP_LAYOUTS:
        raise ValueError(f"FSDP layout {layout!r}: one of {', '.join(FSDP_LAYOUTS)}")
    one = block_parameters(block, hidden)[0] * size if ranks > 1 else 0.0
    held = {
        "unsharded_parameter_bytes": one * (layers if layout == "blocks" else 1),
        "all_gather_bytes": one,
        "reduce_scatter_bytes": one if layout == "root" else 0.0,
    }
    return {**held, "total": sum(held.values())}


# The CPU generator's state, which every checkpoint stashes and restores for its recomputation
# (``preserve_rng_state=True``): ``torch.get_rng_state()``, a uint8 tensor of this many bytes.
RNG_STATE_BYTES = 5056


# --8<-- [start:predict]
def predict(
    strategy: str,
    layers: int,
    a: float,
    c: float,
    kept: float | None = None,
    *,
    optimizer: float = 0.0,
    **terms: float | int | None,
) -> tuple[float, float]:
    """(bytes saved for backward, peak bytes) of ``layers`` blocks of size a and c·a.

    The peak is the higher of the forward's and backward's (:func:`passes_peak`, whose terms
    ``terms`` are) and the optimizer step's, ``optimizer`` a above the resident state
    (:func:`optimizer_units`; 0 leaves it out).
    """
    saved, peak = passes_peak(strategy, layers, a, c, kept, **terms)
    return saved, max(peak, optimizer * a)


def passes_peak(
    strategy: str,
    layers: int,
    a: float,
    c: float,
    kept: float | None = None,
    *,
    layers_per_group: int | None = None,
    segments: int | None = None,
    backward: float = 0.0,
    recompute_extra: float = 0.0,
    needed: float = 0.0,
    stash: float = 0.0,
    cached: float = 0.0,
    forward: float = 0.0,
    forward_selective: float = 0.0,
) -> tuple[float, float]:
    """(bytes saved for backward, peak bytes of the forward and backward passes) of ``layers``
    blocks of size a and c·a.

    The peak adds what backward holds beyond the kept tensors, all in units of a (0 leaves a
    term out): ``backward``, one block's backward working set; ``recompute_extra``, what
    recomputing a whole block adds (autocast); ``needed``, the part of selective's ``kept``
    that its recomputation does not remake; ``stash``, each checkpoint's random-number state.
    The peak is the higher of backward's and the forward's end, where the checkpointed blocks'
    ``cached`` autocast copies are all still held, with the last block's ``forward`` working
    set (``forward_selective`` under selective checkpointing).
    """
    L, w = layers, backward * a
    if strategy == "groups":
        n = layers_per_group
        saved = math.ceil(L / n) * a  # one input per group
        # + one group's insides while it is recomputed (its first input is the saved one)
        held = saved * (1 + stash)
        # the forward's end: the last block's input, if not its group's saved one, and its run
        ahead = held + ((n > 1) + (L - 1) * cached + forward) * a
        return saved, max(held + (n * c - 1 + recompute_extra) * a + w, ahead)
    if strategy == "segments":
        size = L // segments  # checkpoint_sequential's chunk length
        last = L - (segments - 1) * size  # the uncheckpointed rest
        saved = (segments - 1) * a + last * c * a
        held = (segments - 1) * (1 + stash) * a
        recomputed = (size * c - 1 + recompute_extra) * a  # a checkpointed chunk, remade
        ahead = held + ((L - last) * cached + last * c + 1) * a  # + the stack's output
        return saved, max(held + max(last * c * a, recomputed) + w, ahead)
    if strategy == "selective":
        saved = L * kept * a  # the kept units of every layer (for the MLP block: input + matmuls)
        remade = (c - needed + recompute_extra + L * stash) * a  # + one block's recomputation
        ahead = saved + ((L - 1) * cached + forward_selective) * a
        return saved, max(saved + remade + w, ahead)
    if strategy == "selective-attention":  # kept: all but the attention core's insides
        saved = L * kept * a
        return saved, saved + (c - kept + L * stash) * a + w  # + one core recomputed
    if strategy == "offload":
        return L * c * a, c * a + w  # everything saved lives on the host; one block on device
    return L * c * a, L * c * a + w  # none


def optimizer_units(
    optimizer: str, parameter_bytes: float, hidden: int, size: int, a: float, foreach: bool
) -> float:
    """The optimizer step's peak above the resident state, in units of a: the batch's input
    (alive through the step) and the step's temporaries (:data:`STEP_TEMPORARIES`).
    ``parameter_bytes``: the parameters this device updates (its shards under FSDP);
    ``foreach``: torch.optim's implementation over the whole parameter list, the default on
    CUDA; without it (the default on a CPU) the step goes tensor by tensor, and the largest
    tensor, a Linear weight of 4H² (:func:`block_parameters`), sets the size."""
    whole, each = STEP_TEMPORARIES[optimizer]
    held = whole * parameter_bytes if foreach else each * 4 * hidden * hidden * size
    return 1 + held / a


def transient_units(per_block: dict[str, int], a: float) -> dict[str, float]:
    """:func:`predict`'s transient terms for one block (``block_bytes``), in units of a."""
    keys = ("backward", "recompute_extra", "needed", "cached", "forward", "forward_selective")
    return {**{k: per_block[k] / a for k in keys}, "stash": RNG_STATE_BYTES / a}


def attention_core_share(tokens: int, hidden: int) -> float:
    """The attention core's share of a transformer block's matmul FLOPs: q·kᵀ and probs·v are
    2·2·B·T²·H, the block's four weight matmuls 2·B·T·12·H² (qkv 3H², proj H², MLP 8H²)."""
    return tokens / (tokens + 6 * hidden)


def recomputed_fraction(
    strategy: str, layers: int, segments: int | None = None, core_share: float = 1.0
) -> float | None:
    """Share of one forward pass that backward re-runs (None: offload moves data instead).

    ``core_share``: for selective recomputation of the attention core, that core's share of
    the block's FLOPs (:func:`attention_core_share`).
    """
    if strategy == "selective-attention":
        return core_share
    if strategy in ("groups", "selective"):
        return 1.0  # selective re-runs the non-matmul ops: counted as a whole forward
    if strategy == "segments":
        size = layers // segments
        return (segments - 1) * size / layers
    return None if strategy == "offload" else 0.0


# --8<-- [end:predict]

# The planner's rows, in the order it prefers them when their overheads tie: selective-attention
# (transformer blocks) re-runs the attention core; selective keeps every matmul output and re-runs
# the other operations, which the estimate counts as a whole forward (1.0; the course measured
# more, and its measured overheads rank before the estimates where they exist); the best group
# size never has a higher peak than every layer for the same recomputation. Offload moves data
# instead of recomputing: it has no estimate, so it is shown but never recommended.
SETTINGS = (
    "none", "selective-attention", "selective", "segments", "groups", "every-layer", "offload"
)  # fmt: skip

# The precisions the planner offers: (parameter dtype, autocast dtype). Under autocast the
# parameters, gradients, optimizer state and residual stream stay float32 while matmuls, GELU and
# softmax run in 16 bits (Lesson 2.7 measures which operations do).
PRECISIONS = {
    "float32": ("float32", None),
    "bfloat16": ("bfloat16", None),
    "float16": ("float16", None),
    "autocast-bfloat16": ("float32", "bfloat16"),
}

# The share of the device's memory a plan leaves free: what the model leaves out (backward's own
# buffers, a few a in the course's measurements; the allocator's fragmentation) needs room.
HEADROOM = 0.10

# The most FSDP ranks the planner suggests: beyond that, sharding is not the answer.
MAX_RANKS = 4096


def _option(
    setting: str,
    strategy: str,
    layers: int,
    a: float,
    c: float,
    kept: float | None,
    limit: float,
    core_share: float = 1.0,
    transient: dict[str, float] | None = None,
    **param: int,
) -> dict:
    """One row of the planner: activation peak, recomputed fraction, step-time overhead, fit.

    ``transient``: :func:`predict`'s transient terms in units of a (:func:`transient_units`),
    and its ``optimizer``. ``passes``: the peak of the forward and backward passes alone."""
    terms = dict(transient or {})
    optimizer = terms.pop("optimizer", 0.0)
    passes = passes_peak(strategy, layers, a, c, kept, **param, **terms)[1]
    peak = max(passes, optimizer * a)
    fraction = recomputed_fraction(strategy, layers, param.get("segments"), core_share)
    return {
        "setting": setting,
        "strategy": strategy,
        **param,
        "peak": peak,
        "passes": passes,
        "fraction": fraction,
        "overhead": None if fraction is None else fraction * FORWARD_SHARE,
        "fits": peak <= limit,
    }


def _best(candidates: list[dict]) -> dict:
    """Among those that fit, the least recomputation, then the lowest peak; else the lowest peak.

    Ties go to the earliest candidate (the smallest group size or segment count).
    """
    fitting = [o for o in candidates if o["fits"]]
    if fitting:
        return min(fitting, key=lambda o: (o["fraction"], o["peak"]))
    return min(candidates, key=lambda o: o["peak"])


def measured_overheads(
    entries: list[dict], block: str, attention: str, autocast: bool
) -> dict[str, list[dict]]:
    """The course's measured step-time overheads per planner setting, for a block like the
    planner's: of ``entries`` (each ``setting``, ``block``, ``attention``, ``autocast``,
    ``fraction`` recomputed, ``overhead`` and where it was measured), those of the same block
    (and attention), of the same precision kind where any are, in their order (the caller
    lists GPU files first)."""
    same = [
        e
        for e in entries
        if e["block"] == block and (block == "mlp" or e["attention"] == attention)
    ]
    found: dict[str, list[dict]] = {}
    for entry in [e for e in same if e["autocast"] == autocast] or same:
        found.setdefault(entry["setting"], []).append(entry)
    return found


def _closest(option: dict, entries: list[dict]) -> dict | None:
    """Of a setting's measured entries, the one whose recomputed share is nearest the option's
    (a group size or segment count recomputes its own share); the first on a tie."""
    if option["overhead"] is None or not entries:
        return None
    return min(entries, key=lambda e: abs(e["fraction"] - option["fraction"]))


def _speed(option: dict) -> float:
    """What the recommendation ranks by: the course's measured overhead for the setting where it
    has one (its estimate may be contradicted by it), else the one-forward estimate."""
    measured = option["measured"]
    return option["overhead"] if measured is None else measured["overhead"]


def plan(
    layers: int,
    a: float,
    c: float,
    kept: float,
    limit: float,
    *,
    core: float | None = None,
    core_share: float = 1.0,
    transient: dict[str, float] | None = None,
    measured: dict[str, dict] | None = None,
) -> dict:
    """One option per setting, and the fastest one whose activation peak is at most ``limit``
    bytes (or None).

    ``kept``: what selective checkpointing (every matmul output saved) keeps per layer, ``core``:
    what selective recomputation of the attention core keeps (None: the block has no attention),
    both in units of a; ``core_share``: that core's share of the block's FLOPs; ``transient``:
    the block's transient terms (:func:`transient_units`; None leaves them out); ``measured``:
    the course's measured overhead per setting (:func:`measured_overheads`), which each option
    carries and the recommendation ranks by before the estimate. Options are in
    :data:`SETTINGS` order, less segments when there is one layer (``checkpoint_sequential``
    needs two segments to checkpoint any).
    """
    args, t = (layers, a, c, kept, limit), {"transient": transient}
    groups = [
        _option("groups", "groups", *args, **t, layers_per_group=g) for g in range(1, layers + 1)
    ]
    segments = [
        _option("segments", "segments", *args, **t, segments=s) for s in range(2, layers + 1)
    ]
    best_group = _best(groups)  # one layer per group is the every-layer row: shown once
    attention = (layers, a, c, core, limit, core_share)
    options = [
        _option("none", "none", *args, **t),
        *([_option("selective-attention", "selective-attention", *attention, **t)] if core else []),
        _option("selective", "selective", *args, **t),
        *([_best(segments)] if segments else []),
        *([best_group] if best_group["layers_per_group"] != 1 else []),
        _option("every-layer", "groups", *args, **t, layers_per_group=1),
        _option("offload", "offload", *args, **t),
    ]
    for o in options:
        o["measured"] = _closest(o, (measured or {}).get(o["setting"], []))
    fitting = [o for o in options if o["fits"] and o["overhead"] is not None]
    best = min(fitting, key=lambda o: (_speed(o), SETTINGS.index(o["setting"])), default=None)
    return {"options": options, "recommended": best and best["setting"]}


# --8<-- [start:plan_step]
def plan_step(
    *,
    block: str,
    attention: str,
    layers: int,
    hidden: int,
    heads: int,
    tokens: int,
    batch: int,
    precision: str,
    optimizer: str,
    ranks: int,
    device_bytes: float,
    headroom: float = HEADROOM,
    measured_runs: list[dict] | None = None,
) -> dict:
    """The planner's answer for a whole training step on one CUDA device.

    Every setting holds the same resident state (parameters, gradients, optimizer state, FSDP's
    buffers as :func:`fsdp_bytes` counts them for a loop that calls the sharded model); they
    differ in activations. A setting fits when state plus its activation
    peak leaves ``headroom`` of ``device_bytes`` free; the peak is the higher of the passes' and
    the optimizer step's, with torch.optim's CUDA default (foreach). ``batch`` is per device.
    Dropout's mask is counted as CUDA keeps it (1 byte), and autocast's softmax in float32.
    ``ranks_needed``: when nothing recomputing fits, the fewest FSDP ranks with which the
    lowest such peak would (None: sharding alone cannot help).
    ``measured_runs``: the course's measured overheads (:func:`measured_overheads`' entries).
    """
    dtype, autocast = PRECISIONS[precision]
    size = ITEMSIZE[dtype]
    a = boundary_bytes(batch, tokens, hidden, dtype)
    per_block = block_bytes(
        block,
        batch,
        tokens,
        hidden,
        heads=heads,
        attention=attention,
        size=size,
        compute_size=ITEMSIZE[autocast] if autocast else None,
        mask_size=1,
        softmax_size=4 if autocast else None,
        cuda_kernels=True,
    )
    params, tensors = block_parameters(block, hidden)

    def resident(r: int) -> dict[str, float]:
        state = state_bytes(layers * params, layers * tensors, size, r, optimizer)
        fsdp = fsdp_bytes(block, hidden, layers, size, r)
        total = state.pop("total") + fsdp.pop("total")
        return {**state, **fsdp, "total": total}

    state, usable = resident(ranks), device_bytes * (1 - headroom)
    transformer = block == "transformer"
    result = plan(
        layers,
        a,
        per_block["full"] / a,
        per_block["matmuls"] / a,
        usable - state["total"],
        core=per_block["attention"] / a if transformer else None,
        core_share=attention_core_share(tokens, hidden) if transformer else 1.0,
        transient={
            **transient_units(per_block, a),
            "optimizer": optimizer_units(
                optimizer, state["parameter_bytes"], hidden, size, a, foreach=True
            ),
        },
        measured=measured_overheads(measured_runs or [], block, attention, autocast is not None),
    )
    for o in result["options"]:
        o["total"] = state["total"] + o["peak"]
    ranks_needed = None
    if result["recommended"] is None:
        # the passes' peak is the same on any number of ranks; the optimizer step's shrinks
        # with the shards it updates
        lowest = min(o["passes"] for o in result["options"] if o["overhead"] is not None)

        def fits(r: int) -> bool:
            shard = resident(r)
            step_peak = optimizer_units(optimizer, shard["parameter_bytes"], hidden, size, a, True)
            return shard["total"] + max(lowest, step_peak * a) <= usable

        ranks_needed = next((r for r in range(ranks + 1, MAX_RANKS + 1) if fits(r)), None)
    return {**result, "a": a, "block_bytes": per_block, "state": state, "usable": usable,
            "ranks_needed": ranks_needed}  # fmt: skip


# --8<-- [end:plan_step]


if __name__ == "__main__":
    # A 7B-class decoder's blocks at 4,096 tokens, bfloat16 with Adam, on an 80 GB device.
    shape = {"layers": 32, "hidden": 4096, "heads": 32, "tokens": 4096, "batch": 1}
    result = plan_step(
        block="transformer",
        attention="explicit",
        precision="bfloat16",
        optimizer="adam",
        ranks=8,
        device_bytes=80e9,
        **shape,
    )
    state = result["state"]
    print(f"{shape}, bfloat16, Adam, 8 FSDP ranks, 80 GB; a = {result['a'] / 1e6:.1f} MB")
    print(
        "resident per rank: "
        + ", ".join(f"{k.removesuffix('_bytes')} {v / 1e9:.2f} GB" for k, v in state.items())
    )
    print(f"{'setting':<20} {'activations':>11} {'step':>9} {'overhead':>9}  fits")
    for o in result["options"]:
        overhead = "-" if o["overhead"] is None else f"{o['overhead']:+.0%}"
        print(
            f"{o['setting']:<20} {o['peak'] / 1e9:>8.2f} GB {o['total'] / 1e9:>6.2f} GB"
            f" {overhead:>9}  {'yes' if o['fits'] else 'no'}"
        )
    print(f"recommended: {result['recommended']}; ranks needed: {result['ranks_needed']}")
