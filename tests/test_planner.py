"""The memory model the planner ports (snippets/memory_model.py) and the form the build writes.

The browser side (the planner's numbers against this model) is tests/test_planner_browser.py.
"""

from __future__ import annotations

import json
import math
from html.parser import HTMLParser

import memory_model
import pytest
from mkdocs_course import benchmarks
from mkdocs_course.buildkit.buildinfo import ROOT
from mkdocs_course.course import config as course_config

# Measured results files (the traced one has no per-run model: test_benchmarks_traced.py)
RESULTS = sorted(p for p in (ROOT / "docs" / "benchmarks").glob("*.json") if "traced" not in p.name)


def mlp_units(data: dict) -> tuple[float, float]:
    model = data["model"]
    a, per_block = model["boundary_bytes"], model["block_bytes"]
    return per_block["full"] / a, per_block["matmuls"] / a


@pytest.mark.parametrize("path", RESULTS, ids=lambda p: p.name)
def test_model_reproduces_every_committed_prediction(path):
    """The tables' predicted columns were written by the model the planner ports."""
    data = json.loads(path.read_text(encoding="utf-8"))
    for run in [data, *data.get("runs", [])]:
        config, model = run["config"], run["model"]
        a = memory_model.boundary_bytes(
            config["batch"], config["tokens"], config["hidden"], config["dtype"]
        )
        assert a == model["boundary_bytes"]
        per_block = model["block_bytes"]
        core = memory_model.attention_core_share(config["tokens"], config["hidden"])
        # the harness's Adam step: torch.optim's default, foreach on CUDA
        optimizer = memory_model.optimizer_units(
            "adam",
            run["state"]["predicted"]["parameter_bytes"],
            config["hidden"],
            memory_model.ITEMSIZE[config["dtype"]],
            a,
            foreach=data["provenance"]["device"]["type"] == "cuda",
        )
        for row in run["rows"]:
            kept = per_block["attention" if row["strategy"] == "selective-attention" else "matmuls"]
            saved, peak = memory_model.predict(
                row["strategy"],
                config["layers"],
                a,
                per_block["full"] / a,
                kept / a,
                optimizer=optimizer,
                layers_per_group=row["layers_per_group"],
                segments=row["segments"],
                **memory_model.transient_units(per_block, a),
            )
            predicted = (row["predicted_saved_bytes"], row["predicted_peak_bytes"])
            assert (round(saved), round(peak)) == predicted, row
            fraction = memory_model.recomputed_fraction(
                row["strategy"], config["layers"], row["segments"], core
            )
            assert fraction == row["recomputed_fraction"], row


@pytest.mark.parametrize(("tokens", "hidden", "heads"), [(2048, 2048, 16), (4096, 12288, 96)])
def test_the_transformer_block_is_korthikantis_layer_less_its_residual_dropouts(
    tokens, hidden, heads
):
    """Korthikanti et al. 2022 count sbh(34 + 5as/h) bytes per layer in 16 bits. The course's
    block has their attention core exactly (5as²b: softmax output, 1-byte mask, dropped
    probabilities) but no dropout after the projection and the MLP (2 sbh of masks), and its
    count adds LayerNorm's float32 statistics (8 bytes per token, twice)."""
    batch = 3
    sbh = tokens * batch * hidden
    counted = memory_model.block_bytes(
        "transformer", batch, tokens, hidden, heads=heads, size=2, mask_size=1
    )["full"]
    korthikanti = sbh * (34 + 5 * heads * tokens / hidden)
    statistics = 2 * 2 * batch * tokens * 4
    assert counted == pytest.approx(korthikanti - 2 * sbh + statistics, rel=1e-12)


