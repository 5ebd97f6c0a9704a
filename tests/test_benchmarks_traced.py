"""The traced results file: the tracer against the CPU measurement, and the model against both.

``docs/benchmarks/checkpointing-traced.json`` is written by ``tests/perf/trace_checkpointing.py``
(minutes, so never by a normal run). These tests read it beside the committed CPU measurement:
at the CPU sizes the tracer must agree with the profiler within 3% on every row, and the memory
model's activation peak must come within 5% of every measured and traced row unless the page
names the term the model leaves out (``snippets.benchmark_views.traced.model_gap``). A few rows are
traced again here, so the committed file is what the tracer makes, and a tiny configuration is
measured and traced side by side, so the check does not rest on committed numbers alone.
"""

from __future__ import annotations

import dataclasses
import json
import math
import shutil
from pathlib import Path
from typing import Any

import checkpointing
import memory_model
import memory_trace
import pytest
import torch
from mkdocs_course import benchmarks
from mkdocs_course.benchmarks.errors import BenchmarkError
from mkdocs_course.benchmarks.formatting import esc, fmt_bytes
from mkdocs_course.benchmarks.schema import Validators, validate
from mkdocs_course.buildkit.buildinfo import ROOT
from mkdocs_course.course import config as course_config

from snippets.benchmark_views import traced as views
from snippets.benchmark_views.step import describe_run

TRACED = ROOT / "docs" / "benchmarks" / "checkpointing-traced.json"
REGISTRY = course_config.benchmarks(ROOT)  # the benchmarks mkdocs.yml declares
CHECKPOINTING = benchmarks.benchmark("checkpointing", REGISTRY, ROOT)
TRACER = REGISTRY["checkpointing"].kind("traced")
TRACER_TOLERANCE = 0.03


@pytest.fixture(scope="module")
def loaded() -> list[benchmarks.Results]:
    return benchmarks.load_results(CHECKPOINTING, ROOT)


@pytest.fixture(scope="module")
def traced(loaded: list[benchmarks.Results]) -> benchmarks.Results:
    return views.traced_file(loaded)


def test_the_traced_file_is_current_and_says_what_it_is(traced: benchmarks.Results) -> None:
    assert not traced.stale, f"{traced.stale_message()}"
    prov = traced.data["provenance"]
    assert prov["method"] == "traced with fake tensors, not measured"
    assert prov["torch"] and prov["date"] and prov["code"]["entry"] == "snippets/memory_trace.py"
    assert traced.regenerate == TRACER.regenerate


def test_the_file_holds_what_the_issue_asks(traced: benchmarks.Results) -> None:
    """The GPU configuration at full size, every strategy, MLP and both attention paths in
    three precisions; every planner preset; nothing left untraced or written as zero."""
    gpu = traced.data["gpu"]
    kinds = {
        (
            r["config"]["block"],
            r["config"]["attention"],
            r["config"]["dtype"],
            r["config"]["autocast"],
        )
        for r in gpu
    }
    for block, attention in (
        ("mlp", "explicit"),
        ("transformer", "explicit"),
        ("transformer", "fused"),
    ):
        for dtype, autocast in memory_trace.PRECISIONS.values():
            assert (block, attention, dtype, autocast) in kinds
    full = checkpointing.CONFIGS["gpu"]
    assert any(
        r["config"]["tokens"] == full.tokens and r["config"]["batch"] == full.batch for r in gpu
    )
    from snippets.benchmark_views.planner import PRESETS

    assert [r["name"] for r in traced.data["presets"]] == [p.label for p in PRESETS]
    for part in ("cpu_check", "gpu", "presets"):
        for run in traced.data[part]:
            assert not run["untraced"], run["untraced"]
            strategies = checkpointing.Config(**_config_args(run["config"])).strategies()
            assert len(run["rows"]) == len(strategies), run["name"]
            assert all(row["peak_bytes"] > 0 for row in run["rows"]), run["name"]


def _config_args(config: dict[str, Any]) -> dict[str, Any]:
    fields = {f.name for f in dataclasses.fields(checkpointing.Config)}
    args = {k: v for k, v in config.items() if k in fields}
    for key in ("layers_per_group", "segments"):
        args[key] = tuple(args[key])
    return args


def test_the_tracer_agrees_with_the_cpu_measurement(
    loaded: list[benchmarks.Results], traced: benchmarks.Results
) -> None:
    """Every CPU-measured run is traced at its size; activation and whole-step peaks within 3%."""
    (measured,) = [r for r in loaded if r.kind == "cpu"]
    pairs = views.pairs(traced, measured)
    assert len(pairs) == 1 + len(measured.data["runs"])
    for run, reference in pairs:
        rows = {(r["strategy"], r["layers_per_group"], r["segments"]): r for r in run["rows"]}
        for row in reference["rows"]:
            got = rows[(row["strategy"], row["layers_per_group"], row["segments"])]
            for key in ("peak_bytes", "step_peak_bytes"):
                ratio = got[key] / row[key]
                assert abs(ratio - 1) <= TRACER_TOLERANCE, (
                    run["name"],
                    row["strategy"],
                    key,
                    ratio,
                )


