"""CI's job runner: one process imports what every job needs, each job runs as its own process.

Two jobs of one project that differ only in their code must see their own code, their own
folder and their own exit code, whether the runner forks them (Linux) or starts each as a
process of its own (elsewhere); a script job's stdout and stderr stay apart.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from snippets.practice.ci import RUNNER

TEST = "from simkit import VALUE\n\n\ndef test_value():\n    assert VALUE == 1\n"
SCRIPT = "import sys\nprint('to stderr', file=sys.stderr)\nprint('figures')\nsys.exit(3)\n"


def _project(folder: Path, value: int) -> Path:
    (folder / "simkit").mkdir(parents=True)
    (folder / "simkit" / "__init__.py").write_text(f"VALUE = {value}\n", "utf-8")
    (folder / "test_it.py").write_text(TEST, "utf-8")
    return folder


@pytest.mark.parametrize("mode", ["--fork", "--spawn"])
def test_each_job_runs_in_its_own_folder_with_its_own_code(tmp_path: Path, mode: str):
    jobs = []
    for name, value in (("right", 1), ("wrong", 2)):
        folder = _project(tmp_path / name, value)
        out = str(tmp_path / f"{name}.out")
        argv = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "test_it.py"]
        jobs.append(
            {"name": name, "cwd": str(folder), "path": [str(folder)], "argv": argv}
            | {"stdout": out, "stderr": out}
        )
    script = tmp_path / "bench.py"
    script.write_text(SCRIPT, "utf-8")
    out, err = tmp_path / "bench.out", tmp_path / "bench.err"
    jobs.append(
        {"name": "bench", "cwd": str(tmp_path), "path": [str(tmp_path)], "argv": [str(script)]}
        | {"stdout": str(out), "stderr": str(err)}
    )
    done = subprocess.run(
        [sys.executable, "-P", str(RUNNER), mode, "pytest"],
        input=json.dumps(jobs),
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(done.stdout) == {"right": 0, "wrong": 1, "bench": 3}
    assert "1 passed" in (tmp_path / "right.out").read_text()
    assert "assert 2 == 1" in (tmp_path / "wrong.out").read_text()
    assert out.read_text() == "figures\n" and err.read_text() == "to stderr\n"