def test_plan_picks_the_fastest_setting_that_fits():
    a, c, kept, layers = 1e6, 10, 6, 24
    peak_none = layers * c * a
    assert memory_model.plan(layers, a, c, kept, peak_none)["recommended"] == "none"
    assert memory_model.plan(layers, a, c, kept, 1)["recommended"] is None
    result = memory_model.plan(layers, a, c, kept, peak_none - 1)
    segments = next(o for o in result["options"] if o["setting"] == "segments")
    # the least recomputation among the segment counts that fit, and it beats every other setting
    fitting = [
        s
        for s in range(2, layers + 1)
        if memory_model.predict("segments", layers, a, c, segments=s)[1] <= peak_none - 1
    ]
    fractions = [memory_model.recomputed_fraction("segments", layers, s) for s in fitting]
    assert segments["fraction"] == min(fractions)
    assert result["recommended"] == "segments"
    # with no fitting segment count, the best one is the one with the lowest peak
    tight = memory_model.plan(layers, a, c, kept, 2 * math.sqrt(c * layers) * a * 0.5)
    segments = next(o for o in tight["options"] if o["setting"] == "segments")
    peaks = [
        memory_model.predict("segments", layers, a, c, segments=s)[1] for s in range(2, layers + 1)
    ]
    assert not segments["fits"] and segments["peak"] == min(peaks)


def test_offload_is_shown_but_never_recommended():
    """Offload moves data instead of recomputing: the model has no time estimate for it."""
    layers, a, c, kept = 24, 1e6, 10, 6
    offload_only = memory_model.predict("offload", layers, a, c)[1]
    result = memory_model.plan(layers, a, c, kept, offload_only)
    offload = next(o for o in result["options"] if o["setting"] == "offload")
    assert offload["fits"] and offload["overhead"] is None
    assert result["recommended"] is None


def test_one_layer_has_no_segment_row_and_an_mlp_block_no_attention_row():
    settings = [o["setting"] for o in memory_model.plan(1, 1e6, 10, 6, 1e12)["options"]]
    assert settings == ["none", "selective", "every-layer", "offload"]


def test_rows_that_coincide_are_shown_once():
    """Where the best group size is one layer, "best group size" and "every layer" were the
    same row twice: the plan keeps one."""
    layers, a, c, kept = 24, 1e6, 10, 6
    tight = memory_model.predict("groups", layers, a, c, layers_per_group=1)[1]
    result = memory_model.plan(layers, a, c, kept, tight)
    rows = [
        (o["strategy"], o.get("layers_per_group"), o.get("segments")) for o in result["options"]
    ]
    assert len(rows) == len(set(rows)), rows
    assert rows.count(("groups", 1, None)) == 1
    roomy = memory_model.plan(layers, a, c, kept, 3 * tight)
    assert {o["setting"] for o in roomy["options"]} >= {"groups", "every-layer"}


# The new user's case of issue 24: 48 layers, hidden 4096, 4,096 tokens, batch 1, 32 heads.
LARGE = {"block": "transformer", "attention": "explicit", "layers": 48, "hidden": 4096,
         "heads": 32, "tokens": 4096, "batch": 1, "precision": "bfloat16",
         "optimizer": "adam"}  # fmt: skip


def step(**changes):
    return memory_model.plan_step(**{**LARGE, "ranks": 1, "device_bytes": 20e9, **changes})


def test_a_whole_step_holds_the_state_the_harness_measures_and_fsdp_shards_it():
    params, tensors = memory_model.block_parameters("transformer", 4096)
    one = step()["state"]
    assert one["parameter_bytes"] == one["gradient_bytes"] == 48 * params * 2
    assert one["optimizer_bytes"] == 2 * 48 * params * 2 + 4 * 48 * tensors
    fsdp = ("unsharded_parameter_bytes", "all_gather_bytes", "reduce_scatter_bytes")
    assert all(one[key] == 0 for key in fsdp)
    two = step(ranks=2)["state"]
    for key in ("parameter_bytes", "gradient_bytes"):
        assert two[key] == one[key] / 2
    # one gathered block, one all-gather and one reduce-scatter buffer, each at full size
    assert [two[key] for key in fsdp] == [params * 2] * 3
    momentum = step(optimizer="sgd-momentum")["state"]
    assert momentum["optimizer_bytes"] == one["parameter_bytes"]
    assert step(optimizer="sgd")["state"]["optimizer_bytes"] == 0
    mixed = step(precision="autocast-bfloat16")["state"]
    assert mixed["parameter_bytes"] == 2 * one["parameter_bytes"]  # float32 weights
    for o in step(ranks=64, device_bytes=80e9)["options"]:
        assert o["total"] == pytest.approx(step(ranks=64)["state"]["total"] + o["peak"])