def test_each_gpu_row_is_shown_beside_the_trace_of_its_configuration(
    loaded: list[benchmarks.Results], traced: benchmarks.Results
) -> None:
    """With a GPU file, the check sets every measured GPU run beside its full-size trace, each
    row's two peaks in it, and names CUDA's differences under every run they part in by more
    than the tracer's tolerance (the fused rows with dropout, where CUDA's kernel keeps no
    scores, must be among them: the trace runs the CPU fallback)."""
    gpus = [r for r in loaded if r.on_gpu]
    if not gpus:
        pytest.skip("no GPU results file is committed")
    check = benchmarks.render_embed(["checkpointing", "traced-check"], ROOT, REGISTRY, strict=True)
    for measured in gpus:
        pairs = views.pairs(traced, measured)
        assert len(pairs) == 1 + len(measured.data["runs"])  # every run the GPU measured
        parted = []
        for run, reference in pairs:
            tables = check.split("<table>")
            (table,) = [
                t
                for t in tables
                if f"on {measured.device['name']}: {esc(describe_run(reference['config']))}"
                "</caption>" in t
            ]
            rows = {(r["strategy"], r["layers_per_group"], r["segments"]): r for r in run["rows"]}
            ratios = []
            for row in reference["rows"]:
                got = rows[(row["strategy"], row["layers_per_group"], row["segments"])]
                assert fmt_bytes(row["peak_bytes"]) in table
                assert fmt_bytes(got["peak_bytes"]) in table
                ratios.append(got["peak_bytes"] / row["peak_bytes"])
            if any(abs(r - 1) > TRACER_TOLERANCE for r in ratios):
                parted.append(run["name"])
                note = f"on CUDA: {esc(run['cuda_differs'])}."
                assert run["cuda_differs"] and note in check, run["name"]
        assert "fused, dropout, bfloat16" in parted


def test_the_committed_rows_are_what_the_tracer_makes(traced: benchmarks.Results) -> None:
    """Tracing is deterministic: a few rows traced again equal the file's, byte for byte."""
    check = {run["name"]: run for run in traced.data["cpu_check"]}
    cases = [
        ("MLP", checkpointing.Strategy("groups", layers_per_group=2)),
        (
            memory_trace.describe(checkpointing.VARIANTS["cpu"][1]),
            checkpointing.Strategy("selective-attention"),
        ),
    ]
    for name, strategy in cases:
        run = check[name]
        config = checkpointing.Config(**_config_args(run["config"]))
        fresh = memory_trace.traced_row(config, strategy)
        fresh.pop("state")
        (row,) = [
            r
            for r in run["rows"]
            if (r["strategy"], r["layers_per_group"]) == (strategy.name, strategy.layers_per_group)
        ]
        assert fresh == row


def test_a_fresh_measurement_and_a_fresh_trace_agree() -> None:
    """Measured with the profiler and traced now, same tiny stack: every row within 3%."""
    tiny = dataclasses.replace(
        checkpointing.CONFIGS["cpu"],
        layers=4,
        tokens=32,
        layers_per_group=(1, 2),
        segments=(2,),
        warmup=1,
        repeats=0,
    )
    measured = checkpointing.run_benchmark(tiny, "cpu")
    for strategy, row in zip(tiny.strategies(), measured["rows"], strict=True):
        got = memory_trace.traced_row(tiny, strategy)
        for key in ("peak_bytes", "step_peak_bytes"):
            assert abs(got[key] / row[key] - 1) <= TRACER_TOLERANCE, (strategy, key)


def _model_rows(loaded: list[benchmarks.Results]) -> list[tuple[str, dict, dict]]:
    found = []
    for result in loaded:
        if result.kind == "traced":
            runs = [r for part in ("cpu_check", "gpu", "presets") for r in result.data[part]]
        else:
            runs = [result.data, *result.data.get("runs", [])]
        for run in runs:
            found += [
                (result.path.name, run["config"], row)
                for row in run["rows"]
                if row.get("status", "ok") == "ok"
            ]
    return found


def test_the_model_holds_at_the_activation_level(loaded: list[benchmarks.Results]) -> None:
    """Predicted activation peak within 5% of every measured and traced row, or the row's term
    is one the page names beside it (``model_gap``)."""
    unexplained = []
    for name, config, row in _model_rows(loaded):
        ratio = row["peak_bytes"] / row["predicted_peak_bytes"]
        if abs(ratio - 1) > views.MODEL_TOLERANCE and views.model_gap(config, row) is None:
            unexplained.append(
                (
                    name,
                    config.get("attention"),
                    config["dtype"],
                    config.get("autocast"),
                    row["strategy"],
                    row["layers_per_group"] or row["segments"],
                    round(ratio, 3),
                )
            )
    assert not unexplained


