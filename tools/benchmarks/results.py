"""Finding and reading results files, and deciding whether they are stale.

Everything the views need to know about a file before drawing it lives here, so the views only
ever see a validated :class:`Results`. Validating and hashing the measuring code take tens of
milliseconds, and a build asks for the same results once per embed (and once more to check
them), so :func:`load_results` remembers its answer for as long as the bytes of the results
files, of their schemas and of every file the last hash covered stay the same: a file edited
during ``serve`` is read again.

Staleness uses the hash function the course declares (``code_hash`` in its ``benchmarks``
setting), the one its measuring side writes into a file, so "stale" means one thing to the
writer and to the build.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import BenchmarkError
from .registry import Benchmark, Declared, FileKind
from .schema import MAX_BYTES, Validators, device_type, parse, validate

# Results files (by name) that the job publishing the site measured itself (publish.yml sets it).
# Any other file was submitted: a committed file's device and numbers are only what it says.
MEASURED_HERE_ENV = "COURSE_MEASURED_HERE"


@dataclass(frozen=True)
class Results:
    """One parsed, validated results file."""

    path: Path  # relative to the course root, for messages
    data: dict[str, Any]
    stale: bool
    source: FileKind  # the declared kind of file it is, with the code that makes it

    @property
    def device(self) -> dict[str, Any]:
        return self.data["provenance"]["device"]

    @property
    def kind(self) -> str:
        """The kind of file (its device type): ``cpu``, ``cuda`` or one the course declares."""
        return self.source.kind

    @property
    def on_gpu(self) -> bool:
        return self.device["type"] == "cuda"

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
        """The command that makes this kind of file again."""
        return self.source.regenerate

    def stale_message(self) -> str:
        files = ", ".join(self.code_files)
        return (
            f"results are stale: the measuring code ({files}) changed since; "
            f"regenerate: {self.regenerate}"
        )


def results_files(declared: Declared, root: Path) -> list[Path]:
    """The results files of a benchmark (what a live-reload server should watch)."""
    return sorted((root / declared.results).glob(f"{declared.name}-*.json"))


def load_results(benchmark: Benchmark, root: Path) -> list[Results]:
    """Every file's results, in the order of the declared kinds; raises if there are none."""
    declared = benchmark.declared
    paths = results_files(declared, root)
    key = (declared, root.resolve(), tuple(paths))
    stamp = _stamp(paths)
    cached = _loaded.get(key)
    if cached is not None and cached[0] == stamp and cached[1] == _stamp(cached[2]):
        return list(cached[3])
    inputs = [root / kind.schema for kind in declared.files]
    loaded = _load_results(benchmark, root, paths, inputs)
    _loaded.clear()  # one version of the inputs at a time
    _loaded[key] = (stamp, _stamp(inputs), inputs, loaded)
    return list(loaded)


_loaded: dict[tuple, tuple] = {}


def _stamp(paths: list[Path]) -> tuple:
    return tuple(hashlib.sha256(p.read_bytes()).digest() if p.is_file() else b"" for p in paths)


def _load_results(
    benchmark: Benchmark, root: Path, paths: list[Path], inputs: list[Path]
) -> list[Results]:
    """The files read, checked and judged; ``inputs`` gets every file the hashes covered."""
    declared = benchmark.declared
    if not paths:
        commands = " or ".join(f"{k.regenerate} ({k.kind})" for k in declared.files)
        raise BenchmarkError(
            f"{(declared.results / f'{declared.name}-<device>.json').as_posix()}: no results "
            f"file; make one with {commands}"
        )
    current: dict[str, str] = {}
    validators = Validators(root)
    loaded = []
    for path in paths:
        rel = path.relative_to(root)
        text, data = _read(path, rel)
        kind = declared.kind(device_type(data)) or declared.files[0]
        validate(data, text, rel, declared.name, validators.get(kind.schema), validators.envelope)
        if kind.kind != device_type(data):
            kinds = ", ".join(k.kind for k in declared.files)
            raise BenchmarkError(
                f"{rel}: provenance.device.type {device_type(data)!r} is no kind of file the "
                f"benchmark declares ({kinds})"
            )
        if kind.kind not in current:
            code = code_hash(benchmark, kind, root)
            inputs += [root / name for name in code["files"]]
            current[kind.kind] = code["sha256"]
        stale = data["provenance"]["code"]["sha256"] != current[kind.kind]
        loaded.append(Results(rel, data, stale, kind))
    order = [k.kind for k in declared.files]
    return sorted(loaded, key=lambda r: (order.index(r.kind), r.device["slug"]))


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
        data = path.read_bytes()
    except OSError as exc:
        raise BenchmarkError(f"{rel}: cannot read results file: {exc.strerror}") from exc
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:  # JSON is UTF-8 (RFC 8259), without a byte-order mark
        line = data[: exc.start].count(b"\n") + 1
        raise BenchmarkError(
            f"{rel}:{line}: not UTF-8 (byte 0x{data[exc.start]:02x}); save it as UTF-8"
        ) from exc
    return text, parse(text, rel)


def code_hash(benchmark: Benchmark, kind: FileKind, root: Path) -> dict[str, Any]:
    """The declared function's hash of a kind's measuring code (``sha256``, and the ``files`` it
    covers, relative to ``root``)."""
    if not (root / kind.code).is_file():
        raise BenchmarkError(f"{kind.code.as_posix()}: measuring code is missing")
    try:
        return benchmark.code_hash(root / kind.code, root)
    except (OSError, SyntaxError) as exc:
        raise BenchmarkError(
            f"{kind.code.as_posix()}: cannot hash the measuring code: {exc}"
        ) from exc
