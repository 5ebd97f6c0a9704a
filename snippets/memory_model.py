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
    if strategy == "offload":
        return L * c * a, c * a  # everything saved lives on the host; one block on device
    return L * c * a, L * c * a  # none


def recomputed_fraction(strategy: str, layers: int, segments: int | None = None) -> float | None:
    """Share of one forward pass that backward re-runs (None: offload moves data instead)."""
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


def plan(layers: int, a: float, c: float, kept: float | None, budget: float) -> dict:
    """The planner's answer: one option per setting, and the fastest one that fits (or None).

    ``budget`` is in bytes, like ``a``. Options are in :data:`SETTINGS` order; selective is left
    out when ``kept`` is None (a custom block: which ops it would save is unknown), segments
    when there is one layer (``checkpoint_sequential`` needs two segments to checkpoint any).
    """
    args = (layers, a, c, kept, budget)
    groups = [_option("groups", "groups", *args, layers_per_group=g) for g in range(1, layers + 1)]
    segments = [_option("segments", "segments", *args, segments=s) for s in range(2, layers + 1)]
    options = [
        _option("none", "none", *args),
        *([_option("selective", "selective", *args)] if kept is not None else []),
        *([_best(segments)] if segments else []),
        _best(groups),
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
