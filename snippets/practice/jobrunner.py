"""CI's jobs, each in its own process, sharing one import of what every job imports.

Every CI job (the suite at a commit, the new tests on main and on each wrong fix, the
benchmark) imports torch, which costs seconds of CPU each time, and there are up to seven of
them for one check. So CI starts this script once (``python -P jobrunner.py pytest torch``): it
imports the modules it is given, reads the jobs as JSON from stdin, and forks one child per
job, which runs it in its own folder with its own ``sys.path``, output files and exit code, as
a process of its own would. Nothing of a job reaches another or this parent, which only
imported and waits. It prints ``{name: exit code}`` as JSON.

It is started while CI still makes the jobs' checkouts, so the import overlaps with that work.
The parent only imports, and runs nothing of torch's, so forking it is safe on Linux, where
it is done; elsewhere (Windows has no fork, and Python counts it unsafe on macOS, whose system
libraries start threads) each job is started as its own process instead (``--one``), which
imports for itself. ``-P`` keeps this package's folder off ``sys.path``, so
none of the checker's modules can shadow one that a job imports.

A job is ``{"name", "cwd", "path": [folders first on sys.path], "stdout", "stderr",
"argv": [...]}``: ``argv`` starts with ``-m pytest`` or with a script's path.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import runpy
import subprocess
import sys
import warnings
from importlib.metadata import entry_points


def run_one(job: dict) -> int:
    """Run ``job`` in this process, as ``python ARGV`` would in its folder; its exit code."""
    os.chdir(job["cwd"])
    sys.path[:0] = job["path"]
    for fd, name in ((1, "stdout"), (2, "stderr")):
        # Both names may be one file, opened once, so that pytest's lines keep their order.
        if name == "stderr" and job["stderr"] == job["stdout"]:
            os.dup2(1, 2)
            continue
        out = os.open(job[name], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(out, fd)
        os.close(out)
    sys.stdout = open(1, "w", encoding="utf-8", errors="replace", closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", encoding="utf-8", errors="replace", closefd=False)  # noqa: SIM115
    argv = job["argv"]
    try:
        if argv[:2] == ["-m", "pytest"]:
            import pytest

            return int(pytest.main(argv[2:]))
        sys.argv = list(argv)
        runpy.run_path(argv[0], run_name="__main__")
        return 0
    except SystemExit as done:
        if done.code is None or isinstance(done.code, int):
            return done.code or 0
        print(done.code, file=sys.stderr)
        return 1
    finally:
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
            sys.stderr.flush()


def _preload(modules: list[str]) -> None:
    """Import ``modules``, and pytest's plugins with pytest, as every job would; a plugin that
    fails to import is left for the jobs to report, as they would without this."""
    for module in modules:
        importlib.import_module(module)
    if "pytest" in modules:
        for plugin in entry_points(group="pytest11"):
            with contextlib.suppress(Exception):
                importlib.import_module(plugin.module)


def _forked(jobs: list[dict]) -> dict[str, int]:
    children = {}
    for job in jobs:
        with warnings.catch_warnings():  # Python 3.12+ warns of a thread torch started at import
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:  # the child: run the job, and never return into the parent's code
            code = 1
            try:
                code = run_one(job)
            finally:
                os._exit(code)
        children[pid] = job["name"]
    ended = {pid: os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) for pid in children}
    return {children[pid]: code for pid, code in ended.items()}


def _spawned(jobs: list[dict]) -> dict[str, int]:
    started = {
        job["name"]: subprocess.Popen(
            [sys.executable, "-P", __file__, "--one", json.dumps(job)], stdin=subprocess.DEVNULL
        )
        for job in jobs
    }
    return {name: process.wait() for name, process in started.items()}


def main(args: list[str]) -> int:
    if args[:1] == ["--one"]:
        return run_one(json.loads(args[1]))
    # ``--fork`` or ``--spawn`` chooses (the tests try both); by default, fork on Linux only.
    spawn = "--spawn" in args or ("--fork" not in args and not sys.platform.startswith("linux"))
    if not spawn:
        _preload([a for a in args if not a.startswith("--")])
    jobs = json.load(sys.stdin)
    codes = (_spawned if spawn else _forked)(jobs)
    print(json.dumps(codes))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
