"""The checkpointing benchmark on CPU, its results file, and the build-side renderer.

Measuring: a module fixture runs ``snippets/checkpointing.py`` at its small CPU size (a few
seconds) on every test run, and the tests below check what the harness claims: gradients equal
for every strategy, saved bytes equal to the per-layer model, OOM reported as a row.

When the committed ``docs/benchmarks/checkpointing-cpu.json`` is rewritten: only when it is
missing, when it is stale (its code hash no longer matches ``snippets/checkpointing.py`` and the
modules it imports), or when asked with ``pytest --regenerate``. Timings differ on every run, so
rewriting the file on every ``pytest`` would leave a dirty tree after each run and bury real
changes in noise;
rewriting it when the code changed keeps the committed numbers honest. The GPU file is written
by ``tests/test_benchmarks_gpu.py`` only.

Rendering: ``tools/benchmarks/`` turns results into tables, SVG plots and a summary. An H200
results file is tested with a small synthetic file made in a temporary directory (never
committed as a result).
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import warnings
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import checkpointing
import provenance
import pytest
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

from tools import benchmarks
from tools.buildinfo import ROOT

RESULTS = ROOT / "docs" / "benchmarks"
CPU_FILE = RESULTS / "checkpointing-cpu.json"
CONFIG = checkpointing.CONFIGS["cpu"]


@pytest.fixture(scope="module")
def cpu_results(request: pytest.FixtureRequest) -> dict[str, Any]:
    """A fresh CPU measurement; also rewrites the committed file when stale or asked."""
    results = checkpointing.run_benchmark(CONFIG, "cpu")
    if request.config.getoption("--regenerate") or not provenance.is_current(CPU_FILE, ROOT):
        provenance.write_results(results, RESULTS)
    return results


def _rows(results: dict[str, Any], strategy: str) -> list[dict[str, Any]]:
    return [r for r in results["rows"] if r["strategy"] == strategy]


# --- the harness's claims ---------------------------------------------------------------------


def test_every_strategy_keeps_the_gradients(cpu_results: dict[str, Any]) -> None:
    """A checkpointing strategy that changes gradients is a bug, not a trade-off."""
    others = [r for r in cpu_results["rows"] if r["strategy"] != "none"]
    assert {r["strategy"] for r in others} == {"groups", "segments", "selective", "offload"}
    for row in others:
        assert row["status"] == "ok", row
        assert row["grads_equal"] is True, f"{row['strategy']} changed the gradients: {row}"


def test_saved_bytes_follow_the_per_layer_model(cpu_results: dict[str, Any]) -> None:
    a = CONFIG.boundary_bytes
    L, c = CONFIG.layers, checkpointing.ACTIVATIONS_PER_LAYER
    (none,) = _rows(cpu_results, "none")
    # c really is 10 for this block: measured bytes per layer / a (LayerNorm stats are extra).
    assert none["saved_bytes"] / (L * a) == pytest.approx(c, rel=0.01)
    for row in cpu_results["rows"]:
        ratio = row["saved_bytes"] / row["predicted_saved_bytes"]
        assert 1.0 <= ratio < 1.01, row  # only the tiny LayerNorm statistics are unmodelled
    for row in _rows(cpu_results, "groups"):
        # Groups keep exactly one input per group: no LayerNorm stats, nothing else.
        assert row["saved_bytes"] == -(-L // row["layers_per_group"]) * a
    (selective,) = _rows(cpu_results, "selective")
    assert selective["saved_bytes"] == L * (1 + checkpointing.MATMUL_OUTPUTS_PER_LAYER) * a
    (offload,) = _rows(cpu_results, "offload")
    assert offload["saved_on"] == "host"
    assert offload["saved_bytes"] == none["saved_bytes"]  # the same tensors, copied to the host


def test_timings_and_overhead_bound(cpu_results: dict[str, Any]) -> None:
    for row in cpu_results["rows"]:
        assert 0 < row["forward_time_s"] < row["step_time_s"], row
        assert row["peak_bytes"] is None  # CPU: no peak counter, and the file says so
    (none,) = _rows(cpu_results, "none")
    assert none["overhead"] == 0.0
    bound = none["forward_time_s"] / none["step_time_s"]
    for row in _rows(cpu_results, "groups"):  # groups recompute one whole forward
        assert row["overhead_bound"] == pytest.approx(bound)
    (offload,) = _rows(cpu_results, "offload")
    assert offload["overhead_bound"] is None  # offload recomputes nothing


def test_results_carry_provenance(cpu_results: dict[str, Any]) -> None:
    prov = cpu_results["provenance"]
    assert prov["device"] == {**prov["device"], "type": "cpu", "slug": "cpu"}
    assert prov["torch"] == torch.__version__ and prov["cuda"] is None
    assert prov["date"].endswith("Z")
    assert prov["code"]["entry"] == "snippets/checkpointing.py"
    assert prov["code"]["files"] == [
        "snippets/checkpointing.py",
        "snippets/memory_model.py",
        "snippets/provenance.py",
    ]
    config = cpu_results["config"]
    assert (config["layers"], config["batch"], config["tokens"], config["hidden"]) == (
        CONFIG.layers,
        CONFIG.batch,
        CONFIG.tokens,
        CONFIG.hidden,
    )
    assert config["dtype"] == "float32"


def test_committed_cpu_results_are_current_and_render(cpu_results: dict[str, Any]) -> None:
    """After the fixture, the committed file matches the code (the build would say "stale")."""
    assert provenance.is_current(CPU_FILE, ROOT)
    (loaded,) = [r for r in benchmarks.load_results("checkpointing", ROOT) if not r.on_gpu]
    assert not loaded.stale
    assert set(loaded.data) == {
        "schema_version",
        "benchmark",
        "provenance",
        "config",
        "model",
        "rows",
    }


def test_segments_1_is_no_checkpointing_and_oom_is_a_row(monkeypatch: pytest.MonkeyPatch) -> None:
    config = dataclasses.replace(CONFIG, tokens=16, warmup=0, repeats=0)

    def no_memory(*args: Any, **kwargs: Any) -> torch.Tensor:
        raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 20.00 GiB")

    monkeypatch.setattr(checkpointing, "run_selective", no_memory)
    strategies = [
        checkpointing.Strategy("none"),
        checkpointing.Strategy("segments", segments=1),
        checkpointing.Strategy("selective"),
        checkpointing.Strategy("groups", layers_per_group=2),
    ]
    results = checkpointing.run_benchmark(config, "cpu", strategies)
    none, one_segment, selective, groups = results["rows"]
    assert one_segment["saved_bytes"] == none["saved_bytes"]  # the last segment is never saved
    assert selective["status"] == "oom" and selective["saved_bytes"] is None
    assert "out of memory" in selective["error"]
    assert selective["predicted_saved_bytes"] > 0  # the prediction still stands beside "OOM"
    assert groups["status"] == "ok" and groups["grads_equal"] is True  # the run went on


def test_preserve_rng_state_keeps_dropout_gradients() -> None:
    """With dropout, recomputation must replay the same random mask (the default does)."""
    torch.manual_seed(0)
    model = nn.Sequential(checkpointing.Block(16), nn.Dropout(0.5))
    x = torch.randn(2, 8, 16)

    def grads(run: Any) -> list[torch.Tensor]:
        model.zero_grad(set_to_none=True)
        torch.manual_seed(123)
        run(x).sum().backward()
        return [p.grad.clone() for p in model.parameters()]

    plain = grads(model)
    preserved = grads(lambda t: checkpoint(model, t, use_reentrant=False))
    fresh = grads(lambda t: checkpoint(model, t, use_reentrant=False, preserve_rng_state=False))
    assert all(torch.allclose(a, b) for a, b in zip(plain, preserved, strict=True))
    assert not all(torch.allclose(a, b) for a, b in zip(plain, fresh, strict=True))


def test_code_hash_covers_imported_modules_only(tmp_path: Path) -> None:
    root = _copy_snippets(tmp_path)
    entry = root / "snippets" / "checkpointing.py"
    before = provenance.code_hash(entry, root)["sha256"]
    (root / "snippets" / "cosine_buggy.py").write_text("# not imported by the harness\n")
    assert provenance.code_hash(entry, root)["sha256"] == before
    helper = root / "snippets" / "provenance.py"
    helper.write_text(helper.read_text() + "\n# edited\n")
    assert provenance.code_hash(entry, root)["sha256"] != before
    crlf = root / "snippets" / "checkpointing.py"
    after_edit = provenance.code_hash(entry, root)["sha256"]
    crlf.write_bytes(crlf.read_bytes().replace(b"\n", b"\r\n"))
    assert provenance.code_hash(entry, root)["sha256"] == after_edit  # a Windows checkout


# --- rendering --------------------------------------------------------------------------------


def _copy_snippets(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(
        ROOT / "snippets", root / "snippets", ignore=shutil.ignore_patterns("__pycache__")
    )
    (root / "docs" / "benchmarks").mkdir(parents=True)
    return root


@pytest.fixture(scope="module")
def sample(cpu_results: dict[str, Any]) -> dict[str, Any]:
    """A real CPU results dict (this run's measurement), for renderer tests in a temp repo."""
    return json.loads(json.dumps(cpu_results))


def _write(root: Path, data: dict[str, Any], slug: str | None = None) -> Path:
    slug = slug or data["provenance"]["device"]["slug"]
    path = root / "docs" / "benchmarks" / f"checkpointing-{slug}.json"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def synthetic_h200(sha: str, files: list[str]) -> dict[str, Any]:
    """A made-up H200 results file: right shape, plausible numbers, one OOM row."""
    config = checkpointing.CONFIGS["gpu"]
    rows = []
    for i, strategy in enumerate(config.strategies()):
        saved, peak = checkpointing.predict(strategy, config)
        oom = strategy.name == "groups" and strategy.layers_per_group == 6
        step = 0.30 * (1 + 0.03 * i)
        rows.append(
            {
                "strategy": strategy.name,
                "layers_per_group": strategy.layers_per_group,
                "segments": strategy.segments,
                "status": "oom" if oom else "ok",
                "saved_bytes": None if oom else saved + 1234,
                "saved_on": "host" if strategy.name == "offload" else "device",
                "predicted_saved_bytes": saved,
                "peak_bytes": None if oom else int(peak * 1.12),
                "predicted_peak_bytes": peak,
                "recomputed_fraction": checkpointing.recomputed_fraction(strategy, config),
                "grads_equal": None if oom or strategy.name == "none" else True,
                "grad_max_abs_diff": None if oom or strategy.name == "none" else 0.0,
                "step_time_s": None if oom else step,
                "forward_time_s": None if oom else 0.1,
                "overhead": None if oom else step / 0.30 - 1,
                "overhead_bound": None if oom or strategy.name == "offload" else 0.33,
            }
        )
    return {
        "schema_version": 1,
        "benchmark": "checkpointing",
        "provenance": {
            "device": {"type": "cuda", "name": "NVIDIA H200", "slug": "nvidia-h200"},
            "torch": "2.13.0",
            "cuda": "12.8",
            "python": "3.11.9",
            "date": "2026-11-30T08:00:00Z",
            "git_commit": "0123456789abcdef0123456789abcdef01234567",
            "code_modified_since_commit": False,
            "code": {"entry": "snippets/checkpointing.py", "files": files, "sha256": sha},
        },
        "config": {**dataclasses.asdict(config), "device": "cuda"},
        "model": {"boundary_bytes": config.boundary_bytes, "activations_per_layer": 10},
        "rows": rows,
    }


def _render(root: Path, view: str, strict: bool = False) -> str:
    return benchmarks.render_embed(["checkpointing", view], root, strict=strict)


def test_table_from_the_committed_cpu_results(cpu_results: dict[str, Any]) -> None:
    out = _render(ROOT, "table")
    for column in (
        "Strategy",
        "Predicted saved",
        "Measured saved",
        "Measured / predicted",
        "Step time",
        "Overhead / one-forward bound",
        "Gradients equal",
    ):
        assert f">{column}</th>" in out
    assert ">Peak memory</th>" not in out, "a CPU measures no peak: no column of dashes"
    assert "1 layer per group" in out and "8 segments" in out
    assert "NO: a bug" not in out
    assert 'class="benchmark-provenance"' in out and "torch " in out
    data = json.loads(CPU_FILE.read_text())
    assert data["provenance"]["code"]["sha256"][:12] in out
    assert "Stale results" not in out


def _svgs(out: str) -> list[ET.Element]:
    found = []
    rest = out
    while "<svg" in rest:
        start = rest.index("<svg")
        end = rest.index("</svg>", start) + len("</svg>")
        found.append(ET.fromstring(rest[start:end]))  # well-formed XML, or this raises
        rest = rest[end:]
    return found


@pytest.mark.parametrize("view", ["plot-memory", "plot-tradeoff"])
def test_plots_are_accessible_deterministic_svg(
    tmp_path: Path, sample: dict[str, Any], view: str
) -> None:
    root = _copy_snippets(tmp_path)
    code = provenance.code_hash(root / "snippets" / "checkpointing.py", root)
    _write(root, sample)
    _write(root, synthetic_h200(code["sha256"], code["files"]))
    out = _render(root, view)
    assert out == _render(root, view)  # deterministic
    assert out.count("<figure>") == 2 and out.count("<figcaption>") == 2
    svgs = _svgs(out)
    assert len(svgs) == 2
    for svg in svgs:
        assert svg.get("role") == "img"
        assert len(svg.get("aria-label", "")) > 40
        assert svg.find("{http://www.w3.org/2000/svg}title") is not None
    # GPU first; dark-mode colours present; text follows the page colour.
    assert out.index("NVIDIA H200") < out.index(sample["provenance"]["device"]["name"])
    assert '[data-md-color-scheme="slate"]' in out and "currentColor" in out
    assert "GiB)" in out  # the H200 chart's axis is in GiB


def test_synthetic_h200_results_render(tmp_path: Path, sample: dict[str, Any]) -> None:
    root = _copy_snippets(tmp_path)
    code = provenance.code_hash(root / "snippets" / "checkpointing.py", root)
    _write(root, sample)
    _write(root, synthetic_h200(code["sha256"], code["files"]))
    out = _render(root, "table")
    assert out.index("NVIDIA H200") < out.index("checkpointing-cpu.json")  # GPU table first
    gpu_table = out[: out.index("checkpointing-nvidia-h200.json")]
    for text in (
        "Predicted peak",
        "Measured peak",
        "Saved for backward",
        "(host)",
        "CUDA 12.8",
        "OOM",
        "2 layers per group",
        "5 segments",
        "1.12",
        "commit <code>0123456789",
    ):
        assert text in gpu_table, text
    assert "Stale results" not in out
    summary = _render(root, "summary")
    assert summary.index("NVIDIA H200") < summary.index(sample["provenance"]["device"]["name"])
    assert "(1 OOM)" in summary and "√L = 4.9" in summary


def test_stale_results_warn_and_strict_refuses(tmp_path: Path, sample: dict[str, Any]) -> None:
    root = _copy_snippets(tmp_path)
    stale = json.loads(json.dumps(sample))
    stale["provenance"]["code"]["sha256"] = "0" * 64
    _write(root, stale)
    with pytest.warns(benchmarks.StaleResultsWarning, match="checkpointing-cpu.json"):
        out = _render(root, "table")
    assert "Stale results" in out and "python3 -m tools test tests/test_benchmarks.py" in out
    assert "<table" in out  # the table still shows
    with pytest.raises(benchmarks.BenchmarkError, match="stale"):
        _render(root, "table", strict=True)
    # Editing the code (not the results) makes a current file stale too.
    _write(root, sample)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert "Stale" not in _render(root, "summary", strict=True)
    harness = root / "snippets" / "checkpointing.py"
    harness.write_text(harness.read_text() + "\n# a change\n")
    with pytest.raises(benchmarks.BenchmarkError, match="stale"):
        _render(root, "summary", strict=True)


def test_bad_results_are_clear_errors(tmp_path: Path, sample: dict[str, Any]) -> None:
    root = _copy_snippets(tmp_path)
    with pytest.raises(
        benchmarks.BenchmarkError, match=r"docs/benchmarks/checkpointing-<device>\.json"
    ):
        _render(root, "table")
    path = _write(root, sample)
    path.write_text('{\n  "schema_version": 1,\n  "rows": [,]\n}\n')
    with pytest.raises(
        benchmarks.BenchmarkError, match=r"checkpointing-cpu\.json:3: malformed JSON"
    ):
        _render(root, "table")
    broken = json.loads(json.dumps(sample))
    del broken["rows"][1]["saved_bytes"]
    _write(root, broken)
    with pytest.raises(
        benchmarks.BenchmarkError, match=r"checkpointing-cpu\.json: .*rows\[1\]\.saved_bytes"
    ):
        _render(root, "table")
    _write(root, sample)
    with pytest.raises(benchmarks.BenchmarkError, match="unknown benchmark view 'chart'"):
        _render(root, "chart")
    with pytest.raises(benchmarks.BenchmarkError, match="unknown benchmark 'attention'"):
        benchmarks.render_embed(["attention", "table"], root, strict=False)
    with pytest.raises(benchmarks.BenchmarkError, match="expected"):
        benchmarks.render_embed(["checkpointing"], root, strict=False)


def test_rendering_unchanged_results_reads_and_hashes_nothing_again(
    cpu_results: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rebuild with unchanged results is served from the caches: no file is read or hashed.

    This is what makes re-rendering cheap; how cheap is a figure, printed (against its 2 s
    budget) by ``tests/perf/bench_render.py`` rather than asserted on a busy machine.
    """
    first = {view: _render(ROOT, view) for view in benchmarks.VIEWS}  # fills the caches

    def no_reading(self: Path, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"unchanged results: {self} was read again")

    monkeypatch.setattr(Path, "read_text", no_reading)
    monkeypatch.setattr(Path, "read_bytes", no_reading)
    assert {view: _render(ROOT, view) for view in benchmarks.VIEWS} == first
