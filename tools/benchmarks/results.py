"""Finding and reading results files, and deciding whether they are stale.

Everything the views need to know about a file before drawing it lives here, so the views only
ever see a validated :class:`Results`. Validating and hashing the measuring code take tens of
milliseconds, and a build asks for the same results once per embed (and once more to check
them), so :func:`load_results` remembers its answer for as long as the bytes of the results
files and of the snippets stay the same: a file edited during ``serve`` is read again.

Staleness uses the *same* hash function as the test that writes a file (``snippets/codehash.py``,
imported by both), so "stale" means one thing to the writer and to the build.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from snippets.codehash import code_hash as _code_hash
from tools.benchmarks.errors import BenchmarkError
from tools.benchmarks.schema import MAX_BYTES, is_traced, validate

RESULTS_DIR = Path("docs/benchmarks")
# benchmark name -> the snippet that measures it (its hash decides staleness)
BENCHMARKS = {"checkpointing": Path("snippets/checkpointing.py")}
REGENERATE = {
    "cpu": "python3 -m tools test tests/test_benchmarks.py --regenerate",
    "cuda": "bash .ci/gpu-benchmarks.sh (on a machine with CUDA)",
    "traced": ".venv/bin/python tests/perf/trace_checkpointing.py",
}
# A traced file (``checkpointing-traced.json``) is made by its own code: the tracer.
TRACER = Path("snippets/memory_trace.py")


# Results files (by name) that the job publishing the site measured itself (publish.yml sets it).
# Any other file was submitted: a committed file's device and numbers are only what it says.
MEASURED_HERE_ENV = "COURSE_MEASURED_HERE"


@dataclass(frozen=True)
class Results:
    """One parsed, validated results file."""

    path: Path  # relative to the repository root, for messages
    data: dict[str, Any]
    stale: bool

    @property
    def device(self) -> dict[str, Any]:
        return self.data["provenance"]["device"]

    @property
    def on_gpu(self) -> bool:
        return self.device["type"] == "cuda"

    @property
    def traced(self) -> bool:
        """Traced with fake tensors (never measured): shown only by the traced views."""
        return self.device["type"] == "traced"

    @property
    def measured_here(self) -> bool:
        """Whether the publishing job measured this file (else it was submitted, committed)."""
        return self.path.name in os.environ.get(MEASURED_HERE_ENV, "").split()

    @property
    def rows(self) -> list[dict[str, Any]]:
        return self.data["rows"]

    @property
    def code_files(self) -> list[str]:
        return self.data["provenance"]["code"]["files"]

    @property
    def regenerate(self) -> str:
        """The command that measures this device again."""
        return REGENERATE[self.device["type"]]

    def stale_message(self) -> str:
        files = ", ".join(self.code_files)
        return (
            f"results are stale: the measuring code ({files}) changed since; "
            f"regenerate: {self.regenerate}"
        )


def results_files(name: str, root: Path) -> list[Path]:
    """The results files of benchmark ``name`` (what a live-reload server should watch)."""
    return sorted((root / RESULTS_DIR).glob(f"{name}-*.json"))


def load_results(name: str, root: Path) -> list[Results]:
    """Every device's results for ``name``, GPUs first; raises if there are none."""
    paths = results_files(name, root)
    inputs = [*paths, *sorted((root / "snippets").glob("*.py"))]
    stamp = tuple(hashlib.sha256(p.read_bytes()).digest() for p in inputs if p.is_file())
    key = (name, root.resolve(), tuple(inputs), stamp)
    if key not in _loaded:
        _loaded.clear()  # one version of the inputs at a time
        _loaded[key] = _load_results(name, root, paths)
    return list(_loaded[key])


_loaded: dict[tuple, list[Results]] = {}


def _load_results(name: str, root: Path, paths: list[Path]) -> list[Results]:
    if not paths:
        raise BenchmarkError(
            f"{(RESULTS_DIR / f'{name}-<device>.json').as_posix()}: no results file; run "
            f"{REGENERATE['cpu']} to measure on CPU"
        )
    current = {False: code_hash(BENCHMARKS[name], root)}
    loaded = []
    for path in paths:
        rel = path.relative_to(root)
        text, data = _read(path, rel)
        validate(data, text, rel, name)
        traced = is_traced(data)
        if traced not in current:
            current[traced] = code_hash(TRACER, root)
        stale = data["provenance"]["code"]["sha256"] != current[traced]
        loaded.append(Results(rel, data, stale))
    return sorted(loaded, key=lambda r: (r.traced, not r.on_gpu, r.device["slug"]))


def _read(path: Path, rel: Path) -> tuple[str, Any]:
    """The file's text (for line numbers) and its parsed JSON; a file larger than any results
    file needs is refused unread."""
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise BenchmarkError(
                f"{rel}:1: a results file of {size:,} bytes, more than the {MAX_BYTES:,} a "
                "benchmark's rows need: refused unread"
            )
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise BenchmarkError(f"{rel}: cannot read results file: {exc.strerror}") from exc
    try:
        return text, json.loads(text)
    except json.JSONDecodeError as exc:
        raise BenchmarkError(f"{rel}:{exc.lineno}: malformed JSON: {exc.msg}") from exc


def code_hash(entry: Path, root: Path) -> str:
    """Current hash of the measuring code ``entry`` (relative to ``root``) and what it imports."""
    if not (root / entry).is_file():
        raise BenchmarkError(f"{entry.as_posix()}: measuring code is missing")
    try:
        return _code_hash(root / entry, root)["sha256"]
    except (OSError, SyntaxError) as exc:
        raise BenchmarkError(f"{entry.as_posix()}: cannot hash the measuring code: {exc}") from exc
