# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lab · Measure gradient checkpointing yourself
#
# In this lab you run the course's benchmark harness, `snippets/checkpointing.py`, on your own
# machine and check the claims of Lesson 2 (Gradient checkpointing) against your own numbers:
# what each strategy stores for backward, how long a step takes, and whether the gradients stay
# exactly the same.
#
# **What you need:** a clone of the course repository and its virtual environment (the first
# `python3 -m tools build` creates it). No GPU: the sizes below are tiny, so the whole notebook
# runs in seconds on a laptop CPU. It measures peak memory there too, from the allocator's events
# that `torch.profiler` records; on a CUDA machine it reads CUDA's own peak counter instead.
#
# **Download:** [checkpointing-lab.py](checkpointing-lab.py) is this notebook as a jupytext
# percent-format file (it is also `docs/lab/checkpointing-lab.py` in the repository). Open it in
# Jupyter with jupytext installed, from anywhere inside the repository, or run it as a plain
# script: `python docs/lab/checkpointing-lab.py`. The outputs you see on this page were produced
# when the site was built, on the build machine's CPU.
#
# About 20 minutes.

# %% [markdown]
# ## 1. Load the harness
#
# The notebook imports the harness from the repository's `snippets/` folder. It looks for that
# folder in the current directory and its parents; if you keep the notebook elsewhere, set the
# environment variable `COURSE_SNIPPETS` to the folder's path.

# %%
import os
import sys
from pathlib import Path


def find_snippets() -> Path:
    """The course's snippets folder: $COURSE_SNIPPETS, or the nearest one above the cwd."""
    if os.environ.get("COURSE_SNIPPETS"):
        return Path(os.environ["COURSE_SNIPPETS"]).resolve()
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        if (folder / "snippets" / "checkpointing.py").is_file():
            return folder / "snippets"
    raise FileNotFoundError(
        "snippets/checkpointing.py not found above " + str(here) + ": run this notebook inside "
        "a clone of the course repository, or set COURSE_SNIPPETS to its snippets folder"
    )


sys.path.insert(0, str(find_snippets()))

import checkpointing  # noqa: E402
import torch  # noqa: E402

# Tiny tensors: one thread avoids thread start-up costs dominating, and keeps timings steadier.
torch.set_num_threads(1)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print("torch", torch.__version__, "on", device)

# %% [markdown]
# ## 2. Choose the sizes
#
# The model is a stack of $L$ identical pre-norm MLP blocks on an input of shape `[B, T, H]`
# (Lesson 2.1). One boundary tensor, of size $a$, is one `[B, T, H]` tensor; what backward needs
# from inside one block is $c = 10$ boundary units.
#
# The strategies' parameters always carry their names: **layers per checkpointed group** and
# **number of segments**. Change the numbers and re-run the notebook to explore; bigger sizes give
# steadier timings.

# %%
config = checkpointing.Config(
    layers=8,
    batch=2,
    tokens=32,
    hidden=64,
    dtype="float32",
    layers_per_group=(1, 2, 4),
    segments=(2, 3, 4, 8),
    warmup=2,
    repeats=7,
)
L, c, a = config.layers, checkpointing.ACTIVATIONS_PER_LAYER, config.boundary_bytes
print(f"L = {L} blocks, c = {c}, a = {a / 1024:.0f} KiB per boundary tensor")
print(f"Textbook sqrt(L) = {L**0.5:.1f}; smooth optimum sqrt(c*L) = {(c * L) ** 0.5:.1f} segments")

# %% [markdown]
# ## 3. Measure every strategy
#
# `run_benchmark` builds the model, runs each strategy on the same input and records: bytes saved
# for backward (counted with `saved_tensors_hooks`), peak memory (CUDA's counter, or on a CPU the
# allocator's events recorded by `torch.profiler`), the median step and forward times, and
# whether the gradients equal those without checkpointing.

# %%
results = checkpointing.run_benchmark(config, device)
rows = results["rows"]


def parameter(row: dict) -> str:
    """The strategy's parameter, named."""
    if row["layers_per_group"] is not None:
        n = row["layers_per_group"]
        return f"{n} layer{'' if n == 1 else 's'} per group"
    if row["segments"] is not None:
        return f"{row['segments']} segments"
    return ""


def percent(value: float | None) -> str:
    return "" if value is None else f"{100 * value:+.0f}%"


def units(value: float | None) -> str:
    """Bytes in units of a; blank where not measured (an out-of-memory row)."""
    return "" if value is None else f"{value / a:.1f}"


header = (
    f"{'strategy':<10} {'parameter':<19} {'predicted':>9} {'saved':>7} {'peak':>6} "
    f"{'step ms':>8} {'overhead':>8} {'estim.':>6}  gradients"
)
print("Memory in units of a (boundary tensors)")
print(header)
for row in rows:
    equal = {True: "equal", False: "DIFFER", None: "reference"}[row["grads_equal"]]
    print(
        f"{row['strategy']:<10} {parameter(row):<19} {units(row['predicted_saved_bytes']):>9} "
        f"{units(row['saved_bytes']):>7} {units(row['peak_bytes']):>6} "
        f"{1e3 * row['step_time_s']:>8.2f} {percent(row['overhead']):>8} "
        f"{percent(row['overhead_bound']):>6}  {equal}"
    )

