"""The checkpointing benchmark's views drawn from results files: the table, the RNG-stash and
autocast sections, the plots and the summary, from the committed CPU file and a synthetic H200
file made in a temporary directory (never committed as a result).
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import provenance
import pytest
from benchmark_files import (
    CPU_FILE,
    committed,
    course_root,
    render,
    synthetic_h200,
    write,
)
from mkdocs_course.benchmarks.formatting import fmt_bytes
from mkdocs_course.buildkit.buildinfo import ROOT


@pytest.fixture
def sample() -> dict[str, Any]:
    """The committed CPU results (current: a test of the harness fails when they are not)."""
    return committed()


def test_table_from_the_committed_cpu_results() -> None:
    out = render(ROOT, "table")
    for column in (
        "Strategy",
        "Predicted peak",
        "Measured peak (× predicted)",
        "Saved for backward",
        "Step time",
        "Overhead / one-forward estimate",
        "Gradients equal (largest relative difference)",
    ):
        assert f">{column}</th>" in out
    assert "torch.profiler" in out  # says how a CPU peak was measured
    assert "1 layer per group" in out and "24 segments" in out
    assert "NO: a bug" not in out
    assert 'class="benchmark-provenance"' in out and "torch " in out
    data = json.loads(CPU_FILE.read_text())
    assert data["provenance"]["code"]["sha256"][:12] in out
    assert "Stale results" not in out


def test_rng_stash_and_autocast_views(tmp_path: Path, sample: dict[str, Any]) -> None:
    """Both views render from the committed file, and say so where a file lacks the figures."""
    stash = render(ROOT, "rng-stash")
    assert "preserve_rng_state=False" in stash and 'class="benchmark-provenance"' in stash
    assert "5 rounds" in stash and "Gradients equal" in stash
    amp = render(ROOT, "autocast")
    assert "bfloat16 autocast" in amp and "<code>native_layer_norm</code>" in amp
    assert "of float32)" in amp
    root = course_root(tmp_path)
    bare = {k: v for k, v in sample.items() if k not in ("rng_stash", "autocast")}
    write(root, bare)
    assert "not measured" in render(root, "rng-stash")
    assert "not measured" in render(root, "autocast")


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
    root = course_root(tmp_path)
    code = provenance.code_hash(root / "snippets" / "checkpointing.py", root)
    write(root, sample)
    write(root, synthetic_h200(code["sha256"], code["files"]))
    out = render(root, view)
    assert out == render(root, view)  # deterministic
    assert out.count("<figure>") == 2 and out.count("<figcaption>") == 2
    svgs = _svgs(out)
    assert len(svgs) == 2
    for svg in svgs:
        assert svg.get("role") == "img"
        assert len(svg.get("aria-label", "")) > 40
        assert svg.find("{http://www.w3.org/2000/svg}title") is not None
    # GPU first; dark-mode colours present; text follows the page colour.
    assert out.index("NVIDIA H200") < out.index(sample["provenance"]["device"]["name"])
    assert all("fill:currentColor" in svg.get("style", "") for svg in svgs)
    css = (ROOT / "tools" / "plugin" / "static" / "course.css").read_text("utf-8")
    for colour in sorted(set(re.findall(r"\bbm-[a-d]\b", out))):  # styled once, for both schemes
        assert f".{colour} {{ color:" in css and f'"slate"] .{colour} {{ color:' in css
    assert "GiB)" in out  # the H200 chart's axis is in GiB


def test_synthetic_h200_results_render(tmp_path: Path, sample: dict[str, Any]) -> None:
    root = course_root(tmp_path)
    code = provenance.code_hash(root / "snippets" / "checkpointing.py", root)
    write(root, sample)
    write(root, synthetic_h200(code["sha256"], code["files"]))
    out = render(root, "table")
    assert out.index("NVIDIA H200") < out.index("checkpointing-cpu.json")  # GPU table first
    gpu_table = out[: out.index("checkpointing-nvidia-h200.json")]
    for text in (
        "Predicted peak",
        "Measured peak",
        "Saved for backward",
        "on the host",
        "CUDA 12.8",
        "OOM",
        "2 layers per group",
        "5 segments",
        "1.12",
        "commit <code>0123456789",
    ):
        assert text in gpu_table, text
    assert "Stale results" not in out
    summary = render(root, "summary")
    assert summary.index("NVIDIA H200") < summary.index(sample["provenance"]["device"]["name"])
    assert "(1 OOM)" in summary and "√L = 4.9" in summary


def test_summary_follows_from_the_file(tmp_path: Path, sample: dict[str, Any]) -> None:
    """Lowest memory is the lowest measured peak; a best segment count only when bracketed."""
    root = course_root(tmp_path)
    data = json.loads(json.dumps(sample))
    rows = [r for r in data["rows"] if r["strategy"] in ("none", "segments")]
    none = rows[0]
    segments = rows[1:]
    for i, row in enumerate(segments):  # peaks fall with the count: lowest at the largest tried
        row["peak_bytes"] = none["peak_bytes"] // (2 + i)
    data["rows"] = rows
    write(root, data)
    summary = render(root, "summary")
    largest = segments[-1]
    assert f"{fmt_bytes(largest['peak_bytes'])}: " in summary
    assert f"not bracketed: lowest at {largest['segments']} segments, the largest" in summary
    segments[1]["peak_bytes"] = 1000  # now a minimum inside the range tried
    write(root, data)
    summary = render(root, "summary")
    assert f"<td>{segments[1]['segments']} segments (model: " in summary
    assert "not bracketed" not in summary
