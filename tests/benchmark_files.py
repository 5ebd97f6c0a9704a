"""Results files for the benchmark tests: a course root to write them into, the committed CPU
file, a synthetic H200 file, and the embed they are drawn by. Imported by the tests (not a test
module itself).
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path
from typing import Any

import checkpointing
import provenance
from mkdocs_course import benchmarks
from mkdocs_course.buildkit.buildinfo import ROOT
from mkdocs_course.course import config as course_config

CPU_FILE = ROOT / "docs" / "benchmarks" / "checkpointing-cpu.json"
REGISTRY = course_config.benchmarks(ROOT)  # the benchmarks mkdocs.yml declares
CPU_KIND = REGISTRY["checkpointing"].kind("cpu")  # what makes the CPU file, and its schema


def course_root(tmp_path: Path) -> Path:
    """A course root holding the snippets (its schemas among them), so the committed file is
    current there."""
    root = tmp_path / "repo"
    shutil.copytree(
        ROOT / "snippets", root / "snippets", ignore=shutil.ignore_patterns("__pycache__")
    )
    (root / "docs" / "benchmarks").mkdir(parents=True)
    return root


def committed() -> dict[str, Any]:
    return json.loads(CPU_FILE.read_text("utf-8"))


def write(root: Path, data: dict[str, Any], slug: str | None = None) -> Path:
    slug = slug or data["provenance"]["device"]["slug"]
    path = root / "docs" / "benchmarks" / f"checkpointing-{slug}.json"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def render(root: Path, view: str, strict: bool = False) -> str:
    return benchmarks.render_embed(["checkpointing", view], root, REGISTRY, strict=strict)


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
                "step_peak_bytes": None if oom else int(peak * 1.12) + 4321,
                "predicted_step_peak_bytes": peak + 4000,
                "recomputed_fraction": checkpointing.recomputed_fraction(strategy, config),
                "grads_equal": None if oom or strategy.name == "none" else True,
                "grad_max_rel_diff": None if oom or strategy.name == "none" else 0.0,
                "step_time_s": None if oom else step,
                "forward_time_s": None if oom else 0.1,
                "step_times_s": [] if oom else [step, step * 1.01, step * 0.98],
                "step_time_spread_s": None if oom else step * 0.015,
                "overhead": None if oom else step / 0.30 - 1,
                "overhead_bound": None if oom or strategy.name == "offload" else 0.33,
            }
        )
    return {
        "schema_version": provenance.SCHEMA_VERSION,
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
