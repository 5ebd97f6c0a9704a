"""Where a benchmark result came from, and whether the code that produced it has changed since.

A results file is only worth showing if a reader can tell what produced it: which device, which
torch and CUDA, which commit, which shapes, and, above all, which version of the measuring code.
The code hash itself lives in ``codehash.py``, which the site build imports too, so the writer
and the build can never disagree about what "current" means.

Standard library only (plus torch for the device description): it must run on a GPU machine that
has nothing but torch and pytest.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess
from pathlib import Path
from typing import Any

from codehash import code_hash

SCHEMA_VERSION = 2  # the format, described in snippets/benchmark_views/results.schema.json


def _git(root: Path, *args: str) -> str | None:
    """Output of a git command, or None where git or the repository is absent."""
    try:
        done = subprocess.run(
            ["git", *args], cwd=root, capture_output=True, text=True, timeout=10, check=True
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip()


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def slug(text: str) -> str:
    """``"NVIDIA H200"`` -> ``"nvidia-h200"``: the device part of a results file name."""
    out = "".join(ch if ch.isalnum() else "-" for ch in text.lower())
    return "-".join(part for part in out.split("-") if part) or "device"


def describe_device(device: Any) -> dict[str, Any]:
    """Name, kind and file-name slug of a torch device (CPU results all share the slug "cpu")."""
    import torch

    if device.type == "cuda":
        props = torch.cuda.get_device_properties(device)
        return {
            "type": "cuda",
            "name": props.name,
            "slug": slug(props.name),
            "memory_bytes": props.total_memory,
        }
    return {
        "type": "cpu",
        "name": _cpu_name(),
        "slug": "cpu",
        "threads": torch.get_num_threads(),
    }


def collect(device: Any, entry: Path, root: Path) -> dict[str, Any]:
    """Everything a reader needs to judge a results file; git is optional."""
    import torch

    code = code_hash(entry, root)
    commit = _git(root, "rev-parse", "HEAD")
    dirty = None
    if commit is not None:
        status = _git(root, "status", "--porcelain", "--", *code["files"])
        dirty = None if status is None else bool(status)
    return {
        "device": describe_device(device),
        "torch": torch.__version__,
        "cuda": torch.version.cuda if device.type == "cuda" else None,
        "python": platform.python_version(),
        "platform": platform.platform(terse=True),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),  # noqa: UP017 (the GPU machine may run Python < 3.11)
        "git_commit": commit,
        "code_modified_since_commit": dirty,
        "code": code,
    }


def results_path(directory: Path, benchmark: str, device_slug: str) -> Path:
    return directory / f"{benchmark}-{device_slug}.json"


def write_results(results: dict[str, Any], directory: Path) -> Path:
    """Write ``results`` as ``<benchmark>-<device slug>.json``, formatted for small diffs."""
    path = results_path(directory, results["benchmark"], results["provenance"]["device"]["slug"])
    directory.mkdir(parents=True, exist_ok=True)
    text = json.dumps(results, indent=2, ensure_ascii=False) + "\n"
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)  # never leave a half-written file for the site build to choke on
    return path


def is_current(path: Path, root: Path) -> bool:
    """True if ``path`` exists, parses, and was produced by the code as it is now."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        code = data["provenance"]["code"]
        return code_hash(root / code["entry"], root)["sha256"] == code["sha256"]
    except (OSError, ValueError, KeyError, TypeError):
        return False


if __name__ == "__main__":
    import torch

    here = Path(__file__).resolve().parent
    found = collect(torch.device("cpu"), here / "checkpointing.py", here.parent)
    print(json.dumps(found, indent=2))  # what a CPU results file would record about this machine
