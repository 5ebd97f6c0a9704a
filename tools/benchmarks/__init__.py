"""Benchmark results files -> HTML for the site: tables, SVG plots and a summary.

The build only *reads* ``docs/benchmarks/<benchmark>-<device>.json``; measuring is pytest's job
(``tests/test_benchmarks.py`` on CPU, ``tests/test_benchmarks_gpu.py`` via
``.ci/gpu-benchmarks.sh`` on CUDA). A lesson embeds a view with::

    ::: benchmark checkpointing table
    :::

and :func:`render_embed` returns the HTML that replaces those lines. Views: ``table``,
``summary``, ``rng-stash``, ``autocast``, ``step`` and ``fsdp`` (:mod:`.tables`), ``plot-memory``,
``plot-tradeoff`` and ``plot-breakdown`` (:mod:`.plots`, drawn on :mod:`.chart`), and
``planner`` (:mod:`.planner`: a form running the memory model on the reader's own model, in
the browser); files are found, read and judged current or stale in :mod:`.results`, checked against
:mod:`.schema`, and numbers are written by :mod:`.formatting`.

A stale file (its measuring code changed since) still renders, under a visible notice naming the
command that regenerates it, and a :class:`StaleResultsWarning` is issued; with ``strict=True``
(the publishing workflow) staleness is a :class:`BenchmarkError`. A missing or malformed file is
always a :class:`BenchmarkError` that names the file.

Standard library only, and deterministic: the same results in give the same bytes out.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path

from snippets import memory_model
from snippets.benchmark_views.planner import view_planner
from snippets.benchmark_views.plots import view_plot_breakdown, view_plot_memory, view_plot_tradeoff
from snippets.benchmark_views.tables import (
    view_autocast,
    view_fsdp,
    view_rng_stash,
    view_step,
    view_summary,
    view_table,
)
from snippets.benchmark_views.traced import (
    traced_file,
    view_traced,
    view_traced_check,
    view_traced_fsdp,
    view_traced_presets,
)
from tools.benchmarks.errors import BenchmarkError, StaleResultsWarning
from tools.benchmarks.formatting import esc
from tools.benchmarks.results import (
    BENCHMARKS,
    Results,
    code_hash,
    load_results,
    results_files,
)

__all__ = [
    "BENCHMARKS",
    "TRACED_VIEWS",
    "VIEWS",
    "BenchmarkError",
    "Results",
    "StaleResultsWarning",
    "check_embed",
    "code_hash",
    "load_results",
    "render_embed",
    "results_files",
]

_RENDERERS: dict[str, Callable[[list[Results]], str]] = {
    "table": view_table,
    "plot-memory": view_plot_memory,
    "plot-tradeoff": view_plot_tradeoff,
    "plot-breakdown": view_plot_breakdown,
    "summary": view_summary,
    "rng-stash": view_rng_stash,
    "autocast": view_autocast,
    "fsdp": view_fsdp,
    "step": view_step,
}
# Views of the traced file (and, for the check, of the CPU measurement beside it); every other
# view shows measured files only.
_TRACED_RENDERERS: dict[str, Callable[[list[Results]], str]] = {
    "traced": view_traced,
    "traced-presets": view_traced_presets,
    "traced-check": view_traced_check,
    "traced-fsdp": view_traced_fsdp,
}
TRACED_VIEWS = tuple(_TRACED_RENDERERS)
VIEWS = (*_RENDERERS, *TRACED_VIEWS, "planner")


def check_embed(args: list[str], root: Path, *, strict: bool) -> list[Results]:
    """The results ``::: benchmark <name> <view>`` shows, checked, without rendering anything.

    ``args`` are the words after ``::: benchmark``; ``root`` is the repository root. Raises
    :class:`BenchmarkError` for an unknown benchmark or view, a missing or malformed results
    file, and (only with ``strict``) stale results.
    """
    if len(args) != 2:
        raise BenchmarkError(
            f"expected '::: benchmark NAME VIEW' (VIEW one of {', '.join(VIEWS)}), got "
            f"{' '.join(args)!r}"
        )
    name, view = args
    if name not in BENCHMARKS:
        raise BenchmarkError(f"unknown benchmark {name!r}; known: {', '.join(sorted(BENCHMARKS))}")
    if view not in VIEWS:
        raise BenchmarkError(f"unknown benchmark view {view!r}; use one of {', '.join(VIEWS)}")
    results = load_results(name, root)
    if view in _TRACED_RENDERERS:
        traced_file(results)  # raises, naming the command, when there is none
    else:
        results = [r for r in results if not r.traced]
    for result in results:
        if result.stale and strict:
            message = result.stale_message()
            raise BenchmarkError(f"{result.path}: {message} (stale results are an error here)")
    return results


def render_embed(args: list[str], root: Path, *, strict: bool) -> str:
    """HTML for ``::: benchmark <name> <view>``; raises as :func:`check_embed` does.

    A stale results file (allowed unless ``strict``) issues a :class:`StaleResultsWarning` and
    gets a notice above its numbers.
    """
    results = check_embed(args, root, strict=strict)
    notices: list[str] = []
    for result in results:
        if result.stale:
            message = result.stale_message()
            warnings.warn(f"{result.path}: {message}", StaleResultsWarning, stacklevel=2)
            notices.append(_stale_notice(result))
    if args[1] == "planner":  # shows the model, no measurement: the tables carry the notices
        return view_planner(memory_model, results)
    render = _TRACED_RENDERERS.get(args[1]) or _RENDERERS[args[1]]
    return "\n".join([*notices, render(results)])


def _stale_notice(result: Results) -> str:
    """The reader's copy of the warning, above the numbers it concerns."""
    files = ", ".join(f"<code>{esc(f)}</code>" for f in result.code_files)
    return (
        '<div class="admonition warning benchmark-stale" role="note">\n'
        '<p class="admonition-title">Stale results</p>\n'
        f"<p>The results for {esc(result.device['name'])} (<code>{esc(result.path.as_posix())}"
        f"</code>) were {'traced' if result.traced else 'measured'} with an older version of "
        f"{files}. The numbers below may no "
        f"longer match the code. Regenerate them with <code>{esc(result.regenerate)}</code>.</p>\n"
        "</div>"
    )
