"""What Exercise 2.6 (Lesson 2) says about the lab's three tasks holds for its solution code.

The solution's prose names where memory is smallest and what the GELU-saving policy stores; these
tests run ``snippets/lab_solutions.py`` and check each of those sentences. Task 2's timing claims
need a realistic size (about a minute of CPU time) and are not checked here; the test only runs
its code at the lab's tiny size.
"""

from __future__ import annotations

import math

import lab_solutions
import memory_model
import pytest
import torch._dynamo  # noqa: F401  (torch imports it lazily: here, in the gc.freeze())
from checkpointing import ACTIVATIONS_PER_LAYER, Config, save_matmuls

SEGMENTS = (2, 3, 4, 5, 6, 8, 12, 16, 24)
LAYERS = 24


@pytest.fixture(scope="module")
def segment_rows() -> dict[int, tuple[float, float]]:
    return {s: (stored, peak) for s, stored, peak in lab_solutions.segment_memory(LAYERS, SEGMENTS)}


def test_task1_smallest_at_twelve_segments(segment_rows):
    """ "Both the stored bytes and the peak are smallest at 12 segments of two layers." """
    stored = {s: v[0] for s, v in segment_rows.items()}
    peak = {s: v[1] for s, v in segment_rows.items()}
    assert min(stored, key=stored.get) == min(peak, key=peak.get) == 12
    assert LAYERS // 12 == 2


def test_task1_not_at_either_square_root(segment_rows):
    """sqrt(L) ~ 4.9: 5 segments keep more than 4; sqrt(c L) ~ 15.5: 16 keep more than 12."""
    assert round(math.sqrt(LAYERS), 1) == 4.9
    assert round(math.sqrt(ACTIVATIONS_PER_LAYER * LAYERS), 1) == 15.5
    stored = {s: v[0] for s, v in segment_rows.items()}
    assert stored[5] > stored[4]
    assert stored[16] > stored[12]
    assert LAYERS - 4 * (LAYERS // 5) == 8 and LAYERS - 15 * (LAYERS // 16) == 9  # last chunks


def test_task1_peak_is_stored_plus_one_backward(segment_rows):
    """ "Here the predicted peak is what is stored plus one block's backward working set and the
    random-number state each checkpoint keeps" (within the few bytes of LayerNorm's statistics
    that the measurement adds to the prediction)."""
    config = Config(LAYERS, **lab_solutions.LAB, segments=SEGMENTS, warmup=0, repeats=0)
    units = memory_model.transient_units(config.block_bytes("cpu"), config.boundary_bytes)
    assert units["backward"] > 1 and units["stash"] > 0  # the claim says something
    for s, (stored, peak) in segment_rows.items():
        expected = stored + units["backward"] + (s - 1) * units["stash"]
        assert peak == pytest.approx(expected, rel=0.02)


def test_task2_code_runs_and_every_group_shares_one_bound():
    tiny = Config(4, 1, 8, 16, "float32", (1, 2, 4), (2,), warmup=0, repeats=1)
    rows = lab_solutions.group_overheads(tiny)
    assert [n for n, _, _ in rows] == [1, 2, 4]
    assert len({bound for _, _, bound in rows}) == 1


def test_task3_gelu_policy_keeps_as_much_as_no_checkpointing():
    """ "both give about 10, save_matmuls gives 6" """
    none = lab_solutions.stored_units_per_layer(None)
    gelu = lab_solutions.stored_units_per_layer(lab_solutions.save_matmuls_and_gelu)
    matmuls = lab_solutions.stored_units_per_layer(save_matmuls)
    assert none == pytest.approx(10, abs=0.1)
    assert gelu == pytest.approx(10, abs=0.1)
    assert matmuls == pytest.approx(6, abs=0.1)
