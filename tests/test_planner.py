"""The memory model the planner ports (snippets/memory_model.py) and the form the build writes.

The browser side (the planner's numbers against this model) is tests/test_planner_browser.py.
"""

from __future__ import annotations

import json
import math
from html.parser import HTMLParser

import memory_model
import pytest

from tools import benchmarks
from tools.build.buildinfo import ROOT

RESULTS = sorted((ROOT / "docs" / "benchmarks").glob("*.json"))


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
        for row in run["rows"]:
            kept = per_block["attention" if row["strategy"] == "selective-attention" else "matmuls"]
            saved, peak = memory_model.predict(
                row["strategy"],
                config["layers"],
                a,
                per_block["full"] / a,
                kept / a,
                layers_per_group=row["layers_per_group"],
                segments=row["segments"],
            )
            predicted = (row["predicted_saved_bytes"], row["predicted_peak_bytes"])
            assert (round(saved), round(peak)) == predicted, row
            fraction = memory_model.recomputed_fraction(
                row["strategy"], config["layers"], row["segments"], core
            )
            assert fraction == row["recomputed_fraction"], row


@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float32"])
@pytest.mark.parametrize(("tokens", "hidden", "heads"), [(2048, 2048, 16), (4096, 12288, 96)])
def test_transformer_units_follow_korthikanti(dtype, tokens, hidden, heads):
    """16-bit: s·b·h·(34 + 5·n·s/h) bytes per layer; float32 doubles the values, not the masks."""
    batch = 3
    sbh = tokens * batch * hidden
    c, kept = memory_model.transformer_units(tokens, hidden, heads, dtype)
    a = memory_model.boundary_bytes(batch, tokens, hidden, dtype)
    per_layer = {
        "bfloat16": sbh * (34 + 5 * heads * tokens / hidden),
        "float16": sbh * (34 + 5 * heads * tokens / hidden),
        "float32": sbh * (66 + 9 * heads * tokens / hidden),
    }[dtype]
    assert c * a == pytest.approx(per_layer, rel=1e-12)
    assert kept * a == pytest.approx(sbh * (34 if dtype != "float32" else 66), rel=1e-12)


def test_plan_picks_the_fastest_setting_that_fits():
    a, c, kept, layers = 1e6, 10, 6, 24
    peak_none = layers * c * a
    assert memory_model.plan(layers, a, c, kept, peak_none, 0)["recommended"] == "none"
    assert memory_model.plan(layers, a, c, kept, 1, 0)["recommended"] is None
    result = memory_model.plan(layers, a, c, kept, peak_none - 1, 0)
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
    tight = memory_model.plan(layers, a, c, kept, 2 * math.sqrt(c * layers) * a * 0.5, 0)
    segments = next(o for o in tight["options"] if o["setting"] == "segments")
    peaks = [
        memory_model.predict("segments", layers, a, c, segments=s)[1] for s in range(2, layers + 1)
    ]
    assert not segments["fits"] and segments["peak"] == min(peaks)


def test_plan_leaves_out_what_it_cannot_model():
    settings = [o["setting"] for o in memory_model.plan(1, 1e6, 10, None, 1e12)["options"]]
    assert settings == ["none", "every-layer"]  # one layer: its only group size is every layer


def test_plan_leaves_its_stated_headroom_free():
    """The new user's case of the issue: a recommendation that fills 99% of the budget is no
    advice. A peak fits only when it leaves HEADROOM of the budget free."""
    layers, a, c, kept = 24, 1e6, 10, 6
    peak_none = layers * c * a
    assert memory_model.plan(layers, a, c, kept, peak_none / 0.99)["recommended"] != "none"
    roomy = memory_model.plan(layers, a, c, kept, peak_none / (1 - memory_model.HEADROOM))
    assert roomy["recommended"] == "none"
    for o in memory_model.plan(layers, a, c, kept, peak_none / 2)["options"]:
        assert o["fits"] == (o["peak"] <= peak_none / 2 * (1 - memory_model.HEADROOM))


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


class _Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def test_planner_form_is_labelled_and_carries_the_block_sizes_of_the_results():
    html = benchmarks.render_embed(["checkpointing", "planner"], ROOT, strict=False)
    parser = _Collect()
    parser.feed(html)
    ids = {attrs.get("id") for _, attrs in parser.tags}
    labelled = {attrs["for"] for tag, attrs in parser.tags if tag == "label"}
    controls = [attrs for tag, attrs in parser.tags if tag in ("input", "select")]
    assert len(controls) == 9
    for attrs in controls:
        assert attrs["id"] in labelled
        for described in (attrs.get("aria-describedby") or "").split():
            assert described in ids, described
    model = json.loads(next(a["data-model"] for t, a in parser.tags if t == "form"))
    data = json.loads(RESULTS[0].read_text(encoding="utf-8"))
    assert (model["mlp"]["c"], model["mlp"]["kept"]) == mlp_units(data)
    assert model["forwardShare"] == memory_model.FORWARD_SHARE
    assert model["headroom"] == memory_model.HEADROOM
    assert any(a.get("aria-live") == "polite" for _, a in parser.tags)
