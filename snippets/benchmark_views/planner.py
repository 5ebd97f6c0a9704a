"""The ``planner`` view: a form where readers plan a whole training step on their own model.

The HTML is built here and the arithmetic runs in ``planner.js`` beside it (with
``planner.css``, the benchmark's page assets in ``mkdocs.yml``, served at ``assets/``), a port of
``snippets/memory_model.py`` (``plan_step`` and what it calls) that the browser tests compare
with the Python. What the script must not invent comes from here: the item sizes, precisions and
optimizers of the memory model, its headroom and forward share, the field limits, and the
presets with their sources, and the course's measured step-time overheads per strategy from the
results files, each naming its device and run. Fields are plain text inputs: the script
validates them itself, so every bad value gets the same inline message next to its field in
every browser.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from types import ModuleType
from typing import Any

from mkdocs_course.benchmarks.errors import BenchmarkError
from mkdocs_course.benchmarks.formatting import esc
from mkdocs_course.benchmarks.results import Results

from snippets.benchmark_views.names import describe_parameter
from snippets.benchmark_views.step import describe_run, step_runs


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
SHAPE = (
    Field("layers", "Layers", "24", 10_000),
    Field("hidden", "Hidden size", "2048", 1_000_000),
    Field("heads", "Attention heads", "16", 100_000, only_for="transformer"),
    Field("tokens", "Sequence length", "2048", 10_000_000, hint="tokens per sample"),
    Field("batch", "Batch size per device", "4", 1_000_000),
)
STEP = (
    Field(
        "ranks",
        "FSDP ranks",
        "1",
        4_096,
        hint="devices the model state is sharded over; 1: no FSDP",
    ),
    Field("memory", "Device memory (GB)", "80", 1_000_000, integer=False, hint="1 GB = 10⁹ bytes"),
)
BLOCKS = (("transformer", "Transformer block"), ("mlp", "The course’s MLP block"))
ATTENTIONS = (
    ("explicit", "Explicit (matmul, softmax, dropout)"),
    ("fused", "Fused (scaled_dot_product_attention)"),
)
PRECISION_LABELS = {
    "float32": "float32",
    "bfloat16": "bfloat16",
    "float16": "float16",
    "autocast-bfloat16": "bf16 autocast, float32 weights",
}
OPTIMIZER_LABELS = {"adam": "Adam / AdamW", "sgd-momentum": "SGD with momentum", "sgd": "SGD"}
DEFAULTS = {"block": "transformer", "attention": "explicit", "precision": "autocast-bfloat16",
            "optimizer": "adam"}  # fmt: skip


@dataclass(frozen=True)
class Preset:
    """A public model's shape, with where its numbers come from."""

    key: str
    label: str
    layers: int
    hidden: int
    heads: int
    tokens: int
    source: str
    url: str


PRESETS = (
    Preset(
        "gpt2-small",
        "GPT-2 small",
        12,
        768,
        12,
        1024,
        "Radford et al. 2019, Table 2 (12 layers, width 768); 12 heads and 1,024 tokens of context "
        "from the released gpt2 configuration",
        "https://cdn.openai.com/better-language-models/language_models_are_unsupervised_multitask_learners.pdf",
    ),
    Preset(
        "gpt2-xl",
        "GPT-2 XL",
        48,
        1600,
        25,
        1024,
        "Radford et al. 2019, Table 2 (48 layers, width 1,600); 25 heads and 1,024 tokens of "
        "context from the released gpt2-xl configuration",
        "https://cdn.openai.com/better-language-models/language_models_are_unsupervised_multitask_learners.pdf",
    ),
    Preset(
        "7b",
        "7B-class decoder (LLaMA-7B’s shape)",
        32,
        4096,
        32,
        2048,
        "Touvron et al. 2023, LLaMA, Table 2: 32 layers, width 4,096, 32 heads, 2,048 tokens; "
        "LLaMA’s SwiGLU MLP and RMSNorm are replaced by the course’s block",
        "https://arxiv.org/abs/2302.13971",
    ),
)


# Why the measured ratios beside the estimates are the course's, not the reader's.
CARRY_OVER = (
    "Each estimate counts the recomputed share of one forward pass as a third of a step. "
    "Beside it stands the course's measured overhead for the same strategy and block, with the "
    "device and run it comes from, and where the two disagree the recommendation goes by the "
    "measurement. A CPU ratio need not carry over to a GPU: on a CPU a small model's step is "
    "spread over many small operations whose fixed cost (Python, dispatch, the checkpoint's "
    "bookkeeping and random-number stash) weighs as much as the arithmetic, while a GPU runs "
    "the matmuls on tensor cores many times faster than the memory-bound operations that "
    "selective checkpointing re-runs (softmax, dropout, GELU), and launches kernels "
    "asynchronously. So the CPU figures say which way a strategy costs, not how much; only a "
    "GPU results file measures that."
)