def test_each_over_counted_term_the_page_names_accounts_for_its_rows_gap(
    loaded: list[benchmarks.Results],
) -> None:
    """Where the model is off by more than the tolerance and the page names a term it counts
    that the run does not hold, the model less that term is within the tolerance of the row,
    measured or traced; and the two CPU rows that led to the terms are among them."""
    named = []
    for name, config, row in _model_rows(loaded):
        counted = views.over_count(config, row)
        off = abs(row["peak_bytes"] / row["predicted_peak_bytes"] - 1) > views.MODEL_TOLERANCE
        if counted is None or not off:
            continue
        named.append((config.get("attention"), config.get("autocast"), row["strategy"]))
        corrected = row["predicted_peak_bytes"] - counted[1]
        assert abs(row["peak_bytes"] / corrected - 1) <= views.MODEL_TOLERANCE, (name, row)
    assert ("fused", None, "selective") in named and ("explicit", "bfloat16", "groups") in named


def test_the_rng_state_the_model_counts_is_torchs() -> None:
    assert torch.get_rng_state().nbytes == memory_model.RNG_STATE_BYTES


def test_an_untraceable_strategy_is_named_and_left_out(monkeypatch: pytest.MonkeyPatch) -> None:
    real = memory_trace.trace_step

    def no_fake_kernel(config: Any, strategy: checkpointing.Strategy) -> dict[str, Any]:
        if strategy.name == "selective":
            raise NotImplementedError("aten::made_up has no fake implementation")
        return real(config, strategy)

    monkeypatch.setattr(memory_trace, "trace_step", no_fake_kernel)
    tiny = dataclasses.replace(
        checkpointing.CONFIGS["cpu"], layers=2, tokens=8, layers_per_group=(1,), segments=(2,)
    )
    lines: list[str] = []
    run = memory_trace.trace_run("tiny", tiny, lines.append)
    assert "selective" not in {r["strategy"] for r in run["rows"]}
    assert run["untraced"] == [
        {
            "strategy": "selective",
            "layers_per_group": None,
            "segments": None,
            "error": "NotImplementedError: aten::made_up has no fake implementation",
        }
    ]
    assert any("selective" in line and "NOT TRACED" in line for line in lines)
    html = "\n".join(views._run_table(run, "tiny"))
    assert "Not traced: Selective" in html and "made_up" in html


def test_a_traced_file_with_a_missing_field_or_nan_is_reported_by_line() -> None:
    data = json.loads(TRACED.read_text(encoding="utf-8"))
    del data["gpu"][0]["rows"][0]["peak_bytes"]
    data["presets"][0]["rows"][1]["step_peak_bytes"] = math.nan
    text = json.dumps(data, indent=2)
    schemas = Validators(ROOT)
    with pytest.raises(BenchmarkError) as caught:
        validate(
            json.loads(text),
            text,
            Path("docs/benchmarks/checkpointing-traced.json"),
            "checkpointing",
            schemas.get(TRACER.schema),
            schemas.envelope,
        )
    message = str(caught.value)
    assert "traced.schema.json" in message
    assert "'peak_bytes' is a required property" in message
    assert "nan is not a number JSON allows" in message
    lines = [line for line in message.splitlines() if line.startswith("  docs/")]
    assert len(lines) == 3 and all(line.split(":")[1].isdigit() for line in lines)


def test_a_stale_traced_file_gets_the_notice(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "snippets", tmp_path / "snippets")  # both schemas with them
    (tmp_path / "docs").mkdir()
    shutil.copytree(ROOT / "docs" / "benchmarks", tmp_path / "docs" / "benchmarks")
    tracer = tmp_path / "snippets" / "memory_trace.py"
    tracer.write_text(tracer.read_text(encoding="utf-8") + "\n# changed\n", encoding="utf-8")
    with pytest.warns(benchmarks.StaleResultsWarning, match="checkpointing-traced.json"):
        html = benchmarks.render_embed(
            ["checkpointing", "traced"], tmp_path, REGISTRY, strict=False
        )
    assert "Stale results" in html and "were traced with an older version" in html
    assert TRACER.regenerate in html
    with pytest.raises(BenchmarkError, match="stale"):
        benchmarks.render_embed(["checkpointing", "traced"], tmp_path, REGISTRY, strict=True)


def test_the_traced_views_say_they_are_not_measurements(traced: benchmarks.Results) -> None:
    html = benchmarks.render_embed(["checkpointing", "traced"], ROOT, REGISTRY, strict=True)
    assert html.count(views.LABEL) == len(traced.data["gpu"])
    assert "On CUDA:" in html
    presets = benchmarks.render_embed(
        ["checkpointing", "traced-presets"], ROOT, REGISTRY, strict=True
    )
    assert presets.count(views.LABEL) == len(traced.data["presets"])
    check = benchmarks.render_embed(["checkpointing", "traced-check"], ROOT, REGISTRY, strict=True)
    assert "The tracer against the measurement" in check
    # the measured views never show the traced file
    table = benchmarks.render_embed(["checkpointing", "step"], ROOT, REGISTRY, strict=True)
    assert "checkpointing-traced.json" not in table
