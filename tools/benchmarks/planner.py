"""The ``planner`` view: a form where readers run the course's memory model on their own model.

The HTML is built here and the arithmetic runs in ``docs/assets/planner.js``, a port of
``snippets/memory_model.py`` that the browser tests compare with the Python. What the script must
not invent comes from here: the MLP block's c and selective units, from the results files the
harness wrote (so they are the ones the tables were predicted with), turned into units by the
memory model itself; the step-time share of a forward pass; the field limits. Fields are plain
text inputs: the script validates them itself, so every bad value gets the same inline message
in every browser.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from types import ModuleType

from tools.benchmarks.errors import BenchmarkError
from tools.benchmarks.formatting import esc
from tools.benchmarks.results import Results


@dataclass(frozen=True)
class Field:
    name: str
    label: str
    default: str
    maximum: int
    integer: bool = True
    hint: str = ""
    only_for: str = ""  # the block this field belongs to ("" = always shown)


# Maxima: far beyond any real model, low enough that every byte count stays a finite double.
FIELDS = (
    Field("layers", "Layers", "24", 10_000),
    Field("batch", "Batch size", "8", 1_000_000),
    Field("tokens", "Sequence length", "2048", 10_000_000, hint="tokens per sample"),
    Field("hidden", "Hidden size", "2048", 1_000_000),
    Field("heads", "Attention heads", "16", 100_000, only_for="transformer"),
    Field(
        "c",
        "Activations per layer, c",
        "10",
        100_000,
        integer=False,
        hint="what one layer keeps for backward, in units of a (one boundary tensor)",
        only_for="custom",
    ),
    Field(
        "budget",
        "Memory budget (GB)",
        "16",
        1_000_000,
        integer=False,
        hint="memory left for activations after parameters, gradients and optimizer state; "
        "1 GB = 10⁹ bytes",
    ),
)
DTYPES = ("float32", "bfloat16", "float16")
DEFAULT_DTYPE = "bfloat16"
BLOCKS = (
    ("mlp", "The course’s MLP block"),
    ("transformer", "Transformer layer (Korthikanti et al. 2022)"),
    ("custom", "Custom c"),
)


def view_planner(results: list[Results], memory_model: ModuleType) -> str:
    """The form, its (empty) results and the model constants the script needs, as HTML."""
    model = {
        "itemsize": memory_model.ITEMSIZE,
        "forwardShare": memory_model.FORWARD_SHARE,
        "headroom": memory_model.HEADROOM,
        "mlp": _mlp_units(results),
    }
    if set(memory_model.ITEMSIZE) != set(DTYPES):
        raise BenchmarkError(f"planner: dtypes {DTYPES} differ from memory_model.ITEMSIZE")
    parts = [
        f'<form class="planner" id="memory-planner" novalidate aria-label="Memory planner" '
        f"data-model='{esc(json.dumps(model, sort_keys=True))}'>",
        '<p class="planner-nojs">The planner runs in your browser and needs JavaScript.</p>',
        '<div class="planner-fields">',
        *(_field(f) for f in FIELDS[:4]),
        _select("dtype", "dtype", [(d, d) for d in DTYPES], DEFAULT_DTYPE),
        _select("block", "Block", list(BLOCKS), "mlp"),
        *(_field(f) for f in FIELDS[4:]),
        "</div>",
        '<div class="planner-results">',
        '<p class="planner-status" id="planner-status" role="status" aria-live="polite" '
        'aria-atomic="true"></p>',
        '<p class="planner-sizes" id="planner-sizes"></p>',
        '<table hidden aria-describedby="planner-sizes">',
        "<caption>Predicted activation peak, step-time overhead and fit, per setting "
        "(decimal units: 1 GB = 10⁹ bytes)</caption>",
        '<thead><tr><th scope="col">Setting</th><th scope="col">Activation peak</th>'
        '<th scope="col">Step-time overhead</th><th scope="col">Fits the budget</th></tr></thead>',
        "<tbody></tbody>",
        "</table>",
        "</div>",
        "</form>",
    ]
    return "\n".join(parts)


def _mlp_units(results: list[Results]) -> dict[str, float]:
    """c and selective units of the MLP block in units of a, as every results file recorded
    them (``memory_model.block_bytes``, LayerNorm's statistics included)."""
    found = set()
    for r in results:
        model = r.data["model"]
        a, per_block = model["boundary_bytes"], model["block_bytes"]
        found.add((per_block["full"] / a, per_block["matmuls"] / a))
    if len(found) != 1:
        files = ", ".join(str(r.path) for r in results)
        raise BenchmarkError(f"planner: results files disagree on the block's sizes ({files})")
    c, kept = found.pop()
    return {"c": c, "kept": kept}


def _ids(name: str) -> tuple[str, str, str]:
    return f"planner-{name}", f"planner-{name}-hint", f"planner-{name}-error"


def _wrap(name: str, only_for: str, inner: list[str]) -> str:
    block = f' data-block="{esc(only_for)}"' if only_for else ""
    return "\n".join(
        [f'<div class="planner-field" data-field="{esc(name)}"{block}>', *inner, "</div>"]
    )


def _field(field: Field) -> str:
    ident, hint_id, error_id = _ids(field.name)
    described = f"{hint_id} {error_id}" if field.hint else error_id
    inner = [
        f'<label for="{ident}">{esc(field.label)}</label>',
        f'<input id="{ident}" name="{esc(field.name)}" type="text" '
        f'inputmode="{"numeric" if field.integer else "decimal"}" autocomplete="off" '
        f'spellcheck="false" value="{esc(field.default)}" data-max="{field.maximum}" '
        f'data-integer="{"true" if field.integer else "false"}" '
        f'aria-describedby="{described}">',
    ]
    if field.hint:
        inner.append(f'<p class="planner-hint" id="{hint_id}">{esc(field.hint)}</p>')
    inner.append(f'<p class="planner-error" id="{error_id}"></p>')
    return _wrap(field.name, field.only_for, inner)


def _select(name: str, label: str, options: list[tuple[str, str]], default: str) -> str:
    ident = _ids(name)[0]
    choices = "".join(
        f'<option value="{esc(value)}"{" selected" if value == default else ""}>{esc(text)}'
        "</option>"
        for value, text in options
    )
    return _wrap(
        name,
        "",
        [
            f'<label for="{ident}">{esc(label)}</label>',
            f'<select id="{ident}" name="{name}">{choices}</select>',
        ],
    )