def _setting(row: dict[str, Any]) -> str | None:
    """The planner setting a measured row is an instance of (offload: none, it recomputes
    nothing and on a CPU the host is the device)."""
    if row["strategy"] == "groups":
        return "every-layer" if row["layers_per_group"] == 1 else "groups"
    return None if row["strategy"] == "offload" else row["strategy"]


def measured_entries(results: list[Results]) -> list[dict[str, Any]]:
    """The course's measured overhead per strategy and block, GPU files first, each with the
    device and run it was measured on (``memory_model.measured_overheads`` picks from them)."""
    entries = []
    for result in sorted(results, key=lambda r: not r.on_gpu):
        for run in step_runs(result):
            config = run["config"]
            for row in run["rows"]:
                setting = _setting(row)
                if row.get("status", "ok") != "ok" or row.get("overhead") is None or not setting:
                    continue
                param = describe_parameter(row)
                entries.append(
                    {
                        "setting": setting,
                        "block": config.get("block", "mlp"),
                        "attention": config.get("attention", "explicit"),
                        "autocast": bool(config.get("autocast")),
                        "fraction": row["recomputed_fraction"],
                        "overhead": row["overhead"],
                        "device": result.device["name"],
                        "run": describe_run(config) + (f", {param}" if param != "—" else ""),
                    }
                )
    return entries


def view_planner(memory_model: ModuleType, results: list[Results] | None = None) -> str:
    """The form, its (empty) results and the model constants the script needs, as HTML."""
    if set(memory_model.PRECISIONS) != set(PRECISION_LABELS) or set(memory_model.OPTIMIZERS) != set(
        OPTIMIZER_LABELS
    ):
        raise BenchmarkError(
            "planner: its labels differ from memory_model's precisions or optimizers"
        )
    model = {
        "itemsize": memory_model.ITEMSIZE,
        "precisions": memory_model.PRECISIONS,
        "optimizers": memory_model.OPTIMIZERS,
        "stepTemporaries": memory_model.STEP_TEMPORARIES,
        "forwardShare": memory_model.FORWARD_SHARE,
        "headroom": memory_model.HEADROOM,
        "maxRanks": memory_model.MAX_RANKS,
        "rngStateBytes": memory_model.RNG_STATE_BYTES,
        "presets": [asdict(p) for p in PRESETS],
        "measured": measured_entries(results or []),
    }
    presets = [("", "Your own sizes"), *((p.key, p.label) for p in PRESETS)]
    parts = [
        f'<form class="planner" id="memory-planner" novalidate aria-label="Memory planner" '
        f"data-model='{esc(json.dumps(model, sort_keys=True))}'>",
        '<p class="planner-nojs">The planner runs in your browser and needs JavaScript.</p>',
        '<div class="planner-fields">',
        _select("preset", "Model shape", presets, ""),
        _select("block", "Block", list(BLOCKS), DEFAULTS["block"]),
        _select("attention", "Attention", list(ATTENTIONS), DEFAULTS["attention"], "transformer"),
        *(_field(f) for f in SHAPE),
        _select("precision", "Precision", list(PRECISION_LABELS.items()), DEFAULTS["precision"]),
        _select("optimizer", "Optimizer", list(OPTIMIZER_LABELS.items()), DEFAULTS["optimizer"]),
        *(_field(f) for f in STEP),
        "</div>",
        '<p class="planner-source" id="planner-source"></p>',
        '<div class="planner-results">',
        '<p class="planner-status" id="planner-status" role="status" aria-live="polite" '
        'aria-atomic="true"></p>',
        '<p class="planner-sizes" id="planner-sizes"></p>',
        '<table hidden aria-describedby="planner-sizes">',
        "<caption>Predicted whole-step memory per device, step-time overhead and fit, per setting "
        "(decimal units: 1 GB = 10⁹ bytes)</caption>",
        '<thead><tr><th scope="col">Setting</th><th scope="col">Activations</th>'
        '<th scope="col">Whole step</th><th scope="col">Step-time overhead</th>'
        '<th scope="col">Fits the device</th></tr></thead>',
        "<tbody></tbody>",
        "</table>",
        f'<p class="planner-carry">{esc(CARRY_OVER)}</p>',
        "</div>",
        "</form>",
    ]
    return "\n".join(parts)


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


def _select(
    name: str, label: str, options: list[tuple[str, str]], default: str, only_for: str = ""
) -> str:
    ident = _ids(name)[0]
    choices = "".join(
        f'<option value="{esc(value)}"{" selected" if value == default else ""}>{esc(text)}'
        "</option>"
        for value, text in options
    )
    return _wrap(
        name,
        only_for,
        [
            f'<label for="{ident}">{esc(label)}</label>',
            f'<select id="{ident}" name="{name}">{choices}</select>',
        ],
    )
