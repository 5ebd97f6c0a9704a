"""The two ways a benchmark embed can go wrong, shared by every module of the package.

Callers catch :class:`BenchmarkError` to turn a bad embed into a ``path:line`` course error, and
tests (or a strict build) turn :class:`StaleResultsWarning` into a failure.
"""


class BenchmarkError(Exception):
    """A benchmark embed cannot be rendered: unknown name or view, missing/malformed/stale file."""


class StaleResultsWarning(UserWarning):
    """A results file was produced by an older version of its measuring code."""
