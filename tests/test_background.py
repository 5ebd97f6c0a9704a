"""The build's second process (tools/buildkit/workers.py): it really is another process, its
failures reach the build, and it is not used where forking would not help or would not be safe."""

from __future__ import annotations

import itertools
import os
import threading

import pytest
from conftest import ROOT
from mkdocs_course.buildkit import workers as background
from mkdocs_course.buildkit.workers import Background


def fail() -> None:
    raise ValueError("the job failed")


@pytest.fixture
def jobs():
    runner = Background()
    yield runner
    runner.close()


def test_jobs_run_in_another_process_and_their_errors_reach_the_build(jobs, monkeypatch):
    monkeypatch.setattr(background, "_may_fork", lambda: True)
    assert jobs.submit(os.getpid).result(timeout=60) != os.getpid()
    with pytest.raises(ValueError, match="the job failed"):
        jobs.submit(fail).result(timeout=60)
    assert jobs.submit(sum, [1, 2, 3]).result(timeout=60) == 6  # the worker survives a failure


def test_workers_run_below_the_builds_priority(jobs, monkeypatch):
    """MkDocs, in the build's process, is what the build waits for: the workers yield to it."""
    monkeypatch.setattr(background, "_may_fork", lambda: True)
    here = os.nice(0)
    assert jobs.submit(os.nice, 0).result(timeout=60) == min(here + background.NICENESS, 19)


def test_without_a_second_core_or_with_other_threads_jobs_run_here(jobs, monkeypatch):
    monkeypatch.setattr(background, "_may_fork", lambda: False)
    assert jobs.submit(os.getpid).result() == os.getpid()
    with pytest.raises(ValueError, match="the job failed"):
        jobs.submit(fail).result()


def test_a_process_running_other_threads_is_not_forked(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert not background._may_fork()
    finally:
        stop.set()
        other.join()
    assert background._may_fork() == (threading.active_count() == 1)


def test_one_core_is_not_forked(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0}, raising=False)
    assert not background._may_fork()


@pytest.mark.parametrize("fork", [True, False])
def test_small_jobs_travel_in_batches_and_each_keeps_its_result_or_error(jobs, monkeypatch, fork):
    monkeypatch.setattr(background, "_may_fork", lambda: fork)
    sent = []
    real_submit = jobs.submit
    monkeypatch.setattr(
        jobs, "submit", lambda fn, *a, **k: sent.append(1) or real_submit(fn, *a, **k)
    )
    count = background.BATCH + 3
    futures = [jobs.submit_small(fail if n == 5 else abs, -n) for n in range(count)]
    assert len(sent) == 1  # one full batch went; the last three wait for flush()
    jobs.flush()
    assert len(sent) == 2
    for n, future in enumerate(futures):
        if n == 5:
            with pytest.raises(TypeError):  # fail() takes no argument: that error, for this job
                future.result(timeout=60)
        else:
            assert future.result(timeout=60) == n
    jobs.flush()
    assert len(sent) == 2  # nothing left to send


def test_closing_cancels_small_jobs_not_sent(jobs, monkeypatch):
    monkeypatch.setattr(background, "_may_fork", lambda: True)
    future = jobs.submit_small(abs, -1)
    jobs.close()
    assert future.cancelled()


@pytest.mark.parametrize("fork", [True, False])
def test_a_job_is_an_imported_function_that_runs_there(jobs, monkeypatch, fork):
    """Jobs are functions, passed by reference (no names in strings), in a worker or here."""
    monkeypatch.setattr(background, "_may_fork", lambda: fork)
    assert jobs.submit(os.path.join, "a", "b").result(timeout=60) == os.path.join("a", "b")
    with pytest.raises(ValueError, match="the job failed"):
        jobs.submit(fail).result(timeout=60)


def busy_interval(seconds: float) -> tuple[float, float, int]:
    """When this job ran (a worker's clock is the machine's), and in which process."""
    import time

    start = time.monotonic()
    time.sleep(seconds)
    return start, time.monotonic(), os.getpid()


def _overlaps(intervals: list[tuple[float, float, int]]) -> bool:
    ordered = sorted(intervals)
    return any(later[0] < earlier[1] for earlier, later in itertools.pairwise(ordered))


@pytest.mark.parametrize("at_once", [1, 2])
def test_a_limit_runs_that_many_jobs_at_a_time(jobs, monkeypatch, at_once):
    monkeypatch.setattr(background, "_may_fork", lambda: True)
    jobs.submit(sum, []).result(timeout=60)  # both workers started before the timing
    jobs.submit(sum, []).result(timeout=60)
    jobs.limit(at_once)
    futures = [jobs.submit(busy_interval, 0.3) for _ in range(4)]
    intervals = [future.result(timeout=60) for future in futures]
    assert _overlaps(intervals) == (at_once > 1)
    assert len({pid for *_, pid in intervals}) == at_once  # kept to that many workers


def test_each_build_has_its_own_pool_closed_when_it_ends(monkeypatch):
    """No pool outlives its build: the CLI hands its pool to the plugin instead of a global."""
    monkeypatch.setattr(background, "_may_fork", lambda: True)
    with background.build_pool() as pool:
        assert pool.submit(os.getpid).result(timeout=60) != os.getpid()
        with background.build_pool() as other:
            assert other is not pool
    assert pool._lanes == [None] * pool.workers  # its workers were shut down


def test_workers_exit_when_the_build_is_killed(tmp_path):
    """A SIGKILLed build leaves no worker behind as an orphan."""
    import signal
    import subprocess
    import sys
    import time

    script = (
        "import os, time, sys\n"
        "from mkdocs_course.buildkit import workers as background\n"
        "background._may_fork = lambda: True\n"
        "b = background.Background(workers=1)\n"
        "print(b.submit(os.getpid).result(), flush=True)\n"
        "b.submit(time.sleep, 60)\n"
        "time.sleep(60)\n"
    )
    build = subprocess.Popen(
        [sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    worker = int(build.stdout.readline())
    assert worker != build.pid
    os.kill(build.pid, signal.SIGKILL)
    build.wait(timeout=10)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(worker, 0)
        except ProcessLookupError:
            return
        with open(f"/proc/{worker}/stat") as stat:  # a zombie waiting for init is gone too
            if stat.read().split(")")[-1].split()[0] == "Z":
                return
        time.sleep(0.1)
    os.kill(worker, signal.SIGKILL)
    raise AssertionError(f"worker {worker} outlived its killed parent")
