"""The test of Exercise 2.5: less peak memory, the same gradients.

``check`` takes the model class, so the same test can be pointed at the exercise as handed out
(it fails: nothing is checkpointed yet) and at the solution (it passes).
``tests/test_exercise_checkpointing.py`` runs it both ways.

    pytest snippets/checkpoint_exercise_test.py      # tests your MLPStack
    python snippets/checkpoint_exercise_test.py      # PASSED/FAILED for the exercise and solution
"""

import copy

import torch
from checkpoint_exercise import MLPStack
from cpu_peak import peak_bytes

BATCH, WIDTH = 1024, 128


# --8<-- [start:test]
MAX_PEAK_FRACTION = 0.5  # the checkpointed step must peak below half of the unchanged one


def plain_forward(model: MLPStack, x: torch.Tensor) -> torch.Tensor:
    """The unchanged model's forward, whatever the class under test does."""
    for block in model.blocks:
        x = x + block(x)
    return x


def check(model_class: type[MLPStack]) -> float:
    """Assert the exercise's two conditions; return the peak as a fraction of the reference's."""
    torch.manual_seed(0)
    model = model_class(width=WIDTH)
    reference = copy.deepcopy(model)  # the same weights, run without checkpointing
    x = torch.randn(BATCH, WIDTH)

    def step(run, net):
        return lambda: run(net, x).sum().backward()

    reference_peak = peak_bytes(step(plain_forward, reference))
    model_peak = peak_bytes(step(lambda net, t: net(t), model))
    for mine, theirs in zip(model.parameters(), reference.parameters(), strict=True):
        assert mine.grad is not None, "a parameter got no gradient"
        assert torch.allclose(mine.grad, theirs.grad), "gradients differ from no checkpointing"
    fraction = model_peak / reference_peak
    assert fraction < MAX_PEAK_FRACTION, (
        f"peak is {fraction:.0%} of no checkpointing's; it must be below {MAX_PEAK_FRACTION:.0%}"
    )
    return fraction


def test_checkpointed_stack():
    check(MLPStack)


# --8<-- [end:test]

if __name__ == "__main__":
    from checkpoint_exercise_solution import CheckpointedMLPStack

    for name, model_class in (("exercise", MLPStack), ("solution", CheckpointedMLPStack)):
        try:
            fraction = check(model_class)
        except AssertionError as error:
            print(f"{name}: FAILED ({error})")
        else:
            print(f"{name}: PASSED (peak {fraction:.0%} of no checkpointing)")
