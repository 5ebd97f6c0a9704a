"""The course's analytic model of activation memory under checkpointing, in plain arithmetic.

Two readers need it: the benchmark harness (``checkpointing.py``, which needs torch) writes the
tables' "predicted" columns with it, and the memory planner on Lesson 2
(``docs/assets/planner.js``, a port checked against this file by the browser tests) evaluates
configurations nobody measured: a transformer layer, a custom c. So it imports nothing but
``math``, and every size is a parameter:

- ``a``: bytes of one boundary tensor between two layers, [batch, tokens, hidden];
- ``c``: what one layer keeps for backward, in units of a (10 for the course's MLP block);
- ``kept``: what selective checkpointing keeps per layer, in units of a (``None``: not modelled).

``python snippets/memory_model.py`` prints the planner's table for one example configuration.
"""

from __future__ import annotations

import math

ITEMSIZE = {"float32": 4, "bfloat16": 2, "float16": 2}
# t_fwd / (t_fwd + t_bwd) with a backward pass about twice the forward: recomputing a whole
# forward pass then costs about a third of a step (the "+33%" bound of Lesson 2).
FORWARD_SHARE = 1 / 3


def boundary_bytes(batch: int, tokens: int, hidden: int, dtype: str) -> int:
    """a: one [batch, tokens, hidden] tensor."""
    return batch * tokens * hidden * ITEMSIZE[dtype]


def selective_units(matmul_outputs: float) -> float:
    """What selective checkpointing keeps per block: its input plus the matmul outputs."""
    return 1 + matmul_outputs


