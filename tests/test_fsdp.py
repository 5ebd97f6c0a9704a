"""FSDP on local ranks (snippets/fsdp_step.py): a rank that fails or hangs fails the run with
that rank's message, and leaves no process behind.

What one rank of two holds is measured with the other CPU results (the harness's ``fsdp``
section) and checked in tests/test_benchmarks.py.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import fsdp_step
import pytest


def _children() -> list[int]:
    """Rank processes (multiprocessing's spawned children) of this one that still run (Linux
    /proc). multiprocessing's own resource tracker, which lives as long as we do, is not one."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            command = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if int(fields[1]) == os.getpid() and fields[0] != "Z" and b"spawn_main" in command:
            found.append(int(stat.parent.name))
    return found


@pytest.mark.slow  # two ranks start torch
def test_a_failing_rank_fails_with_its_error_and_leaves_nothing_behind() -> None:
    config = dataclasses.replace(fsdp_step.CONFIG)
    object.__setattr__(config, "heads", 7)  # past the check: 7 heads do not divide 64
    with pytest.raises(fsdp_step.RankFailed, match=r"rank \d failed:[\s\S]*RuntimeError"):
        fsdp_step.run_ranks(config)
    assert not _children()


def test_a_hanging_rank_is_killed_and_named() -> None:
    with pytest.raises(fsdp_step.RankFailed, match=r"rank 0 did not finish within 0 s"):
        fsdp_step.run_ranks(timeout_s=0.1)  # no rank can start torch in a tenth of a second
    assert not _children()
