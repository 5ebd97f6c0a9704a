"""Exercise 2.5 (Lesson 2) and the CPU peak meter its test relies on.

The exercise hands out a model with a TODO and a test. These tests show that the handed-out test
fails on the TODO version (nothing is checkpointed, so the peak does not fall) and passes on the
solution, and that the meter measures what it claims, since it reads an undocumented profiler
attribute.
"""

from __future__ import annotations

import checkpoint_exercise_test
import pytest
import torch
from checkpoint_exercise import MLPStack
from checkpoint_exercise_solution import CheckpointedMLPStack
from cpu_peak import peak_bytes

MIB = 1 << 20
SLACK = 64 * 1024  # the allocator may round a request up a little


def _floats(nbytes: int) -> torch.Tensor:
    return torch.ones(nbytes // 4)


def test_meter_sees_a_known_allocation():
    def hold() -> None:
        tensor = _floats(4 * MIB)
        del tensor

    assert 4 * MIB <= peak_bytes(hold) < 4 * MIB + SLACK


def test_meter_counts_frees():
    def one_after_the_other() -> None:
        first = _floats(4 * MIB)
        del first
        second = _floats(2 * MIB)
        del second

    def both_at_once() -> None:
        first, second = _floats(4 * MIB), _floats(2 * MIB)
        del first, second

    assert 4 * MIB <= peak_bytes(one_after_the_other) < 4 * MIB + SLACK
    assert 6 * MIB <= peak_bytes(both_at_once) < 6 * MIB + SLACK


def test_the_handed_out_test_fails_on_the_todo_version(monkeypatch):
    """The model as handed out, whatever the tracked file holds now: a learner who solves the
    exercise in place (or in the practice workspace, task #1235) breaks no test here."""

    class AsHandedOut(MLPStack):
        forward = checkpoint_exercise_test.plain_forward

    monkeypatch.setattr(checkpoint_exercise_test, "MLPStack", AsHandedOut)
    with pytest.raises(AssertionError, match="peak is 100% of no checkpointing"):
        checkpoint_exercise_test.test_checkpointed_stack()


def test_the_handed_out_test_passes_on_the_solution(monkeypatch):
    monkeypatch.setattr(checkpoint_exercise_test, "MLPStack", CheckpointedMLPStack)
    checkpoint_exercise_test.test_checkpointed_stack()


def test_the_solution_changes_only_forward():
    """The solution is the exercise's model with a new forward: same blocks, same weights."""
    assert issubclass(CheckpointedMLPStack, MLPStack)
    assert {name for name in vars(CheckpointedMLPStack) if not name.startswith("__")} == {"forward"}


def test_breaking_the_gradients_fails_the_check():
    """The gradient half of the test can fail too: a forward that drops a block's output."""

    class Broken(CheckpointedMLPStack):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return super().forward(x) * 0.5

    with pytest.raises(AssertionError, match="gradients differ"):
        checkpoint_exercise_test.check(Broken)