def test_the_large_model_gets_specific_advice_and_never_fills_the_device():
    """Issue 24's new user: the old planner recommended 19.8 GB of a 20 GB budget. The state
    alone does not fit now; the advice names the FSDP rank count that makes it fit."""
    result = step()
    assert result["recommended"] is None
    needed = result["ranks_needed"]
    assert needed is not None and needed > 1
    assert step(ranks=needed)["recommended"] is not None
    assert step(ranks=needed - 1)["recommended"] is None
    for ranks in (needed, 64):
        chosen = step(ranks=ranks)
        best = next(o for o in chosen["options"] if o["setting"] == chosen["recommended"])
        assert best["total"] <= 20e9 * (1 - memory_model.HEADROOM)


def test_selective_recomputation_of_attention_is_chosen_where_it_fits():
    """It re-runs the attention core's share of the matmul work, T/(T + 6H), not a whole
    forward: where it fits and no checkpointing does not, it beats full checkpointing."""
    result = step(ranks=64, device_bytes=80e9)
    rows = {o["setting"]: o for o in result["options"]}
    assert rows["selective-attention"]["fraction"] == pytest.approx(4096 / (4096 + 6 * 4096))
    assert not rows["none"]["fits"] and rows["selective-attention"]["fits"]
    assert result["recommended"] == "selective-attention"
    assert rows["every-layer"]["overhead"] > rows["selective-attention"]["overhead"]


def test_fused_attention_keeps_no_scores():
    """Explicit attention keeps 5 bytes per score in 16 bits; the fused kernel its output and one
    float32 log-sum-exp per head and token."""
    explicit = step(ranks=64, device_bytes=80e9)["block_bytes"]
    fused = step(ranks=64, device_bytes=80e9, attention="fused")["block_bytes"]
    scores, n = 32 * 4096 * 4096, 4096 * 4096  # batch 1, 16-bit values, 1-byte mask
    assert explicit["full"] - fused["full"] == 5 * scores - (2 * n + 32 * 4096 * 4)
    assert explicit["attention"] == fused["attention"]  # what is left outside the core


def test_a_plan_leaves_its_stated_headroom_free():
    """A setting fits only when its whole step leaves HEADROOM of the device free."""
    roomy = step(ranks=64, device_bytes=1e12)
    none_total = roomy["options"][0]["total"]
    exact = none_total / (1 - memory_model.HEADROOM)
    assert step(ranks=64, device_bytes=exact)["recommended"] == "none"
    assert step(ranks=64, device_bytes=exact * 0.999)["recommended"] != "none"
    for o in step(ranks=64, device_bytes=exact * 0.5)["options"]:
        assert o["fits"] == (o["total"] <= exact * 0.5 * (1 - memory_model.HEADROOM))


class _Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def test_planner_form_is_labelled_and_carries_the_models_constants_and_sourced_presets():
    registry = course_config.benchmarks(ROOT)
    html = benchmarks.render_embed(["checkpointing", "planner"], ROOT, registry, strict=False)
    parser = _Collect()
    parser.feed(html)
    ids = {attrs.get("id") for _, attrs in parser.tags}
    labelled = {attrs["for"] for tag, attrs in parser.tags if tag == "label"}
    controls = [attrs for tag, attrs in parser.tags if tag in ("input", "select")]
    names = [attrs["name"] for attrs in controls]
    assert names == ["preset", "block", "attention", "layers", "hidden", "heads", "tokens",
                     "batch", "precision", "optimizer", "ranks", "memory"]  # fmt: skip
    for attrs in controls:
        assert attrs["id"] in labelled
        for described in (attrs.get("aria-describedby") or "").split():
            assert described in ids, described
    model = json.loads(next(a["data-model"] for t, a in parser.tags if t == "form"))
    assert model["forwardShare"] == memory_model.FORWARD_SHARE
    assert model["headroom"] == memory_model.HEADROOM
    assert model["precisions"] == {k: list(v) for k, v in memory_model.PRECISIONS.items()}
    assert model["optimizers"] == {k: list(v) for k, v in memory_model.OPTIMIZERS.items()}
    assert len(model["presets"]) >= 2
    for preset in model["presets"]:
        assert preset["hidden"] % preset["heads"] == 0, preset
        assert preset["url"].startswith("https://") and preset["source"], preset
    assert any(a.get("aria-live") == "polite" for _, a in parser.tags)


# --- the time column: estimates labelled, the course's measurements beside them ---------------


