"""The project's CI: the test suite at the commits that matter, and the benchmark.

For a pull request from ``base`` (upstream's main) to ``head`` (its last commit) it runs, in
parallel, each in its own checkout and its own process (forked by one :mod:`.jobrunner`, which
imports torch once for all of them):

- ``branch``: the whole suite on ``head``;
- ``existing``: upstream's own test files on ``head``'s code, so a change to an existing test
  cannot hide a change of behaviour that callers rely on; run with upstream's pytest
  configuration and ``--noconftest``, so a ``conftest.py`` (or an ``addopts`` plugin) of the pull
  request cannot rewrite their failures as passes either;
  for a bug fix, a maintainer's own test (:data:`MAINTAINERS_TEST`) runs with them;
- ``on_main``: the tests the pull request adds or changes on ``base``'s code, where a
  regression test must fail;
- for a bug fix, ``wrong:<key>``: those tests on each wrong fix the checker holds
  (:mod:`.wrongfixes`, ``dim=0`` among them): a test that proves the fix fails on every one, and
  the reviewer asks for an input that tells apart each one it misses;
- for a feature, ``bench``: upstream's ``benchmarks/bench.py`` (taken from ``base``, so the pull
  request cannot change how it is measured) on ``head``'s code.

A result is kept in the workspace, keyed by both commits, so checking again is instant.
"""

from __future__ import annotations

import ast
import fnmatch
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path, PurePosixPath

from .gitio import PracticeError, export, git, show
from .wrongfixes import WRONG_FIXES

SIMILARITY = "simkit/similarity.py"
NEEDS = ("pytest", "torch")  # what CI imports; docs/practice.md and the build's environment say so
PYTEST_FILES = ["test_*.py", "*_test.py"]  # pytest's default ``python_files``
# A maintainer's own check of a fix for #1234, with 1-D inputs the issue does not show, against
# torch's own function: a fix that special-cases the example passes the learner's test
# and fails these. It runs in the ``existing`` job, as upstream's tests do, on the branch's code.
MAINTAINERS = "tests/test_maintainers_1234.py"
MAINTAINERS_TEST = """import pytest
import torch
import torch.nn.functional as F
from simkit.similarity import cosine_similarity

PAIRS = {
    "orthogonal": ([1.0, 0.0, 0.0], [0.0, 2.0, 0.0]),
    "parallel": ([2.0, 4.0], [1.0, 2.0]),
    "opposite": ([0.5, -1.5, 2.0, 3.0], [-1.0, 3.0, -4.0, -6.0]),
}


@pytest.mark.parametrize("pair", PAIRS)
def test_two_vectors_match_torch(pair):
    a, b = (torch.tensor(values) for values in PAIRS[pair])
    expected = F.cosine_similarity(a, b, dim=0)
    assert torch.allclose(cosine_similarity(a, b).reshape(-1), expected.reshape(-1), atol=1e-6)
"""
PYTEST_CONFIGS = ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")


def collected(repo: Path, commit: str) -> list[str]:
    """The test files pytest collects at ``commit``, by its own rules: files matching
    ``python_files`` (pytest's default unless the project's pyproject.toml sets it) under
    ``testpaths`` (the project's own, else everywhere)."""
    try:
        config = tomllib.loads(show(repo, commit, "pyproject.toml") or "")
    except tomllib.TOMLDecodeError:
        config = {}
    options = config.get("tool", {}).get("pytest", {}).get("ini_options", {})
    patterns = options.get("python_files", PYTEST_FILES)
    patterns = patterns.split() if isinstance(patterns, str) else list(patterns)
    roots = [PurePosixPath(r) for r in options.get("testpaths", ["."])]
    files = git("ls-tree", "-r", "--name-only", commit, cwd=repo).splitlines()
    return sorted(
        path
        for path in files
        if any(fnmatch.fnmatch(PurePosixPath(path).name, p) for p in patterns)
        and any(r == PurePosixPath(".") or r in PurePosixPath(path).parents for r in roots)
    )


def changed_tests(repo: Path, base: str, head: str) -> list[str]:
    """Test files the pull request adds or modifies (relative to where it forked from main)."""
    out = git("diff", "--name-status", "--no-renames", f"{base}...{head}", cwd=repo)
    changed = {
        path
        for status, _, path in (line.partition("\t") for line in out.splitlines())
        if status in {"A", "M"}
    }
    return sorted(changed & set(collected(repo, head)))