def transformer_units(tokens: int, hidden: int, heads: int, dtype: str) -> tuple[float, float]:
    """(c, kept) of one transformer layer, after Korthikanti et al. 2022 (arXiv:2205.05198).

    With 16-bit activations a layer keeps s·b·h·(34 + 5·heads·s/h) bytes (s tokens, b batch,
    h hidden): 16 s·b·h + 2 heads·s²·b values of 2 bytes each, plus 1-byte dropout masks of
    2 s·b·h + heads·s²·b. Other dtypes scale the values by their item size and keep the masks
    at 1 byte (float32: s·b·h·(66 + 9·heads·s/h)). Selective recomputation of the attention core
    drops every heads·s² term. Dividing by a = s·b·h·itemsize gives units of a; batch cancels.
    """
    size = ITEMSIZE[dtype]
    attention = heads * tokens / hidden  # heads·s²·b per s·b·h
    c = (size * (16 + 2 * attention) + 2 + attention) / size
    kept = (size * 16 + 2) / size
    return c, kept


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
) -> dict[str, int]:
    """Bytes one block of ``snippets/checkpointing.py`` keeps for backward, counted from its code.

    ``size``: the model's item size (its parameters and residual stream); ``compute_size``: the
    autocast dtype's (matmul inputs and outputs, GELU, softmax; default ``size``); ``mask_size``:
    dropout's mask per element (torch's CPU dropout keeps its scaled noise in the compute dtype,
    CUDA's fused kernel a 1-byte bool). Keys: ``full`` (no checkpointing), ``matmuls`` (what
    selective checkpointing with the keep-the-matmuls policy keeps: the block input plus every
    mm/addmm/bmm output), ``attention`` (what selective recomputation of the attention core
    keeps: all but the core's insides). The terms:

    - LayerNorm keeps its input (``size``) and a float32 mean and 1/std per token;
    - a Linear keeps its input in the compute dtype; under autocast also the 16-bit copy of its
      weight (a new tensor, not the parameter);
    - GELU keeps its input (4 H per token);
    - explicit attention keeps q, k, v, the softmax output and the dropped probabilities
      (heads·T² each) and dropout's mask; fused attention keeps q, k, v, its output and one
      float32 log-sum-exp per head and token.
    """
    m = compute_size or size
    mask = m if mask_size is None else mask_size
    n, per_token = batch * tokens * hidden, batch * tokens
    casts = compute_size is not None and compute_size != size  # autocast: weight copies kept
    norm = n * size + 2 * per_token * 4

    def linear(inputs: int, weight: int) -> int:
        return inputs * m + (weight * m if casts else 0)

    mlp = norm + linear(n, 4 * hidden * hidden) + 4 * n * m + linear(4 * n, 4 * hidden * hidden)
    mlp_matmuls = (4 + 1) * n * m
    if block == "mlp":
        return {"full": mlp, "matmuls": n * size + mlp_matmuls, "attention": mlp}
    scores = batch * heads * tokens * tokens
    if attention == "explicit":
        core, core_matmuls = scores * (m + mask + m), (scores + n) * m  # q·kᵀ and probs·v
    else:
        core, core_matmuls = n * m + batch * heads * tokens * 4, 0
    outside = norm + linear(n, 3 * hidden * hidden) + 3 * n * m + linear(n, hidden * hidden) + mlp
    return {
        "full": outside + core,
        "matmuls": n * size + (3 + 1) * n * m + core_matmuls + mlp_matmuls,
        "attention": outside,
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


# Adam keeps two moments per parameter (exp_avg, exp_avg_sq) in the parameter's dtype and one
# float32 step count per parameter tensor (torch.optim.Adam without capturable/fused).
ADAM_MOMENTS = 2
ADAM_STEP_BYTES = 4


def state_bytes(parameters: int, tensors: int, size: int, ranks: int = 1) -> dict[str, float]:
    """Parameter, gradient and Adam-state bytes one rank holds, sharded evenly over ``ranks``
    (FSDP); the step counts are not sharded. ``size``: the parameters' item size."""
    params = parameters * size / ranks
    optimizer = ADAM_MOMENTS * params + ADAM_STEP_BYTES * tensors
    return {
        "parameter_bytes": params,
        "gradient_bytes": params,
        "optimizer_bytes": optimizer,
        "total": 2 * params + optimizer,
    }


# --8<-- [start:predict]
def predict(
    strategy: str,
    layers: int,
    a: float,
    c: float,
    kept: float | None = None,
    *,
    layers_per_group: int | None = None,
    segments: int | None = None,
) -> tuple[float, float]:
    """(bytes saved for backward, peak bytes) of ``layers`` blocks of size a and c·a."""
    L = layers
    if strategy == "groups":
        n = layers_per_group
        saved = math.ceil(L / n) * a  # one input per group
        return saved, saved + n * c * a  # + one group's insides while it is recomputed
    if strategy == "segments":
        size = L // segments  # checkpoint_sequential's chunk length
        last = L - (segments - 1) * size  # the uncheckpointed rest
        saved = (segments - 1) * a + last * c * a
        return saved, (segments - 1) * a + max(last, size) * c * a
    if strategy == "selective":
        saved = L * kept * a  # the kept units of every layer (for the MLP block: input + matmuls)
        return saved, saved + c * a  # + one block's recomputed insides
    if strategy == "selective-attention":  # kept: all but the attention core's insides
        saved = L * kept * a
        return saved, saved + (c - kept) * a  # + one core recomputed
    if strategy == "offload":
        return L * c * a, c * a  # everything saved lives on the host; one block on device
    return L * c * a, L * c * a  # none


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
        return 1.0  # selective re-runs only the cheap ops: 1.0 is an upper bound
    if strategy == "segments":
        size = layers // segments
        return (segments - 1) * size / layers
    return None if strategy == "offload" else 0.0


# --8<-- [end:predict]

# The planner's rows, in the order it prefers them when their overheads tie: selective's 1.0 is
# an upper bound (it re-runs only cheap ops), and the best group size never has a higher peak
# than checkpointing every layer for the same recomputation.
SETTINGS = ("none", "selective", "segments", "groups", "every-layer")


def _option(
    setting: str,
    strategy: str,
    layers: int,
    a: float,
    c: float,
    kept: float | None,
    budget: float,
    **param: int,
) -> dict:
    """One row of the planner: predicted peak, recomputed fraction, step-time overhead, fit."""
    peak = predict(strategy, layers, a, c, kept, **param)[1]
    fraction = recomputed_fraction(strategy, layers, param.get("segments"))
    return {
        "setting": setting,
        "strategy": strategy,
        **param,
        "peak": peak,
        "fraction": fraction,
        "overhead": fraction * FORWARD_SHARE,
        "fits": peak <= budget,
    }


def _best(candidates: list[dict]) -> dict:
    """Among those that fit, the least recomputation, then the lowest peak; else the lowest peak.

    Ties go to the earliest candidate (the smallest group size or segment count).
    """
    fitting = [o for o in candidates if o["fits"]]
    if fitting:
        return min(fitting, key=lambda o: (o["fraction"], o["peak"]))
    return min(candidates, key=lambda o: o["peak"])


# The share of the budget a plan leaves free: what the model leaves out (backward's own
# buffers, a few a in the course's measurements; the allocator's fragmentation) needs room.
HEADROOM = 0.10


def plan(
    layers: int, a: float, c: float, kept: float | None, budget: float, headroom: float = HEADROOM
) -> dict:
    """The planner's answer: one option per setting, and the fastest one that fits (or None).

    An option fits when its predicted peak is at most ``budget * (1 - headroom)``.

    ``budget`` is in bytes, like ``a``. Options are in :data:`SETTINGS` order; selective is left
    out when ``kept`` is None (a custom block: which ops it would save is unknown), segments
    when there is one layer (``checkpoint_sequential`` needs two segments to checkpoint any).
    """
    args = (layers, a, c, kept, budget * (1 - headroom))
    groups = [_option("groups", "groups", *args, layers_per_group=g) for g in range(1, layers + 1)]
    segments = [_option("segments", "segments", *args, segments=s) for s in range(2, layers + 1)]
    best_group = _best(groups)  # one layer per group is the every-layer row: shown once
    options = [
        _option("none", "none", *args),
        *([_option("selective", "selective", *args)] if kept is not None else []),
        *([_best(segments)] if segments else []),
        *([best_group] if best_group["layers_per_group"] != 1 else []),
        _option("every-layer", "groups", *args, layers_per_group=1),
    ]
    fitting = [o for o in options if o["fits"]]
    best = min(fitting, key=lambda o: (o["overhead"], SETTINGS.index(o["setting"])), default=None)
    return {"options": options, "recommended": best and best["setting"]}


if __name__ == "__main__":
    # 24 of the course's MLP blocks (c = 10, selective keeps 6), batch 8 x 2048 tokens,
    # hidden 2048, bfloat16, with 16 GB left for activations.
    a = boundary_bytes(8, 2048, 2048, "bfloat16")
    result = plan(24, a, 10, selective_units(5), 16e9)
    print(f"a = {a / 1e6:.1f} MB; budget 16 GB for activations")
    print(f"{'setting':<12} {'parameter':<10} {'peak':>8} {'overhead':>9}  fits")
    for o in result["options"]:
        param = o.get("layers_per_group") or o.get("segments") or "-"
        print(
            f"{o['setting']:<12} {param!s:<10} {o['peak'] / 1e9:>5.2f} GB {o['overhead']:>+9.0%}"
            f"  {'yes' if o['fits'] else 'no'}"
        )
    print(f"recommended: {result['recommended']}")
