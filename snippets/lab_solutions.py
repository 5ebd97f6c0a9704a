"""Solutions to the three "Your turn" tasks of the lab notebook (docs/lab/checkpointing-lab.py).

Each task is a function the notebook's reader could have written with the harness; Lesson 2's
Exercise 2.6 shows them, hidden, and ``tests/test_lab_solutions.py`` checks what its answers say.

    python snippets/lab_solutions.py      # the answers at the lab's tiny sizes
"""

import torch
from checkpointing import (
    MATMULS,
    CheckpointPolicy,
    Config,
    SavedBytes,
    Strategy,
    build_model,
    run_benchmark,
    run_selective,
)

LAB = dict(batch=2, tokens=32, hidden=64, dtype="float32", layers_per_group=(1,))


# --8<-- [start:segments]
def segment_memory(layers: int, segments: tuple[int, ...]) -> list[tuple[int, float, float]]:
    """(segments, stored, predicted peak) per segment count, memory in units of a."""
    config = Config(layers, **LAB, segments=segments, warmup=0, repeats=0)
    chosen = [Strategy("segments", segments=s) for s in segments]
    rows = run_benchmark(config, "cpu", chosen)["rows"]
    a = config.boundary_bytes
    return [(r["segments"], r["saved_bytes"] / a, r["predicted_peak_bytes"] / a) for r in rows]


# --8<-- [end:segments]


# --8<-- [start:groups]
def group_overheads(config: Config) -> list[tuple[int, float, float]]:
    """(layers per group, measured overhead, its one-forward estimate) for every group size."""
    rows = run_benchmark(config, "cpu")["rows"]
    groups = [r for r in rows if r["strategy"] == "groups"]
    return [(r["layers_per_group"], r["overhead"], r["overhead_bound"]) for r in groups]


# --8<-- [end:groups]


# --8<-- [start:policy]
def save_matmuls_and_gelu(ctx, op, *args, **kwargs) -> CheckpointPolicy:
    """save_matmuls, plus the GELU's output."""
    if op in MATMULS or op == torch.ops.aten.gelu.default:
        return CheckpointPolicy.MUST_SAVE
    return CheckpointPolicy.PREFER_RECOMPUTE


def stored_units_per_layer(policy, layers: int = 8, hidden: int = 64) -> float:
    """What ``policy`` keeps for backward, per layer, in units of a (None: no checkpointing)."""
    torch.manual_seed(0)
    model = build_model(layers, hidden)
    x = torch.randn(LAB["batch"], LAB["tokens"], hidden, requires_grad=True)
    with SavedBytes(list(model.parameters())) as meter:
        if policy is None:
            model(x)
        else:
            run_selective(model, x, meter.watch(policy))
    return meter.total / (layers * x.numel() * x.element_size())


# --8<-- [end:policy]

if __name__ == "__main__":
    from checkpointing import save_matmuls

    print("Task 1: 24 layers, memory in units of a")
    for segments, stored, peak in segment_memory(24, (2, 3, 4, 5, 6, 8, 12, 16, 24)):
        print(f"  {segments:2d} segments: stored {stored:6.1f}, predicted peak {peak:6.1f}")
    print("Task 2: per-group overhead against its estimate (tiny sizes: timings are noisy)")
    tiny = Config(8, **{**LAB, "layers_per_group": (1, 2, 4)}, segments=(2,), warmup=1, repeats=3)
    for n, overhead, estimate in group_overheads(tiny):
        print(f"  {n} layers per group: overhead {overhead:+.0%}, estimate {estimate:+.0%}")
    print("Task 3: stored per layer, units of a")
    for name, policy in (
        ("no checkpointing", None),
        ("save_matmuls", save_matmuls),
        ("save_matmuls_and_gelu", save_matmuls_and_gelu),
    ):
        print(f"  {name}: {stored_units_per_layer(policy):.2f}")
