"""The worker processes of a build: one pool per build, so work runs while MkDocs renders pages
in this process.

MkDocs builds on one core. A build makes one pool (:func:`build_pool`: the CLI's build, which
hands it to the course plugin, or the plugin's when MkDocs runs on its own) and decides what
runs there: the course's pages are parsed by both workers while MkDocs loads and starts
reading them (:func:`tools.course.check.start_checking`; MkDocs waits only for the page it
reads). Some of the plugin's work needs none of MkDocs' results and is needed only when the
build ends: the deck (read from :mod:`tools.anki.deck_cache` or built),
the review page's data, the search entries of cards and questions, and the scans of every page
for its items, for script and for remote loads. The plugin runs it in one worker, one job at a time
(:meth:`Background.limit`), on the second core while MkDocs renders on the first (a second busy
worker would take CPU from MkDocs; ``tests/perf/bench_scale.py`` times the build); the build
collects the results in ``on_post_build`` and fails there if a job failed or a scan found
something, before anything is published. A job is a function the caller imports and passes:
the worker, forked from this process, finds it by its module and name, and the import is a
dependency the architecture test sees.

Work runs in this process instead when a second process would not help (one core) or would not
be safe: forking a process that runs other threads (``mkdocs serve``'s server, a test's web
server) can leave the child holding a lock no thread will release.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from typing import Any

WORKERS = 2
# The workers' scheduling priority below the build's: MkDocs, in the build's process, is what
# the build waits for, and while the pages parse three processes share two cores. The workers'
# jobs are needed only when a page is read or the build ends, and they get the CPU MkDocs leaves.
NICENESS = 10
BATCH = 16  # small jobs sent to a worker as one: each job sent costs this process its own work


class Background:
    """Worker processes, each started on its first job and all stopped by :meth:`close`.

    Each worker has its own queue (a one-process executor), so jobs can be kept to fewer workers
    than there are (:meth:`limit`): those jobs then share one worker's imports and caches.
    """

    def __init__(self, workers: int = WORKERS) -> None:
        self.workers = workers
        self.at_once = workers  # the workers jobs go to from now on (:meth:`limit`)
        self._lanes: list[Executor | None] = [None] * workers
        self._sent = 0
        self._forks: bool | None = None  # whether forking is safe, decided at the first job
        self._batch: list[tuple[Future, Callable[..., Any], tuple, dict[str, Any]]] = []

    def limit(self, at_once: int) -> None:
        """From now on send jobs to the first ``at_once`` workers only, one job at a time each."""
        self.at_once = at_once

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        """Run ``fn(*args, **kwargs)`` in a worker (``fn`` a module-level function)."""
        if self._forks is None:
            self._forks = _may_fork()  # checked before a worker's executor starts its thread
        if not self._forks:
            return _done(fn, *args, **kwargs)
        lane = self._sent % self.at_once
        self._sent += 1
        executor = self._lanes[lane]
        if executor is None:
            fork = multiprocessing.get_context("fork")
            executor = self._lanes[lane] = ProcessPoolExecutor(
                1, mp_context=fork, initializer=_start_worker, initargs=(os.getpid(),)
            )
        return executor.submit(fn, *args, **kwargs)

    def submit_small(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        """:meth:`submit` for a small job (a page's scan): such jobs go to the workers
        :data:`BATCH` at a time, since sending each alone would cost this process (the one that
        runs MkDocs) about as much as the job. :meth:`flush` sends the last ones."""
        future: Future = Future()
        self._batch.append((future, fn, args, kwargs))
        if len(self._batch) >= BATCH:
            self.flush()
        return future

    def flush(self) -> None:
        """Send the small jobs not sent yet; their futures are settled when they have run."""
        batch, self._batch = self._batch, []
        if not batch:
            return
        futures = [future for future, *_ in batch]
        job = self.submit(_run_each, [call for _, *call in batch])

        def settle(job: Future) -> None:
            try:
                outcomes = job.result()
            except Exception as exc:  # the worker itself failed: so did each job
                outcomes = [(False, exc)] * len(futures)
            for future, (ok, value) in zip(futures, outcomes, strict=True):
                if not future.set_running_or_notify_cancel():  # cancelled by close()
                    continue
                if ok:
                    future.set_result(value)
                else:
                    future.set_exception(value)

        job.add_done_callback(settle)

    def close(self) -> None:
        for future, *_ in self._batch:
            future.cancel()
        self._batch.clear()
        lanes, self._lanes = self._lanes, [None] * self.workers
        for executor in lanes:
            if executor is not None:
                executor.shutdown(cancel_futures=True)


@contextlib.contextmanager
def build_pool() -> Iterator[Background]:
    """The worker pool of one build, closed when that build ends. The build hands it to what it
    runs (the CLI hands it to the course plugin), so no process-wide pool is needed."""
    pool = Background()
    try:
        yield pool
    finally:
        pool.close()


def _start_worker(parent: int) -> None:
    """In a new worker, before its first job: what it inherited from the build (modules, the
    settings, the course read so far) is moved out of the collector's sight, so the collections
    its jobs trigger walk only what the jobs make. A job (a page's parse, the deck) makes many
    small objects, and each full collection would otherwise walk every inherited one too,
    touching and so copying pages the fork shares with the build.

    The worker then yields the CPU to the process that forked it (:data:`NICENESS`)."""
    gc.freeze()
    os.nice(NICENESS)
    _die_with(parent)


def _die_with(parent: int) -> None:
    """In a worker: end when the build that forked it ends, even by SIGKILL, instead of living
    on as an orphan. Linux sends SIGKILL to the worker when its parent dies (prctl
    PR_SET_PDEATHSIG); elsewhere a thread checks the parent every second."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(1, 9, 0, 0, 0) == 0:  # PR_SET_PDEATHSIG, SIGKILL
            if os.getppid() != parent:  # the parent died before prctl took effect
                os._exit(1)
            return
    except (OSError, AttributeError):
        pass

    def watch() -> None:
        while os.getppid() == parent:
            threading.Event().wait(1.0)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def _may_fork() -> bool:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (cores or 1) > 1 and threading.active_count() == 1 and hasattr(os, "fork")


def _run_each(calls: list[tuple[Callable[..., Any], tuple, dict[str, Any]]]) -> list[tuple]:
    """Each call's ``(True, result)`` or ``(False, exception)``."""
    outcomes: list[tuple] = []
    for fn, args, kwargs in calls:
        try:
            outcomes.append((True, fn(*args, **kwargs)))
        except Exception as exc:
            outcomes.append((False, exc))
    return outcomes


def _done(fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
    """The job run here and now, as a finished future (its exception kept for ``result()``)."""
    future: Future = Future()
    try:
        future.set_result(fn(*args, **kwargs))
    except Exception as exc:  # handed to whoever asks for the result
        future.set_exception(exc)
    return future