def assertions(repo: Path, head: str, tests: list[str]) -> dict[str, bool]:
    """For each test id, whether its function asserts anything: an ``assert`` statement or a
    call of an ``assert...`` function (``torch.testing.assert_close``) or ``pytest.raises``."""
    found: dict[str, bool] = {}
    for test in tests:
        path, _, name = test.partition("::")
        name = name.rsplit("::", 1)[-1].split("[")[0]
        try:
            tree = ast.parse(show(repo, head, path) or "")
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
                found[test] = any(_asserts(inner) for inner in ast.walk(node))
    return found


def _asserts(node: ast.AST) -> bool:
    if isinstance(node, ast.Assert):
        return True
    if isinstance(node, ast.Call):
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        return called.startswith("assert") or called == "raises"
    return False


def new_tests(result: dict, run: str = "on_main") -> dict[str, str | None]:
    """The outcomes in ``run`` of the tests the pull request adds (those upstream lacks)."""
    existing = result.get("existing", {}).get("tests", {})
    return {t: m for t, m in result.get(run, {}).get("tests", {}).items() if t not in existing}


JUNIT = ".junit.xml"
RUNNER = Path(__file__).with_name("jobrunner.py")


class Jobs:
    """CI's jobs, run by one :mod:`.jobrunner` process that imports what they need once.

    The runner starts (and imports) as soon as this is made; :meth:`add` collects the jobs while
    their checkouts are made, and :meth:`results` hands them over and waits. Each job's output
    goes to files beside its checkout, so a job that prints a lot cannot block on a pipe."""

    def __init__(self, logs: Path) -> None:
        self.logs, self.jobs = logs, []
        env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "PYTEST_ADDOPTS"}}
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        self.process = subprocess.Popen(
            [sys.executable, "-P", str(RUNNER), *NEEDS],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )

    def pytest(self, name: str, folder: Path, targets: list[str], *extra: str) -> None:
        """The tests ``targets`` (the whole suite when empty) of the checkout ``folder``, with
        pytest's options ``extra``."""
        junit = folder / JUNIT
        options = ["-q", "-p", "no:cacheprovider", "-o", "junit_family=xunit1", *extra]
        argv = ["-m", "pytest", *options, f"--junitxml={junit}", *targets]
        self.add(name, folder, [str(folder)], argv, merged=True)

    def add(self, name: str, cwd: Path, path: list[str], argv: list[str], *, merged: bool) -> None:
        """A job ``python ARGV`` in ``cwd``; with ``merged``, its stderr goes to its stdout."""
        self.logs.mkdir(parents=True, exist_ok=True)
        out = self.logs / f"{len(self.jobs)}.out"
        err = out if merged else out.with_suffix(".err")
        job = {"name": name, "cwd": str(cwd), "path": path, "argv": argv}
        self.jobs.append({**job, "stdout": str(out), "stderr": str(err)})

    def results(self) -> dict[str, tuple[int, str, str]]:
        """{name: (exit code, stdout, stderr)} of every job, once all have ended."""
        said = self.process.communicate(json.dumps(self.jobs).encode())[0].decode()
        try:
            codes = json.loads(said.strip().splitlines()[-1])
        except (IndexError, json.JSONDecodeError):
            raise PracticeError(
                f"CI's job runner failed ({sys.executable} {RUNNER}): exit code "
                f"{self.process.returncode}, it said {said[-500:]!r}"
            ) from None
        return {
            job["name"]: (
                codes.get(job["name"], 1),
                _read(job["stdout"]),
                "" if job["stderr"] == job["stdout"] else _read(job["stderr"]),
            )
            for job in self.jobs
        }

    def stop(self) -> None:
        """End the runner before it was given jobs (CI stopped with an error)."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.communicate()


def _read(path: str) -> str:
    file = Path(path)
    return file.read_text("utf-8", "replace") if file.is_file() else ""


def _outcomes(folder: Path, code: int, output: str) -> dict:
    """{"tests": {id: null | failure message}, "output": tail} from pytest's JUnit report."""
    junit = folder / JUNIT
    tests: dict[str, str | None] = {}
    if junit.is_file():
        for case in ET.parse(junit).getroot().iter("testcase"):
            test_id = f"{case.get('file') or case.get('classname')}::{case.get('name')}"
            bad = case.find("failure")
            if bad is None:
                bad = case.find("error")
            if case.find("skipped") is not None:
                continue
            tests[test_id] = None if bad is None else (bad.get("message") or "failed").strip()
    return {"tests": tests, "output": output[-2000:], "returncode": code}


