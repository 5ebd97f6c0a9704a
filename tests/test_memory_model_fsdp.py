"""The memory model's FSDP term against the two-rank measurement and the traced rank rows.

``memory_model.fsdp_bytes`` counts what one rank holds beyond its shards, in whole blocks; the
CPU results file measured two gloo ranks (``snippets/fsdp_step.py``), and the traced file's
``fsdp`` part traced rank 0 of fake process groups by ``FSDPMemTracker``'s categories
(``snippets/fsdp_trace.py``), in both layouts. Reads the committed files; runs nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mkdocs_course import benchmarks  # noqa: F401

from snippets import memory_model

ROOT = Path(__file__).resolve().parents[1]
CPU = ROOT / "docs" / "benchmarks" / "checkpointing-cpu.json"
TRACED = ROOT / "docs" / "benchmarks" / "checkpointing-traced.json"


def test_the_harness_layout_counts_what_the_two_measured_ranks_hold_beyond_the_unsharded_run():
    fsdp = json.loads(CPU.read_text(encoding="utf-8"))["fsdp"]
    extra = max(r["peak_bytes"] for r in fsdp["ranks"]) - fsdp["reference"]["peak_bytes"]
    size = (
        fsdp["block_parameter_bytes"]
        // memory_model.block_parameters("transformer", fsdp["hidden"])[0]
    )
    counted = memory_model.fsdp_bytes(
        "transformer", fsdp["hidden"], fsdp["layers"], size, fsdp["world"], layout="blocks"
    )
    # every block's gathered parameters and one all-gather buffer, to within 1%
    assert counted["total"] == pytest.approx(extra, rel=0.01)


def traced_rows() -> list[dict]:
    rows = json.loads(TRACED.read_text(encoding="utf-8")).get("fsdp")
    assert rows, f"{TRACED.name} has no fsdp part: run tests/perf/trace_checkpointing.py"
    return rows


@pytest.mark.parametrize("layout", memory_model.FSDP_LAYOUTS)
def test_the_model_counts_each_traced_ranks_buffers_and_shards(layout: str):
    # the view's count, which the page shows (imported after the engine, which loads the views)
    from snippets.benchmark_views.traced import fsdp_model

    rows = [r for r in traced_rows() if r["layout"] == layout and "error" not in r]
    assert {r["world"] for r in rows} >= {2, 8}, f"no traced {layout} rows on 2 and 8 ranks"
    for row in rows:
        model, where = fsdp_model(row), f"{row['name']}, {row['world']} ranks, {layout}"
        for key in ("unsharded_parameter_bytes", "all_gather_bytes"):
            assert row[key] == model[key], (where, key)
        # the reduce-scatter buffer is there only when the peak falls in backward
        assert row["reduce_scatter_bytes"] in (0, model["reduce_scatter_bytes"]), where
        assert row["sharded_parameter_bytes"] == model["parameter_bytes"], where
        assert row["sharded_gradient_bytes"] == model["gradient_bytes"], where
        assert row["optimizer_bytes"] == model["optimizer_bytes"], where


def test_a_traced_fsdp_row_that_failed_names_its_error_and_holds_no_figures():
    for row in traced_rows():
        if "error" in row:
            assert row["error"] and "total_bytes" not in row


def test_calling_the_blocks_one_by_one_holds_the_whole_model_gathered():
    layers, hidden = 32, 4096
    one = memory_model.block_parameters("transformer", hidden)[0] * 4
    rooted = memory_model.fsdp_bytes("transformer", hidden, layers, 4, 8)
    blocks = memory_model.fsdp_bytes("transformer", hidden, layers, 4, 8, layout="blocks")
    assert rooted["total"] == 3 * one
    assert blocks["unsharded_parameter_bytes"] == layers * one
    assert memory_model.fsdp_bytes("transformer", hidden, layers, 4, 1)["total"] == 0
    with pytest.raises(ValueError, match="FSDP layout 'tree'"):
        memory_model.fsdp_bytes("transformer", hidden, layers, 4, 8, layout="tree")
