"""Work a build hands to a second process, so it runs while MkDocs renders pages in this one.

MkDocs builds on one core. Two jobs of the hook need none of its results and are needed only
when the build ends: the deck (when :mod:`tools.deck_cache` has no copy for these inputs) and
the scan of every built page for remote loads. They go to one worker process, forked from the
build so it starts at once with everything imported; the build collects their results in
``on_post_build`` and fails there if one failed, before anything is published.

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


class Background:
    """One worker process, started on the first job and stopped by :meth:`close`."""

    def __init__(self) -> None:
        self._pool: Executor | None = None

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        if self._pool is None:
            if not _may_fork():  # checked before the pool starts its own thread
                return _done(fn, *args, **kwargs)
            self._pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"))
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
