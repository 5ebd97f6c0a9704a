"""Finding and reading results files, and deciding whether they are stale.

Everything the views need to know about a file before drawing it lives here, so the views only
ever see a validated :class:`Results`. Parsed files and code hashes are cached by modification
time: re-rendering unchanged results (every page of a live-reload build) costs next to nothing.

Staleness uses the *same* hash function as the test that writes a file (``snippets/provenance.py``,
loaded by path), so "stale" means one thing to the writer and to the build.
"""

from __future__ import annotations

import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from tools.benchmarks.errors import BenchmarkError
from tools.benchmarks.schema import validate

RESULTS_DIR = Path("docs/benchmarks")
# benchmark name -> the snippet that measures it (its hash decides staleness)
BENCHMARKS = {"checkpointing": Path("snippets/checkpointing.py")}
REGENERATE = {
    "cpu": "python3 -m tools test tests/test_benchmarks.py",
    "cuda": "bash .ci/gpu-benchmarks.sh (on a machine with CUDA)",
}


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
    def rows(self) -> list[dict[str, Any]]:
        return self.data["rows"]

    @property
    def memory_key(self) -> str:
        """Peak memory where the device counts it (CUDA), else bytes saved for backward."""
        return "peak_bytes" if self.on_gpu else "saved_bytes"

    @property
    def predicted_key(self) -> str:
        """The prediction that :attr:`memory_key` is compared with."""
        return "predicted_peak_bytes" if self.on_gpu else "predicted_saved_bytes"

    @property
    def code_files(self) -> list[str]:
        return self.data["provenance"]["code"]["files"]

    @property
    def regenerate(self) -> str:
        """The command that measures this device again."""
        return REGENERATE["cuda" if self.on_gpu else "cpu"]

    def stale_message(self) -> str:
        files = ", ".join(self.code_files)
        return (
            f"results are stale: the measuring code ({files}) changed since; "
            f"regenerate: {self.regenerate}"
        )


_FILE_CACHE: dict[Path, tuple[tuple[int, int], dict[str, Any]]] = {}
_HASH_CACHE: dict[tuple[Any, ...], str] = {}
_SNIPPETS: dict[Path, tuple[int, ModuleType]] = {}


def results_files(name: str, root: Path) -> list[Path]:
    """The results files of benchmark ``name`` (what a live-reload server should watch)."""
    return sorted((root / RESULTS_DIR).glob(f"{name}-*.json"))


def load_results(name: str, root: Path) -> list[Results]:
    """Every device's results for ``name``, GPUs first; raises if there are none."""
    paths = results_files(name, root)
    if not paths:
        raise BenchmarkError(
            f"{(RESULTS_DIR / f'{name}-<device>.json').as_posix()}: no results file; run "
            f"{REGENERATE['cpu']} to measure on CPU"
        )
    current = code_hash(BENCHMARKS[name], root)
    loaded = []
    for path in paths:
        rel = path.relative_to(root)
        data = _read(path, rel)
        validate(data, rel, name)
        loaded.append(Results(rel, data, data["provenance"]["code"]["sha256"] != current))
    return sorted(loaded, key=lambda r: (not r.on_gpu, r.device["slug"]))


def _read(path: Path, rel: Path) -> dict[str, Any]:
    """Parsed JSON, cached by (mtime, size): unchanged files are read once per process."""
    try:
        stat = path.stat()
        key = (stat.st_mtime_ns, stat.st_size)
        cached = _FILE_CACHE.get(path)
        if cached and cached[0] == key:
            return cached[1]
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise BenchmarkError(f"{rel}: cannot read results file: {exc.strerror}") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BenchmarkError(f"{rel}:{exc.lineno}: malformed JSON: {exc.msg}") from exc
    _FILE_CACHE[path] = (key, data)
    return data


def snippet_module(name: str, root: Path) -> ModuleType:
    """``snippets/<name>.py``, loaded by path and cached by modification time.

    The build shares definitions with the snippets this way (the code hash, the memory model)
    without importing the harness itself, which needs torch.
    """
    path = (root / "snippets" / f"{name}.py").resolve()
    try:
        mtime = path.stat().st_mtime_ns
    except OSError as exc:
        raise BenchmarkError(f"snippets/{name}.py: missing ({exc.strerror})") from exc
    cached = _SNIPPETS.get(path)
    if cached and cached[0] == mtime:
        return cached[1]
    spec = importlib.util.spec_from_file_location(f"_course_{name}_{len(_SNIPPETS)}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    _SNIPPETS[path] = (mtime, module)
    return module


def code_hash(entry: Path, root: Path) -> str:
    """Current hash of the measuring code, cached by the snippets' modification times."""
    folder = root / entry.parent
    try:
        key = (
            str(root.resolve()),
            entry.as_posix(),
            *sorted((p.name, p.stat().st_mtime_ns, p.stat().st_size) for p in folder.glob("*.py")),
        )
    except OSError as exc:
        raise BenchmarkError(f"{entry.parent}: cannot list the measuring code: {exc}") from exc
    if key not in _HASH_CACHE:
        if not (root / entry).is_file():
            raise BenchmarkError(f"{entry.as_posix()}: measuring code is missing")
        _HASH_CACHE[key] = snippet_module("provenance", root).code_hash(root / entry, root)[
            "sha256"
        ]
    return _HASH_CACHE[key]
