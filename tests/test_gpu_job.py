"""Hostile input, third pass (#41): the GPU job ships only what its harness measured.

Module-level code added to a snippet ran under ``.ci/gpu-benchmarks.sh`` before the CUDA check
and wrote ``docs/benchmarks/checkpointing-nvidia-a100.json``, which the job's copy loop would
have shipped, attested and published as measured. Here a stand-in Python plays torch, CUDA and
pytest (the real run needs a GPU), and its "pytest" does what contributor code could do; the
script runs on a copy of the repository's ``.ci/`` so nothing here touches ``docs/``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from test_publishing import _gpu_memory

ROOT = Path(__file__).resolve().parents[1]
DEVICE = "NVIDIA H200"
EXPECTED = "checkpointing-nvidia-h200.json"


def _fake_python(path: Path, calls: Path, during_pytest: str, cuda: bool = True) -> Path:
    """A stand-in for ``$PYTHON``: logs each call's arguments, answers the device check, and
    runs ``during_pytest`` (shell) as its pytest."""
    device = f"printf '{DEVICE}\\t{EXPECTED}\\n'" if cuda else "exit 1"
    path.write_text(
        "#!/bin/bash\n"
        f'echo "$*" >> "{calls}"\n'
        'case "$*" in\n'
        f"  *--device*) {device};;\n"
        f'  *"-m pytest"*) {during_pytest};;\n'
        "esac\nexit 0\n"
    )
    path.chmod(0o755)
    return path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / ".ci", repo / ".ci")
    (repo / "docs" / "benchmarks").mkdir(parents=True)
    (repo / "docs" / "benchmarks" / "checkpointing-cpu.json").write_text("{}\n")
    return repo


def _run(repo: Path, during_pytest: str, **kwargs) -> tuple[subprocess.CompletedProcess, Path]:
    calls = repo / "calls.log"
    fake = _fake_python(repo / "fake-python", calls, during_pytest, **kwargs)
    env = {**os.environ, "PYTHON": str(fake), "OUT": str(repo / "out")}
    env.pop("BENCHMARK_RESULTS_DIR", None)
    done = subprocess.run(
        ["bash", repo / ".ci" / "gpu-benchmarks.sh"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return done, calls


WRITE = 'echo "{\\"date\\": \\"$RANDOM\\"}" > '


def test_the_file_for_this_device_alone_is_shipped(repo):
    done, _ = _run(repo, WRITE + f"docs/benchmarks/{EXPECTED}")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (repo / "out").iterdir()) == [EXPECTED, "gpu-benchmarks.log"]


@pytest.mark.parametrize(
    "hostile",
    [
        "docs/benchmarks/checkpointing-nvidia-a100.json",  # another device's name (the attack)
        "docs/benchmarks/checkpointing-cpu.json",  # a committed file rewritten
        "out/checkpointing-nvidia-a100.json",  # straight into what the job uploads
        "docs/benchmarks/notes.txt",
    ],
)
def test_any_other_file_the_run_changes_fails_the_job_and_ships_nothing(repo, hostile):
    done, _ = _run(repo, f"{WRITE}docs/benchmarks/{EXPECTED}; {WRITE}{hostile}")
    assert done.returncode == 1
    assert "the run changed files other than docs/benchmarks/" + EXPECTED in done.stderr
    assert hostile in done.stderr
    assert not (repo / "out" / EXPECTED).exists()


def test_a_deleted_results_file_fails_the_job(repo):
    done, _ = _run(
        repo, f"{WRITE}docs/benchmarks/{EXPECTED}; rm docs/benchmarks/checkpointing-cpu.json"
    )
    assert done.returncode == 1 and "checkpointing-cpu.json" in done.stderr


def test_a_run_that_writes_no_file_for_this_device_fails(repo):
    done, _ = _run(repo, "true")
    assert done.returncode == 1
    assert f"wrote no docs/benchmarks/{EXPECTED} (the file for {DEVICE})" in done.stderr
    assert not (repo / "out" / EXPECTED).exists()


def test_the_cuda_check_comes_before_any_course_code(repo):
    """Without CUDA the job stops at the device check: the memory check (which imports the
    snippets) and pytest (the tests) never run."""
    done, calls = _run(repo, WRITE + f"docs/benchmarks/{EXPECTED}", cuda=False)
    assert done.returncode == 1
    made = calls.read_text().splitlines()
    assert made[-1] == ".ci/gpu_memory.py --device", made
    assert all("import sys; del sys.path[0]; import" in call for call in made[:-1]), made


def test_a_script_rewritten_by_the_run_still_does_what_it_said(repo):
    """The run rewrites the script mid-run; bash has read the whole of it already."""
    script = repo / ".ci" / "gpu-benchmarks.sh"
    done, _ = _run(
        repo, f"{WRITE}docs/benchmarks/{EXPECTED}; {WRITE}out/x.json; echo 'exit 0' > {script}"
    )
    assert done.returncode == 1 and "out/x.json" in done.stderr


def test_the_device_check_imports_torch_alone():
    code = (
        "import runpy, sys; sys.argv = ['gpu_memory.py', '--device']\n"
        "try:\n    runpy.run_path('.ci/gpu_memory.py', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "course = ('checkpointing', 'provenance', 'tools', 'mkdocs_course')\n"
        "print(sorted(m for m in sys.modules if m in course))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout + done.stderr


def test_the_device_check_names_the_file_the_harness_writes(monkeypatch, capsys):
    sys.path.insert(0, str(ROOT / "snippets"))
    try:
        import provenance
    finally:
        sys.path.remove(str(ROOT / "snippets"))
    module = _gpu_memory()
    for name in (DEVICE, "NVIDIA A100-SXM4-80GB", " Tesla  V100 ", "--", "Radeon™ Pro", "x_y²"):
        path = provenance.results_path(Path(), "checkpointing", provenance.slug(name))
        assert module.results_file(name) == path.name, name
    fake = SimpleNamespace(is_available=lambda: True, get_device_name=lambda index: DEVICE)
    monkeypatch.setattr(module.torch, "cuda", fake)
    assert module.main(["--device"]) == 0
    assert capsys.readouterr().out == f"{DEVICE}\t{EXPECTED}\n"
