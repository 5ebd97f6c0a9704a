"""Full-size checkpointing benchmark on CUDA; writes ``docs/benchmarks/checkpointing-<gpu>.json``.

Marked ``gpu``: skipped without CUDA. Run it with ``bash .ci/gpu-benchmarks.sh`` on a machine
that has only torch and pytest, so this file imports nothing but torch, pytest, the standard
library and the snippets (no course engine, no MkDocs, no jsonschema). Unlike the CPU test, it
always rewrites its results file: running it is how GPU results are regenerated, and a GPU run is
deliberate.

The size (``CONFIGS["gpu"]``) keeps about 24 GB of activations without checkpointing, the scale
of the lesson's 23.4 GB example, and the whole run takes well under 3 minutes on an H200.
``BENCHMARK_RESULTS_DIR`` redirects the output (default ``docs/benchmarks``).

The GPU gets one try, so everything below except the size and the device also runs in the normal
test run: ``tests/test_benchmarks.py::test_gpu_path_dress_rehearsal`` calls
:func:`measure_and_write` and :func:`check_claims` on CPU at the small size of
:func:`rehearsal_configs`, with offload emulated by :func:`emulated_offload`
(``tests/perf/bench_checkpointing_cpu.py`` times the same run).
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

import checkpointing
import provenance
import pytest
import torch
from torch.autograd.graph import saved_tensors_hooks

ROOT = Path(__file__).resolve().parent.parent


def rehearsal_configs() -> tuple[checkpointing.Config, tuple[checkpointing.Config, ...]]:
    """The GPU run's strategies and transformer variants at a size a CPU measures in seconds:
    the dress rehearsal checks the code path, not the figures."""
    cpu = checkpointing.CONFIGS["cpu"]
    small = dataclasses.replace(cpu, layers=6, layers_per_group=(1, 2, 3), segments=(2, 3, 6))
    small = dataclasses.replace(small, tokens=48, repeats=2)
    return small, checkpointing.transformer_variants(small, batch=1, tokens=16, heads=4)


def emulated_offload(x: torch.Tensor) -> saved_tensors_hooks:
    """CPU offload as a GPU sees it: saved tensors leave the memory the peak meter counts.

    On a CPU, ``save_on_cpu`` keeps the very same tensors. Here each one is copied into a NumPy
    array (NumPy's allocator, which torch's profiler does not record) and back on unpacking.
    NumPy has no bfloat16: such tensors travel as their 16-bit patterns.
    """

    def pack(t: torch.Tensor) -> tuple[torch.dtype, Any]:
        bits = t.detach().view(torch.int16) if t.dtype == torch.bfloat16 else t.detach()
        return t.dtype, bits.numpy().copy()

    def unpack(packed: tuple[torch.dtype, Any]) -> torch.Tensor:
        dtype, array = packed
        return torch.from_numpy(array).view(dtype)

    return saved_tensors_hooks(pack, unpack)


def measure_and_write(
    config: checkpointing.Config, device: str, variants: tuple[checkpointing.Config, ...] = ()
) -> dict[str, Any]:
    """Measure, then write the results file first: a failing claim below still leaves the
    evidence for a maintainer to read."""
    results = checkpointing.run_benchmark(config, device, variants=variants)
    directory = Path(os.environ.get("BENCHMARK_RESULTS_DIR", ROOT / "docs" / "benchmarks"))
    path = provenance.write_results(results, directory)
    print(f"wrote {path}")
    return results


def check_claims(results: dict[str, Any]) -> None:
    """What a results file must show for the lesson to quote it, for the main rows and for
    every variant's (transformer per attention path and precision)."""
    for run in [results, *results.get("runs", [])]:
        _check_rows(run["rows"])
    on_cuda = results["provenance"]["device"]["type"] == "cuda"
    assert results["provenance"]["cuda"] == (torch.version.cuda if on_cuda else None)


def _check_rows(all_rows: list[dict[str, Any]]) -> None:
    rows = {(r["strategy"], r["layers_per_group"], r["segments"]): r for r in all_rows}
    none = rows[("none", None, None)]
    assert none["status"] == "ok", "no checkpointing must fit: it is the reference"
    assert none["saved_bytes"] >= none["predicted_saved_bytes"]  # the model's L * c * a, at least
    measured = [r for r in all_rows if r["status"] == "ok"]
    for row in measured:
        if row is not none:
            assert row["grads_equal"] is True, f"{row['strategy']} changed the gradients: {row}"
        assert row["peak_bytes"] is not None and row["step_time_s"] is not None, row
    for row in measured:
        if row["strategy"] in ("groups", "selective", "offload"):
            assert row["peak_bytes"] < none["peak_bytes"], row
        assert row["step_peak_bytes"] > row["peak_bytes"], row  # + parameters, grads, Adam


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_gpu_checkpointing_benchmark() -> None:
    results = measure_and_write(checkpointing.CONFIGS["gpu"], "cuda", checkpointing.VARIANTS["gpu"])
    check_claims(results)
    none = next(r for r in results["rows"] if r["strategy"] == "none")
    assert none["saved_bytes"] >= 16e9  # the lesson's scale: at least 16 GB of activations


@pytest.mark.gpu
@pytest.mark.skip(
    reason="FSDP needs two ranks and the GPU machine has one GPU: the FSDP evidence is the "
    "two-rank gloo run on CPU (the CPU results' fsdp section, tests/test_benchmarks.py)"
)
def test_gpu_fsdp() -> None:
    """Listed so that the GPU run's report says why FSDP is not in it."""
