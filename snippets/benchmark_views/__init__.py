"""The checkpointing benchmark's views: what ``::: benchmark checkpointing VIEW`` draws.

The course declares them in its ``mkdocs.yml`` (``benchmarks.checkpointing.views`` of the
``course`` plugin names :data:`VIEWS`); the engine looks a view up here, hands it the files of
the kinds it shows, and puts a stale notice above it. Views: ``table``, ``rng-stash``,
``autocast`` and ``fsdp`` (:mod:`.tables`), ``summary`` (:mod:`.summary`), ``step``
(:mod:`.step`), ``plot-memory``, ``plot-tradeoff`` and ``plot-breakdown`` (:mod:`.plots`), the
traced views (:mod:`.traced`, of the traced file and the CPU measurement beside it) and
``planner`` (:mod:`.planner`: a form running the memory model in the reader's browser, with no
measured number of its own, so no notice).

They live with the course, not in the engine: they know this benchmark's rows, strategies and
memory model. The measuring code's hash does not cover them (``snippets/codehash.py`` follows
the harness's own imports only), so changing a view never makes a results file stale.
"""

from __future__ import annotations

from typing import Any

from mkdocs_course.benchmarks import View

from snippets import memory_model
from snippets.benchmark_views.planner import view_planner
from snippets.benchmark_views.plots import view_plot_breakdown, view_plot_memory, view_plot_tradeoff
from snippets.benchmark_views.step import view_step
from snippets.benchmark_views.summary import view_summary
from snippets.benchmark_views.tables import view_autocast, view_fsdp, view_rng_stash, view_table
from snippets.benchmark_views.traced import (
    view_traced,
    view_traced_check,
    view_traced_fsdp,
    view_traced_presets,
)

MEASURED = ("cuda", "cpu")  # the kinds of file a measurement makes (GPUs shown first)
TRACED = ("cuda", "cpu", "traced")  # the traced views also set the trace beside the CPU file


def _planner(results: list[Any]) -> str:
    """The planner shows the model, not the files: the tables beside it carry their notices."""
    return view_planner(memory_model, results)


VIEWS = {
    "table": View(view_table, MEASURED),
    "plot-memory": View(view_plot_memory, MEASURED),
    "plot-tradeoff": View(view_plot_tradeoff, MEASURED),
    "plot-breakdown": View(view_plot_breakdown, MEASURED),
    "summary": View(view_summary, MEASURED),
    "rng-stash": View(view_rng_stash, MEASURED),
    "autocast": View(view_autocast, MEASURED),
    "fsdp": View(view_fsdp, MEASURED),
    "step": View(view_step, MEASURED),
    "traced": View(view_traced, TRACED, needs="traced"),
    "traced-presets": View(view_traced_presets, TRACED, needs="traced"),
    "traced-check": View(view_traced_check, TRACED, needs="traced"),
    "traced-fsdp": View(view_traced_fsdp, TRACED, needs="traced"),
    "planner": View(_planner, MEASURED, notices=False),
}
