"""Benchmark results files -> HTML for the site, for the benchmarks a course declares.

The engine knows no benchmark of its own: a course names each one in its ``benchmarks``
setting (:mod:`.registry`): its views, the function that hashes its measuring code, and per kind
of results file the code, the schema and the command that makes it. The build only *reads*
``<results folder>/<benchmark>-<device>.json``; measuring is the course's job. A lesson embeds a
view with::

    ::: benchmark latency table
    :::

and :func:`render_embed` returns the HTML that replaces those lines, drawn by the course's view
from the files it shows. Files are found, read and judged current or stale in :mod:`.results`,
checked against their schema in :mod:`.schema`; views may use the numbers of
:mod:`.formatting` and the SVG surface of :mod:`.chart`.

A stale file (its measuring code changed since) still renders, under a visible notice naming the
command that regenerates it, and a :class:`StaleResultsWarning` is issued; with ``strict=True``
(the publishing workflow) staleness is a :class:`BenchmarkError`. A missing or malformed file is
always a :class:`BenchmarkError` that names the file; an entry of the setting that does not
import is a :class:`RegistryError` that names the setting and its line of ``mkdocs.yml``.

Deterministic: the same results in give the same bytes out.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from pathlib import Path

from .errors import BenchmarkError, StaleResultsWarning
from .formatting import esc
from .registry import Benchmark, Declared, FileKind, RegistryError, View, resolve
from .results import Results, load_results, results_files

__all__ = [
    "Benchmark",
    "BenchmarkError",
    "Declared",
    "FileKind",
    "RegistryError",
    "Results",
    "StaleResultsWarning",
    "View",
    "benchmark",
    "check_embed",
    "load_results",
    "render_embed",
    "resolve",
    "results_files",
]

Registry = Mapping[str, Declared]


def benchmark(name: str, registry: Registry, root: Path) -> Benchmark:
    """The declared benchmark ``name``, its views and hash function imported."""
    if name not in registry:
        known = ", ".join(sorted(registry)) or "none (the course declares no benchmarks)"
        raise BenchmarkError(f"unknown benchmark {name!r}; known: {known}")
    return resolve(registry[name], root)


def check_embed(args: list[str], root: Path, registry: Registry, *, strict: bool) -> list[Results]:
    """The results ``::: benchmark <name> <view>`` shows, checked, without rendering anything.

    ``args`` are the words after ``::: benchmark``; ``root`` is the course root and ``registry``
    its declared benchmarks. Raises :class:`BenchmarkError` for an unknown benchmark or view, a
    missing or malformed results file, and (only with ``strict``) stale results.
    """
    return _embed(args, root, registry, strict)[1]


def _embed(
    args: list[str], root: Path, registry: Registry, strict: bool
) -> tuple[View, list[Results]]:
    if len(args) != 2:
        known = ", ".join(sorted(registry)) or "none declared"
        raise BenchmarkError(
            f"expected '::: benchmark NAME VIEW' (NAME one of {known}), got {' '.join(args)!r}"
        )
    name, view_name = args
    found = benchmark(name, registry, root)
    view = found.views.get(view_name)
    if view is None:
        raise BenchmarkError(
            f"unknown benchmark view {view_name!r}; use one of {', '.join(found.views)}"
        )
    results = [r for r in load_results(found, root) if r.kind in view.kinds]
    if view.needs and not any(r.kind == view.needs for r in results):
        declared = found.declared
        needed = declared.kind(view.needs)
        raise BenchmarkError(
            f"{(declared.results / f'{name}-{view.needs}.json').as_posix()}: no {view.needs} "
            f"results file; run {needed.regenerate if needed else '?'}"
        )
    for result in results:
        if result.stale and strict:
            message = result.stale_message()
            raise BenchmarkError(f"{result.path}: {message} (stale results are an error here)")
    return view, results


def render_embed(args: list[str], root: Path, registry: Registry, *, strict: bool) -> str:
    """HTML for ``::: benchmark <name> <view>``; raises as :func:`check_embed` does.

    A stale results file (allowed unless ``strict``) issues a :class:`StaleResultsWarning` and
    gets a notice above its numbers (unless the view shows none of them).
    """
    view, results = _embed(args, root, registry, strict)
    notices: list[str] = []
    for result in results:
        if result.stale:
            message = result.stale_message()
            warnings.warn(f"{result.path}: {message}", StaleResultsWarning, stacklevel=2)
            notices.append(_stale_notice(result))
    if not view.notices:
        return view.render(results)
    return "\n".join([*notices, view.render(results)])


def _stale_notice(result: Results) -> str:
    """The reader's copy of the warning, above the numbers it concerns."""
    files = ", ".join(f"<code>{esc(f)}</code>" for f in result.code_files)
    return (
        '<div class="admonition warning benchmark-stale" role="note">\n'
        '<p class="admonition-title">Stale results</p>\n'
        f"<p>The results for {esc(result.device['name'])} (<code>{esc(result.path.as_posix())}"
        f"</code>) were {esc(result.source.made)} with an older version of "
        f"{files}. The numbers below may no "
        f"longer match the code. Regenerate them with <code>{esc(result.regenerate)}</code>.</p>\n"
        "</div>"
    )
