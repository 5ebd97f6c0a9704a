"""Work a build hands to a second process, so it runs while MkDocs renders pages in this one.

MkDocs builds on one core. The course's pages are parsed in two halves while MkDocs loads
(:func:`tools.parser.start_parsing`). Some of the hook's work needs none of MkDocs' results and
is needed only when the build ends: the deck (read from :mod:`tools.deck_cache` or built), the
review page's data, the search entries of cards and questions, and the scans of every page for
script and for remote loads. It goes to worker processes,
forked from the build so they start at once with everything imported; the build collects the
results in ``on_post_build`` and fails there if a job failed or a scan found something, before
anything is published. Two workers: the jobs come in bursts (the deck and the review data
first, then a scan per page), and one worker alone finishes after MkDocs does.

Work runs in this process instead when a second process would not help (one core) or would not
be safe: forking a process that runs other threads (``mkdocs serve``'s server, a test's web
server) can leave the child holding a lock no thread will release.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from typing import Any

WORKERS = 2


class Background:
    """Worker processes, started on the first job and stopped by :meth:`close`."""

    def __init__(self, workers: int = WORKERS) -> None:
        self.workers = workers
        self._pool: Executor | None = None

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        if self._pool is None:
            if not _may_fork():  # checked before the pool starts its own thread
                return _done(fn, *args, **kwargs)
            fork = multiprocessing.get_context("fork")
            self._pool = ProcessPoolExecutor(self.workers, mp_context=fork)
        return self._pool.submit(fn, *args, **kwargs)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None


def _may_fork() -> bool:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (cores or 1) > 1 and threading.active_count() == 1 and hasattr(os, "fork")


def _done(fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
    """The job run here and now, as a finished future (its exception kept for ``result()``)."""
    future: Future = Future()
    try:
        future.set_result(fn(*args, **kwargs))
    except Exception as exc:  # handed to whoever asks for the result
        future.set_exception(exc)
    return future