def checkpointing() -> benchmarks.Benchmark:
    """The checkpointing benchmark that mkdocs.yml declares."""
    return benchmarks.benchmark("checkpointing", course_config.benchmarks(ROOT), ROOT)


def measured() -> list[dict]:
    from snippets.benchmark_views.planner import measured_entries

    return measured_entries(
        [r for r in benchmarks.load_results(checkpointing(), ROOT) if r.kind != "traced"]
    )


SEVEN_B = {**LARGE, "layers": 32, "tokens": 2048, "precision": "autocast-bfloat16"}


def test_each_setting_the_course_measured_carries_its_measured_ratio_and_device():
    entries = measured()
    assert entries and all(e["device"] and e["run"] for e in entries)
    result = memory_model.plan_step(**SEVEN_B, ranks=8, device_bytes=80e9, measured_runs=entries)
    by_setting = {o["setting"]: o for o in result["options"]}
    for setting in ("every-layer", "selective", "selective-attention", "segments"):
        found = by_setting[setting]["measured"]
        assert found is not None, setting
        # the same block, attention path and precision kind as the plan's
        assert (found["block"], found["attention"], found["autocast"]) == (
            "transformer", "explicit", True
        ), setting  # fmt: skip
    assert by_setting["offload"]["measured"] is None  # on a CPU the host is the device


def test_a_segment_count_is_matched_to_the_measured_row_that_recomputes_as_much():
    entries = [
        {"setting": "segments", "block": "mlp", "attention": "explicit", "autocast": False,
         "fraction": f, "overhead": f / 2, "device": "d", "run": str(f)}
        for f in (0.5, 0.75, 0.9)
    ]  # fmt: skip
    option = {"setting": "segments", "overhead": 0.3, "fraction": 0.8}
    found = memory_model._closest(option, memory_model.measured_overheads(
        entries, "mlp", "explicit", False)["segments"])  # fmt: skip
    assert found["fraction"] == 0.75


def test_the_recommendation_never_prefers_an_estimate_the_measurements_contradict():
    """Among the settings that fit, none the course measured as faster is passed over for one
    whose estimate alone is lower; on the 7B shape the estimate puts the attention core's
    recomputation far ahead, and the measured rows do not."""
    entries = measured()
    for memory in (20e9, 40e9, 80e9, 141e9):
        for attention in ("explicit", "fused"):
            result = memory_model.plan_step(
                **{**SEVEN_B, "attention": attention}, ranks=8, device_bytes=memory,
                measured_runs=entries,
            )  # fmt: skip
            chosen = {o["setting"]: o for o in result["options"]}.get(result["recommended"])
            if chosen is None:
                continue
            for o in result["options"]:
                if o["fits"] and o["overhead"] is not None and o["measured"]:
                    assert memory_model._speed(chosen) <= o["measured"]["overhead"], (
                        memory, attention, chosen["setting"], o["setting"]
                    )  # fmt: skip
    # 60 GB: the estimate alone picks the attention core's recomputation
    estimate_only = memory_model.plan_step(**SEVEN_B, ranks=8, device_bytes=60e9)
    assert estimate_only["recommended"] == "selective-attention"
    result = memory_model.plan_step(**SEVEN_B, ranks=8, device_bytes=60e9, measured_runs=entries)
    options = {o["setting"]: o for o in result["options"]}
    core = options["selective-attention"]["measured"]["overhead"]
    faster = [s for s, o in options.items() if o["fits"] and o["measured"] and
              o["measured"]["overhead"] < core]  # fmt: skip
    assert (result["recommended"] == "selective-attention") == (not faster), faster


def test_the_planner_page_labels_estimates_and_says_why_cpu_ratios_need_not_carry_over():
    registry = course_config.benchmarks(ROOT)
    html = benchmarks.render_embed(["checkpointing", "planner"], ROOT, registry, strict=False)
    script = (ROOT / "snippets" / "benchmark_views" / "planner.js").read_text(encoding="utf-8")
    overhead = script[script.index("function overheadText") :]
    overhead = overhead[: overhead.index("\n  }\n")]
    assert "at most" not in overhead and "estimate " in overhead and "measured " in overhead
    text = html.replace("&#x27;", "'")
    assert "need not carry over to a GPU" in text
    assert "tensor cores" in text and "only a GPU results file measures that" in text
