"""Work a build hands to a second process, so it runs while MkDocs renders pages in this one.

MkDocs builds on one core. The course's pages are parsed by two workers while MkDocs loads
(:func:`tools.parser.start_parsing`), when this process has little else to do. Some of the
hook's work needs none of MkDocs' results and is needed only when the build ends: the deck
(read from :mod:`tools.deck_cache` or built), the review page's data, the search entries of
cards and questions, and the scans of every page for script and for remote loads. It goes to
one worker, forked from the build so it starts at once with everything imported, and runs on
the second core while MkDocs renders on the first (a second worker would take CPU from MkDocs;
``tests/perf/bench_scale.py`` times the build); the build collects the results in
``on_post_build`` and fails there if a job failed or a scan found something, before anything
is published.

Work runs in this process instead when a second process would not help (one core) or would not
be safe: forking a process that runs other threads (``mkdocs serve``'s server, a test's web
server) can leave the child holding a lock no thread will release.
"""

from __future__ import annotations

import importlib
import multiprocessing
import os
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from typing import Any

WORKERS = 2
BATCH = 16  # small jobs sent to a worker as one: each job sent costs this process its own work


class Background:
    """Worker processes, started on the first job and stopped by :meth:`close`."""

    def __init__(self, workers: int = WORKERS) -> None:
        self.workers = workers
        self._pool: Executor | None = None
        self._batch: list[tuple[Future, Callable[..., Any], tuple, dict[str, Any]]] = []

    def submit(self, fn: Callable[..., Any] | str, /, *args: Any, **kwargs: Any) -> Future:
        """Run ``fn(*args, **kwargs)`` in a worker. ``fn`` may be named, ``"module:function"``:
        then only the worker imports its module (the deck's, with genanki and SQLite, is needed
        in no other process)."""
        if isinstance(fn, str):
            args, fn = (fn, *args), _call_named
        if self._pool is None:
            if not _may_fork():  # checked before the pool starts its own thread
                return _done(fn, *args, **kwargs)
            fork = multiprocessing.get_context("fork")
            self._pool = ProcessPoolExecutor(
                self.workers, mp_context=fork, initializer=_die_with, initargs=(os.getpid(),)
            )
        return self._pool.submit(fn, *args, **kwargs)

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
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None


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


def _call_named(name: str, /, *args: Any, **kwargs: Any) -> Any:
    module, _, function = name.partition(":")
    return getattr(importlib.import_module(module), function)(*args, **kwargs)


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