# %% [markdown]
# What to look for:
#
# - **predicted against saved**: the prediction from $a$ and $c$ is close to exact for what
#   autograd stores.
# - **layers per group**: fewer boundaries are stored as groups grow, but the *stored* bytes leave
#   out the group being recomputed, whose internals are alive during its backward (the peak).
# - **segments**: the stored bytes are not monotone in the number of segments, because
#   `checkpoint_sequential` never checkpoints its last segment, and that segment also takes the
#   layers left over when $L$ does not divide evenly.
# - **offload** stores as much as no checkpointing, but on the host, and recomputes nothing.
# - **gradients**: every strategy must match the reference.
#
# At these tiny sizes on a CPU, a step takes milliseconds, so fixed per-call costs weigh heavily
# and timings vary from run to run; treat the timing columns as a demonstration of *how* to
# measure. Realistic overheads need realistic sizes (Lesson 2.8 says where its tables were
# measured).

# %% [markdown]
# ## 4. Plot memory and the trade-off

# %%
import matplotlib.pyplot as plt  # noqa: E402

fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
for name, key, marker in (("groups", "layers_per_group", "o"), ("segments", "segments", "s")):
    chosen = [r for r in rows if r["strategy"] == name]
    left.plot(
        [r[key] for r in chosen],
        [r["saved_bytes"] / a for r in chosen],
        marker=marker,
        label="layers per group" if name == "groups" else "number of segments",
    )
baseline = next(r for r in rows if r["strategy"] == "none")["saved_bytes"] / a
left.axhline(baseline, color="grey", linestyle="--", label="no checkpointing")
left.set_xlabel("strategy parameter")
left.set_ylabel("saved for backward (units of a)")
left.set_title("Stored activations")
left.legend()

for row in rows:
    right.scatter(1e3 * row["step_time_s"], row["saved_bytes"] / a)
    right.annotate(
        f"{row['strategy']} {parameter(row)}".strip(),
        (1e3 * row["step_time_s"], row["saved_bytes"] / a),
        fontsize=7,
    )
right.set_xlabel("median step time (ms)")
right.set_ylabel("saved for backward (units of a)")
right.set_title("Memory against time")
fig.tight_layout()
plt.show()

# %% [markdown]
# ## 5. Dropout and the RNG state
#
# Lesson 2.5 claims that with dropout inside a checkpoint, the default `preserve_rng_state=True`
# gives exactly the gradients of no checkpointing, and `False` gives silently different ones.
# Check it: the same block with dropout, three ways, each starting from the same random seed.

# %%
from torch import nn  # noqa: E402
from torch.utils.checkpoint import checkpoint  # noqa: E402

torch.manual_seed(0)
block = nn.Sequential(nn.Linear(64, 256), nn.GELU(), nn.Dropout(0.5), nn.Linear(256, 64))
x = torch.randn(4, 64)


def gradients(forward) -> list[torch.Tensor]:
    block.zero_grad()
    torch.manual_seed(123)  # the same dropout mask for the first forward of every run
    forward(x).sum().backward()
    return [p.grad.clone() for p in block.parameters()]


reference = gradients(block)
for preserve in (True, False):
    grads = gradients(
        lambda t, keep=preserve: checkpoint(block, t, use_reentrant=False, preserve_rng_state=keep)
    )
    same = all(torch.allclose(g, r) for g, r in zip(grads, reference, strict=True))
    print(f"preserve_rng_state={preserve}: gradients equal to no checkpointing: {same}")

# %% [markdown]
# ## 6. Your turn
#
# 1. Raise `layers` to 24 and add segment counts around $\sqrt{L}$, around $\sqrt{c \cdot L}$ and
#    at counts that divide 24 evenly. Where is
#    the stored memory smallest, and where is the *peak* (stored plus the segment being
#    recomputed) smallest? Use `predicted_peak_bytes` in `rows`.
# 2. Raise `batch`, `tokens` and `hidden` until one step takes a few hundred milliseconds. Does the
#    overhead of per-group checkpointing stay near its one-forward estimate as the group size
#    changes?
# 3. Write your own selective policy: copy `save_matmuls` from Lesson 2.5 and also return
#    `MUST_SAVE` for `torch.ops.aten.gelu.default`. Predict how many boundary units per layer it
#    stores (Lesson 2.6 counts 6 for `save_matmuls`), then measure it: build a model with
#    `checkpointing.build_model(L, config.hidden)`, open `meter = checkpointing.SavedBytes(params)`
#    as a `with` block around `checkpointing.run_selective(model, x, meter.watch(my_policy))`, and
#    divide `meter.total` by `L * a`. Compare with no checkpointing: what did the policy buy?
#
# Solutions: Exercise 2.6 in Lesson 2.8 (Gradient checkpointing), hidden until you open
# them. Results you would put in a pull request need the size and the hardware you train on;
# under each table, Lesson 2.8 says on which device, when and with which code it was measured.
# To see what the same model predicts for your own model's sizes before you measure, use the
# [memory planner](../lessons/02-part-3-measuring-and-choosing.html#planner) in Lesson 2.9.

# %%
# The provenance the harness records, as it would appear under a results table.
provenance = results["provenance"]
device_name, torch_version = provenance["device"]["name"], provenance["torch"]
print(f"{device_name} | torch {torch_version} | python {provenance['python']}")
print("code:", ", ".join(provenance["code"]["files"]))
