"""Run ``python snippets/NAME.py`` commands as forks of one interpreter that imported torch once.

Each snippet started as its own ``python`` process spends seconds of CPU importing torch, and the
snippet tests start every snippet. Here one helper process (this file, run as a script in a fresh
interpreter, so no test's state leaks in) imports torch and runs no torch op, so no thread pool
exists yet; then it forks once per command. Each child sets up what a fresh ``python`` would give
the command: a new ``__main__`` module, ``sys.argv`` as typed, ``sys.path[0]`` the script's
folder (the working directory for ``-m``), stdout and stderr in files of their own, stdin empty,
and the exit code a fresh interpreter would return (an uncaught exception prints its traceback
on stderr and exits 1). Before ``os._exit`` it does what interpreter shutdown does: joins
non-daemon threads, runs ``atexit`` handlers, flushes the streams.

The tests call :func:`run_forked`; the helper process runs :func:`serve`.
"""

from __future__ import annotations

import atexit
import builtins
import gc
import json
import os
import runpy
import signal
import subprocess
import sys
import tempfile
import threading
import time
import types
from importlib.machinery import SourceFileLoader
from pathlib import Path

# What the snippets import from torch; importing runs no op, so forking afterwards is safe.
# ``torch._dynamo`` (with sympy) is imported by torch itself on a snippet's first optimizer or
# profiler: most of that first call's CPU time, in every child that makes one.
SHARED_IMPORTS = (
    "torch",
    "torch._dynamo",
    "torch.distributed",
    "torch.multiprocessing",
    "torch.profiler",
    "torch.utils.checkpoint",
)


class Finished:
    """A command that ran to its end: its exit code and what it wrote."""

    def __init__(self, args: list[str], returncode: int, stdout: str, stderr: str) -> None:
        self.args, self.returncode, self.stdout, self.stderr = args, returncode, stdout, stderr


def run_forked(commands: list[list[str]], cwd: Path, timeout_s: float) -> list[Finished]:
    """Run every ``python ...`` command at once as a fork of one helper; results in order.

    Raises :class:`subprocess.TimeoutExpired` naming a command still running after ``timeout_s``
    (it is killed), and :class:`RuntimeError` with the helper's stderr if the helper fails."""
    for args in commands:
        if args[0] != "python" or len(args) < 2 or (args[1].startswith("-") and args[1] != "-m"):
            raise ValueError(f"not a `python SCRIPT ...` or `python -m MODULE ...` command: {args}")
    with tempfile.TemporaryDirectory(prefix="snippet-forks-") as folder:
        jobs = Path(folder) / "jobs.json"
        jobs.write_text(json.dumps({"timeout_s": timeout_s, "commands": commands}), "utf-8")
        helper = subprocess.run(
            [sys.executable, __file__, str(jobs)],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout_s + 60,  # the helper kills late children itself at timeout_s
        )
        if helper.returncode != 0:
            raise RuntimeError(f"{__file__} failed (exit {helper.returncode}):\n{helper.stderr}")
        codes = json.loads((Path(folder) / "codes.json").read_text("utf-8"))
        results = []
        for number, (args, code) in enumerate(zip(commands, codes, strict=True)):
            if code is None:
                raise subprocess.TimeoutExpired(args, timeout_s)
            out, err = (Path(folder) / f"{number}.{kind}" for kind in ("out", "err"))
            results.append(Finished(args, code, _read(out), _read(err)))
        return results


def _read(path: Path) -> str:
    """What ``subprocess.Popen(..., text=True)`` would have decoded from the stream."""
    return path.read_bytes().decode("utf-8").replace("\r\n", "\n")


def serve(jobs: Path) -> None:
    """Fork a child per command in ``jobs``, wait for them, write their exit codes."""
    spec = json.loads(jobs.read_text("utf-8"))
    for module in SHARED_IMPORTS:
        __import__(module)
    # What is imported now lives as long as every child: left out of their garbage collections
    # (the harness runs gc.collect() between strategies), as the test session does.
    gc.freeze()
    sys.stdout.flush()
    sys.stderr.flush()
    children: dict[int, int] = {}
    for number, args in enumerate(spec["commands"]):
        out, err = (jobs.parent / f"{number}.{kind}" for kind in ("out", "err"))
        pid = os.fork()
        if pid == 0:
            _child(args[1:], out, err)  # never returns
        children[pid] = number
    codes: list[int | None] = [None] * len(children)
    deadline = time.monotonic() + spec["timeout_s"]
    while children and time.monotonic() < deadline:
        pid, status = os.waitpid(-1, os.WNOHANG)
        if pid == 0:
            time.sleep(0.05)
            continue
        codes[children.pop(pid)] = os.waitstatus_to_exitcode(status)
    for pid in children:  # past the deadline: their codes stay None
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    (jobs.parent / "codes.json").write_text(json.dumps(codes), "utf-8")


def _child(argv: list[str], out: Path, err: Path) -> None:
    """Become ``python *argv`` with its streams in ``out`` and ``err``; exit with its code."""
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    for fd, path in ((1, out), (2, err)):
        target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(target, fd)
        os.close(target)
    code = 0
    try:
        code = _run_main(argv)
    except SystemExit as stop:
        code = _exit_code(stop)
    except BaseException as error:  # what the interpreter does with an uncaught one
        error.__traceback__ = _from_script(error.__traceback__, argv)  # what excepthook shows
        sys.excepthook(type(error), error, error.__traceback__)
        code = 1
    try:
        threading._shutdown()  # type: ignore[attr-defined]  # as interpreter exit does
        atexit._run_exitfuncs()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                code = code or 120  # what Python returns when the final flush fails
        os._exit(code)


def _run_main(argv: list[str]) -> int:
    """Run ``python *argv``'s ``__main__`` here; 0 unless it raises."""
    if argv[0] == "-m":
        sys.argv = ["-m", *argv[2:]]
        sys.path[0] = os.getcwd()
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        return 0
    script = Path(argv[0]).resolve()
    if not script.is_file():
        print(f"{sys.executable}: can't open file {str(script)!r}: no such file", file=sys.stderr)
        return 2
    sys.argv = list(argv)
    sys.path[0] = str(script.parent)
    main = types.ModuleType("__main__")
    main.__dict__.update(
        __file__=str(script),
        __builtins__=builtins,
        __loader__=SourceFileLoader("__main__", str(script)),
        __cached__=None,
    )
    sys.modules["__main__"] = main
    exec(compile(script.read_bytes(), str(script), "exec"), main.__dict__)
    return 0


def _exit_code(stop: SystemExit) -> int:
    """The exit code ``python`` gives for an uncaught ``SystemExit``."""
    if stop.code is None:
        return 0
    if isinstance(stop.code, int):
        return stop.code & 0xFF
    print(stop.code, file=sys.stderr)
    return 1


def _from_script(
    traceback: types.TracebackType | None, argv: list[str]
) -> types.TracebackType | None:
    """The traceback from the script's own frame on, as a fresh ``python SCRIPT`` prints it."""
    if argv[0] == "-m":
        return traceback
    script, entry = str(Path(argv[0]).resolve()), traceback
    while entry is not None and entry.tb_frame.f_code.co_filename != script:
        entry = entry.tb_next
    return entry or traceback


if __name__ == "__main__":
    serve(Path(sys.argv[1]))