def _bench(code: int, out: str, err: str) -> dict:
    """The benchmark's figures (its last line of output), or what went wrong."""
    lines = out.strip().splitlines()
    try:
        return json.loads(lines[-1])
    except (IndexError, json.JSONDecodeError):
        tail = err.strip().splitlines()[-1:] or [f"no output (exit code {code})"]
        return {"error": f"benchmarks/bench.py failed on your branch: {tail[0]}"}


def run(repo: Path, base: str, head: str, kind: str, scratch: Path) -> dict:
    """Run CI for ``head`` against ``base`` (both commits in ``repo``); see the module's doc."""
    missing = [name for name in NEEDS if importlib.util.find_spec(name) is None]
    if missing:
        raise PracticeError(
            f"CI runs the project's tests with this Python ({sys.executable}), which lacks "
            f"{' and '.join(missing)}: pip install {' '.join(missing)} (a CPU torch is enough)"
        )
    shutil.rmtree(scratch, ignore_errors=True)
    jobs = Jobs(scratch / "logs")
    try:
        result, folders = _jobs(jobs, repo, base, head, kind, scratch)
    except BaseException:
        jobs.stop()
        raise
    for name, (code, out, err) in jobs.results().items():
        if name == "bench":
            result["bench"] = _bench(code, out, err)
        else:
            result[name] = _outcomes(folders[name], code, out)
    result["asserts"] = assertions(repo, head, list(new_tests(result)))
    shutil.rmtree(scratch, ignore_errors=True)
    return result


def _jobs(
    jobs: Jobs, repo: Path, base: str, head: str, kind: str, scratch: Path
) -> tuple[dict, dict[str, Path]]:
    """Make each job's checkout and add the job: the runner imports meanwhile."""
    mine = changed_tests(repo, base, head)
    base_tests = collected(repo, base)
    head_dir = export(repo, head, scratch / "head")
    base_dir = export(repo, base, scratch / "base")
    folders: dict[str, Path] = {}

    def checkout(name: str, code: Path, tests_from: Path, tests: list[str]) -> Path:
        folder = scratch / name
        shutil.copytree(code, folder)
        for test in tests:
            (folder / test).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(tests_from / test, folder / test)
        return folder

    def pytest(name: str, folder: Path, targets: list[str], *extra: str) -> None:
        folders[name] = folder
        jobs.pytest(name, folder, targets, *extra)

    pytest("branch", head_dir, [])
    existing = checkout("existing", head_dir, base_dir, base_tests)
    for config in PYTEST_CONFIGS:  # upstream's own, or none where upstream has none
        (existing / config).unlink(missing_ok=True)
        if (base_dir / config).is_file():
            shutil.copy2(base_dir / config, existing / config)
    targets = base_tests
    if kind == "bug":
        (existing / MAINTAINERS).write_text(MAINTAINERS_TEST, "utf-8")
        targets = [*base_tests, MAINTAINERS]
    pytest("existing", existing, targets, "--noconftest")
    if mine:
        pytest("on_main", checkout("on_main", base_dir, head_dir, mine), mine)
        if kind == "bug":
            for number, wrong in enumerate(WRONG_FIXES):
                folder = checkout(f"wrong-{number}", base_dir, head_dir, mine)
                (folder / SIMILARITY).write_text(wrong.code, "utf-8")
                pytest(f"wrong:{wrong.key}", folder, mine)
    if kind == "feature":
        tools = scratch / "bench"
        shutil.copytree(base_dir / "benchmarks", tools)
        script = [str(tools / "bench.py"), "--json"]
        jobs.add("bench", head_dir, [str(tools)], script, merged=False)
    return {"mine": mine}, folders


def cached(
    cache: Path, repo: Path, base: str, head: str, kind: str, scratch: Path, *, run_now: bool
) -> dict | None:
    """CI's result for (base, head), from the cache or, with ``run_now``, by running it."""
    file = cache / f"{base[:16]}-{head[:16]}.json"
    if file.is_file():
        return json.loads(file.read_text("utf-8"))
    if not run_now:
        return None
    result = run(repo, base, head, kind, scratch)
    cache.mkdir(parents=True, exist_ok=True)
    file.write_text(json.dumps(result, indent=1), "utf-8")
    return result
