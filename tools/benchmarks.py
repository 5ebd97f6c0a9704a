"""Benchmark results files -> HTML for the site: tables, SVG plots and a summary.

The build only *reads* ``docs/benchmarks/<benchmark>-<device>.json``; measuring is pytest's job
(``tests/test_benchmarks.py`` on CPU, ``tests/test_benchmarks_gpu.py`` via
``.ci/gpu-benchmarks.sh`` on CUDA). A lesson embeds a view with::

    ::: benchmark checkpointing table
    :::

and :func:`render_embed` returns the HTML that replaces those lines. Views: ``table``,
``plot-memory``, ``plot-tradeoff``, ``summary``.

Staleness: each results file records a hash of the code that measured it. The hash is recomputed
here with the *same* function (``snippets/provenance.py``, loaded by path), so "stale" means the
same thing to the test that writes a file and to the build that shows it. A stale file still
renders, under a visible notice naming the command that regenerates it, and a
:class:`StaleResultsWarning` is issued; with ``strict=True`` (the publishing workflow) staleness
is a :class:`BenchmarkError`. A missing or malformed file is always a :class:`BenchmarkError`
that names the file.

Standard library only, output deterministic (same results in, same bytes out), and parsed files
are cached by modification time, so re-rendering unchanged results costs next to nothing.
Plots are hand-written SVG: no matplotlib import (slow), no random ids, colours that work on
light and dark (Material "slate") pages, and text in ``currentColor``.
"""

from __future__ import annotations

import html
import importlib.util
import json
import math
import warnings
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

RESULTS_DIR = Path("docs/benchmarks")
VIEWS = ("table", "plot-memory", "plot-tradeoff", "summary")
# benchmark name -> the snippet that measures it (its hash decides staleness)
BENCHMARKS = {"checkpointing": Path("snippets/checkpointing.py")}
SCHEMA_VERSION = 1
REGENERATE = {
    "cpu": "python3 -m tools test tests/test_benchmarks.py",
    "cuda": "bash .ci/gpu-benchmarks.sh (on a machine with CUDA)",
}


class BenchmarkError(Exception):
    """A benchmark embed cannot be rendered: unknown name or view, missing/malformed/stale file."""


class StaleResultsWarning(UserWarning):
    """A results file was produced by an older version of its measuring code."""


@dataclass(frozen=True)
class Results:
    """One parsed, validated results file."""

    path: Path  # relative to the repository root, for messages
    data: dict[str, Any]
    stale: bool

    @property
    def device(self) -> dict[str, Any]:
        return self.data["provenance"]["device"]

    @property
    def on_gpu(self) -> bool:
        return self.device["type"] == "cuda"

    @property
    def rows(self) -> list[dict[str, Any]]:
        return self.data["rows"]

    @property
    def memory_key(self) -> str:
        """Peak memory where the device counts it (CUDA), else bytes saved for backward."""
        return "peak_bytes" if self.on_gpu else "saved_bytes"


# --- loading ----------------------------------------------------------------------------------

_FILE_CACHE: dict[Path, tuple[tuple[int, int], dict[str, Any]]] = {}
_HASH_CACHE: dict[tuple[Any, ...], str] = {}
_PROVENANCE: dict[Path, tuple[int, ModuleType]] = {}


def render_embed(args: list[str], root: Path, *, strict: bool) -> str:
    """HTML for ``::: benchmark <name> <view>``.

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
    notices = []
    for result in results:
        if not result.stale:
            continue
        message = _stale_message(result)
        if strict:
            raise BenchmarkError(f"{result.path}: {message} (stale results are an error here)")
        warnings.warn(f"{result.path}: {message}", StaleResultsWarning, stacklevel=2)
        notices.append(_stale_notice(result, message))
    body = {
        "table": _view_table,
        "plot-memory": _view_plot_memory,
        "plot-tradeoff": _view_plot_tradeoff,
        "summary": _view_summary,
    }[view](results)
    return "\n".join([*notices, body])


def results_files(name: str, root: Path) -> list[Path]:
    """The results files of benchmark ``name`` (what a live-reload server should watch)."""
    return sorted((root / RESULTS_DIR).glob(f"{name}-*.json"))


def load_results(name: str, root: Path) -> list[Results]:
    """Every device's results for ``name``, GPUs first; raises if there are none."""
    paths = results_files(name, root)
    if not paths:
        raise BenchmarkError(
            f"{(RESULTS_DIR / f'{name}-<device>.json').as_posix()}: no results file; run "
            f"{REGENERATE['cpu']} to measure on CPU"
        )
    current = code_hash(BENCHMARKS[name], root)
    loaded = []
    for path in paths:
        rel = path.relative_to(root)
        data = _read(path, rel)
        _validate(data, rel, name)
        loaded.append(Results(rel, data, data["provenance"]["code"]["sha256"] != current))
    return sorted(loaded, key=lambda r: (not r.on_gpu, r.device["slug"]))


def _read(path: Path, rel: Path) -> dict[str, Any]:
    """Parsed JSON, cached by (mtime, size): unchanged files are read once per process."""
    try:
        stat = path.stat()
        key = (stat.st_mtime_ns, stat.st_size)
        cached = _FILE_CACHE.get(path)
        if cached and cached[0] == key:
            return cached[1]
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise BenchmarkError(f"{rel}: cannot read results file: {exc.strerror}") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BenchmarkError(f"{rel}:{exc.lineno}: malformed JSON: {exc.msg}") from exc
    _FILE_CACHE[path] = (key, data)
    return data


def _provenance_module(root: Path) -> ModuleType:
    """``snippets/provenance.py``, loaded by path: the one definition of the code hash."""
    path = (root / "snippets" / "provenance.py").resolve()
    try:
        mtime = path.stat().st_mtime_ns
    except OSError as exc:
        raise BenchmarkError(f"snippets/provenance.py: missing ({exc.strerror})") from exc
    cached = _PROVENANCE.get(path)
    if cached and cached[0] == mtime:
        return cached[1]
    spec = importlib.util.spec_from_file_location(f"_course_provenance_{len(_PROVENANCE)}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    _PROVENANCE[path] = (mtime, module)
    return module


def code_hash(entry: Path, root: Path) -> str:
    """Current hash of the measuring code, cached by the snippets' modification times."""
    folder = root / entry.parent
    try:
        key = (
            str(root.resolve()),
            entry.as_posix(),
            *sorted((p.name, p.stat().st_mtime_ns, p.stat().st_size) for p in folder.glob("*.py")),
        )
    except OSError as exc:
        raise BenchmarkError(f"{entry.parent}: cannot list the measuring code: {exc}") from exc
    if key not in _HASH_CACHE:
        if not (root / entry).is_file():
            raise BenchmarkError(f"{entry.as_posix()}: measuring code is missing")
        _HASH_CACHE[key] = _provenance_module(root).code_hash(root / entry, root)["sha256"]
    return _HASH_CACHE[key]


_ROW_KEYS = {
    "strategy": str,
    "status": str,
    "saved_on": str,
    "predicted_saved_bytes": (int, float),
    "predicted_peak_bytes": (int, float),
}
_OPTIONAL_NUMBERS = (
    "layers_per_group",
    "segments",
    "saved_bytes",
    "peak_bytes",
    "step_time_s",
    "forward_time_s",
    "overhead",
    "overhead_bound",
    "recomputed_fraction",
)


def _validate(data: Any, rel: Path, name: str) -> None:
    """Check the structure the renderer relies on; errors name the file and the key."""

    def fail(message: str) -> None:
        raise BenchmarkError(f"{rel}: malformed results file: {message}")

    def need(obj: Any, key: str, kind: Any, where: str) -> Any:
        if not isinstance(obj, dict) or key not in obj:
            fail(f"missing key '{where}{key}'")
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if not isinstance(obj[key], kinds) or (isinstance(obj[key], bool) and bool not in kinds):
            fail(f"'{where}{key}' has the wrong type ({type(obj[key]).__name__})")
        return obj[key]

    if not isinstance(data, dict):
        fail("expected a JSON object at the top level")
    if need(data, "schema_version", int, "") != SCHEMA_VERSION:
        fail(f"schema_version {data['schema_version']} is not {SCHEMA_VERSION}")
    if need(data, "benchmark", str, "") != name:
        fail(f"'benchmark' is {data['benchmark']!r}, expected {name!r}")
    prov = need(data, "provenance", dict, "")
    device = need(prov, "device", dict, "provenance.")
    for key in ("type", "name", "slug"):
        need(device, key, str, "provenance.device.")
    for key in ("torch", "date"):
        need(prov, key, str, "provenance.")
    for key in ("cuda", "git_commit"):
        need(prov, key, (str, type(None)), "provenance.")
    code = need(prov, "code", dict, "provenance.")
    need(code, "sha256", str, "provenance.code.")
    need(code, "files", list, "provenance.code.")
    config = need(data, "config", dict, "")
    for key in ("layers", "batch", "tokens", "hidden"):
        need(config, key, int, "config.")
    need(config, "dtype", str, "config.")
    model = need(data, "model", dict, "")
    need(model, "boundary_bytes", int, "model.")
    need(model, "activations_per_layer", (int, float), "model.")
    rows = need(data, "rows", list, "")
    if not rows:
        fail("'rows' is empty")
    for i, row in enumerate(rows):
        where = f"rows[{i}]."
        for key, kind in _ROW_KEYS.items():
            need(row, key, kind, where)
        for key in _OPTIONAL_NUMBERS:
            need(row, key, (int, float, type(None)), where)
        need(row, "grads_equal", (bool, type(None)), where)
        if row["status"] not in ("ok", "oom"):
            fail(f"'{where}status' is {row['status']!r}, expected 'ok' or 'oom'")
        if row["status"] == "ok" and row["saved_bytes"] is None:
            fail(f"'{where}saved_bytes' is missing for a measured row")


def _stale_message(result: Results) -> str:
    files = ", ".join(result.data["provenance"]["code"]["files"])
    command = REGENERATE["cuda" if result.on_gpu else "cpu"]
    return f"results are stale: the measuring code ({files}) changed since; regenerate: {command}"


def _stale_notice(result: Results, message: str) -> str:
    command = REGENERATE["cuda" if result.on_gpu else "cpu"]
    files = ", ".join(f"<code>{_e(f)}</code>" for f in result.data["provenance"]["code"]["files"])
    return (
        '<div class="admonition warning benchmark-stale" role="note">\n'
        '<p class="admonition-title">Stale results</p>\n'
        f"<p>The results for {_e(result.device['name'])} (<code>{_e(result.path.as_posix())}"
        f"</code>) were measured with an older version of {files}. The numbers below may no "
        f"longer match the code. Regenerate them with <code>{_e(command)}</code>.</p>\n"
        "</div>"
    )


# --- formatting -------------------------------------------------------------------------------


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def fmt_bytes(n: float | None) -> str:
    if n is None:
        return "—"
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if abs(n) >= size:
            value = n / size
            digits = 2 if value < 10 else 1 if value < 100 else 0
            return f"{value:.{digits}f} {unit}"
    return f"{n:.0f} B"


def fmt_time(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    if seconds >= 10:
        return f"{seconds:.1f} s"
    ms = seconds * 1e3
    return f"{ms:.3g} ms" if ms < 100 else f"{ms:.0f} ms"


def fmt_percent(x: float) -> str:
    return f"{x * 100:+.0f}%"


STRATEGY_NAMES = {
    "none": "No checkpointing",
    "groups": "checkpoint() per group",
    "segments": "checkpoint_sequential()",
    "selective": "Selective (save matmuls)",
    "offload": "CPU offload (save_on_cpu)",
}


def describe_parameter(row: dict[str, Any]) -> str:
    """Always named: "2 layers per group", "5 segments" (never a bare k)."""
    if row.get("layers_per_group") is not None:
        n = row["layers_per_group"]
        return f"{n} layer{'' if n == 1 else 's'} per group"
    if row.get("segments") is not None:
        return f"{row['segments']} segments"
    return "—"


def _label(row: dict[str, Any]) -> str:
    name = STRATEGY_NAMES.get(row["strategy"], row["strategy"])
    param = describe_parameter(row)
    return name if param == "—" else f"{name}, {param}"


def _ratio(measured: float | None, predicted: float | None) -> float | None:
    if measured is None or not predicted:
        return None
    return measured / predicted


def _shape(result: Results) -> str:
    c = result.data["config"]
    return (
        f"{c['layers']} blocks, input [{c['batch']}, {c['tokens']}, {c['hidden']}] {c['dtype']}, "
        f"a = {fmt_bytes(result.data['model']['boundary_bytes'])} per block boundary"
    )


def _provenance_line(result: Results) -> str:
    prov = result.data["provenance"]
    parts = [f"Measured on {_e(result.device['name'])}"]
    versions = f"torch {_e(prov['torch'])}"
    if prov.get("cuda"):
        versions += f", CUDA {_e(prov['cuda'])}"
    parts.append(versions)
    parts.append(_e(prov["date"].replace("T", " ").replace("Z", " UTC")))
    commit = prov.get("git_commit")
    if commit:
        text = f"commit <code>{_e(commit[:10])}</code>"
        if prov.get("code_modified_since_commit"):
            text += " plus uncommitted changes to the measuring code"
        parts.append(text)
    else:
        parts.append("commit unknown")
    parts.append(f"code hash <code>{_e(prov['code']['sha256'][:12])}</code>")
    parts.append(f"file <code>{_e(result.path.as_posix())}</code>")
    return '<p class="benchmark-provenance">' + " · ".join(parts) + "</p>"


# --- table ------------------------------------------------------------------------------------


def _view_table(results: list[Results]) -> str:
    return "\n".join(_table(r) for r in results)


def _table(result: Results) -> str:
    gpu = result.on_gpu
    quantity = "peak" if gpu else "saved"
    # The second memory quantity: saved bytes on a GPU; peak memory only where it was measured.
    other_key = "saved_bytes" if gpu else "peak_bytes"
    show_other = any(row.get(other_key) is not None for row in result.rows)
    head = [
        "Strategy",
        f"Predicted {quantity}",
        f"Measured {quantity}",
        "Measured / predicted",
        *(["Saved for backward" if gpu else "Peak memory"] if show_other else []),
        "Step time",
        "Overhead / one-forward bound",
        "Gradients equal",
    ]
    note = f"{_e(_shape(result))}. " + (
        "Predicted and measured: peak memory above parameters and gradients."
        if gpu
        else "Predicted and measured: bytes saved for backward (a CPU has no peak-memory "
        "counter; offload’s figure is host memory)."
    )
    lines = [
        '<div class="benchmark benchmark-table">',
        f'<p class="benchmark-note">{note}</p>',
        "<table>",  # no class: Material styles (and scroll-wraps) plain tables only
        f"<caption>Gradient checkpointing on {_e(result.device['name'])}</caption>",
        "<thead><tr>" + "".join(f'<th scope="col">{_e(h)}</th>' for h in head) + "</tr></thead>",
        "<tbody>",
    ]
    for row in result.rows:
        lines.append(_table_row(row, gpu, show_other))
    lines += ["</tbody>", "</table>", _provenance_line(result), "</div>"]
    return "\n".join(lines)


def _table_row(row: dict[str, Any], gpu: bool, show_other: bool) -> str:
    key = "peak_bytes" if gpu else "saved_bytes"
    predicted = row["predicted_peak_bytes"] if gpu else row["predicted_saved_bytes"]
    parameter = describe_parameter(row)
    strategy = _e(STRATEGY_NAMES.get(row["strategy"], row["strategy"]))
    if parameter != "—":
        strategy += f"<br><small>{_e(parameter)}</small>"
    cells = [f'<th scope="row">{strategy}</th>', f'<td class="num">{fmt_bytes(predicted)}</td>']
    if row["status"] == "oom":
        cells.append(
            f'<td class="num benchmark-oom" colspan="{5 + show_other}">'
            "<strong>OOM</strong>: ran out of memory (a result, not a crash)</td>"
        )
        return '<tr class="benchmark-oom">' + "".join(cells) + "</tr>"
    ratio = _ratio(row[key], predicted)
    other_text = fmt_bytes(row["saved_bytes"] if gpu else row["peak_bytes"])
    if gpu and row["saved_on"] == "host":
        other_text += " (host)"
    cells += [
        f'<td class="num">{fmt_bytes(row[key])}</td>',
        f'<td class="num">{"—" if ratio is None else f"{ratio:.2f}"}</td>',
        *([f'<td class="num">{other_text}</td>'] if show_other else []),
        f'<td class="num">{fmt_time(row["step_time_s"])}</td>',
        f'<td class="num">{_overhead_text(row)}</td>',
        f"<td>{_grads_text(row)}</td>",
    ]
    return "<tr>" + "".join(cells) + "</tr>"


def _overhead_text(row: dict[str, Any]) -> str:
    if row["strategy"] == "none":
        return "baseline"
    if row.get("overhead") is None:
        return "—"
    bound = row.get("overhead_bound")
    if bound is None:
        return f"{fmt_percent(row['overhead'])} / none (no recompute)"
    return f"{fmt_percent(row['overhead'])} / {fmt_percent(bound)}"


def _grads_text(row: dict[str, Any]) -> str:
    if row["strategy"] == "none":
        return "reference"
    if row["grads_equal"] is None:
        return "—"
    return "yes" if row["grads_equal"] else "<strong>NO: a bug</strong>"


# --- plots ------------------------------------------------------------------------------------

# Two hues readable on white and on Material's dark "slate" background; series also differ by
# marker shape and dash pattern, so colour is never the only cue.
_STYLE = (
    "<style>"
    ".bm-a{color:#1559b0}.bm-b{color:#b3470c}.bm-c{color:#2e7d32}.bm-d{color:#7b1fa2}"
    '[data-md-color-scheme="slate"] .bm-a{color:#8ab8ff}'
    '[data-md-color-scheme="slate"] .bm-b{color:#ffab70}'
    '[data-md-color-scheme="slate"] .bm-c{color:#81c784}'
    '[data-md-color-scheme="slate"] .bm-d{color:#d59be6}'
    ".benchmark-svg .bm-mark{fill:currentColor;stroke:currentColor}"
    ".benchmark-svg .bm-hollow{fill:none;stroke:currentColor;stroke-width:1.5}"
    ".benchmark-svg .bm-line{fill:none;stroke:currentColor;stroke-width:2}"
    ".benchmark-svg .bm-pred{stroke-dasharray:6 4;stroke-width:1.5}"
    ".benchmark-svg .bm-grid{stroke:currentColor;stroke-opacity:.15}"
    ".benchmark-svg .bm-axis{stroke:currentColor}"
    ".benchmark-svg .bm-ref{fill:none;stroke:currentColor;stroke-dasharray:2 3}"
    "</style>"
)
_W, _H = 680, 400
_LEFT, _RIGHT, _TOP, _BOTTOM = 72, 20, 44, 56


def _ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """'Nice' tick values covering [lo, hi]."""
    if hi <= lo:
        hi = lo + 1
    raw = (hi - lo) / count
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    start = math.floor(lo / step) * step
    ticks, value = [], start
    while value <= hi + step * 1e-9:
        ticks.append(round(value, 10))
        value += step
    if ticks[-1] < hi:
        ticks.append(round(value, 10))
    return ticks


def _unit(max_bytes: float) -> tuple[str, float]:
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if max_bytes >= size:
            return unit, size
    return "B", 1


def _num(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".") if abs(x - round(x)) > 1e-9 else f"{round(x)}"


class _Chart:
    """A tiny SVG plotting surface with linear axes."""

    def __init__(self, x_range: tuple[float, float], y_range: tuple[float, float]) -> None:
        self.xt = _ticks(*x_range)
        self.yt = _ticks(*y_range)
        self.parts: list[str] = []

    def x(self, v: float) -> float:
        lo, hi = self.xt[0], self.xt[-1]
        return _LEFT + (v - lo) / (hi - lo) * (_W - _LEFT - _RIGHT)

    def y(self, v: float) -> float:
        lo, hi = self.yt[0], self.yt[-1]
        return _H - _BOTTOM - (v - lo) / (hi - lo) * (_H - _TOP - _BOTTOM)

    def axes(self, x_label: str, y_label: str, x_fmt: Any = _num, y_fmt: Any = _num) -> None:
        p = self.parts
        for v in self.yt:
            y = self.y(v)
            p.append(
                f'<line class="bm-grid" x1="{_LEFT}" x2="{_W - _RIGHT}" y1="{y:.1f}" y2="{y:.1f}"/>'
            )
            p.append(f'<text x="{_LEFT - 8}" y="{y + 4:.1f}" text-anchor="end">{y_fmt(v)}</text>')
        for v in self.xt:
            x = self.x(v)
            p.append(
                f'<line class="bm-axis" x1="{x:.1f}" x2="{x:.1f}" y1="{_H - _BOTTOM}" '
                f'y2="{_H - _BOTTOM + 5}"/>'
            )
            p.append(
                f'<text x="{x:.1f}" y="{_H - _BOTTOM + 19}" text-anchor="middle">{x_fmt(v)}</text>'
            )
        p.append(
            f'<line class="bm-axis" x1="{_LEFT}" x2="{_W - _RIGHT}" y1="{_H - _BOTTOM}" '
            f'y2="{_H - _BOTTOM}"/>'
        )
        p.append(
            f'<line class="bm-axis" x1="{_LEFT}" x2="{_LEFT}" y1="{_TOP}" y2="{_H - _BOTTOM}"/>'
        )
        p.append(
            f'<text x="{(_LEFT + _W - _RIGHT) / 2:.1f}" y="{_H - 12}" '
            f'text-anchor="middle">{_e(x_label)}</text>'
        )
        p.append(
            f'<text transform="translate(16 {(_TOP + _H - _BOTTOM) / 2:.1f}) rotate(-90)" '
            f'text-anchor="middle">{_e(y_label)}</text>'
        )

    def marker(self, shape: str, cls: str, x: float, y: float, hollow: bool = False) -> None:
        c = f"{cls} bm-hollow" if hollow else f"{cls} bm-mark"
        if shape == "square":
            self.parts.append(
                f'<rect class="{c}" x="{x - 4:.1f}" y="{y - 4:.1f}" width="8" height="8"/>'
            )
        elif shape == "triangle":
            pts = f"{x:.1f},{y - 5:.1f} {x + 5:.1f},{y + 4:.1f} {x - 5:.1f},{y + 4:.1f}"
            self.parts.append(f'<polygon class="{c}" points="{pts}"/>')
        elif shape == "diamond":
            pts = f"{x:.1f},{y - 5:.1f} {x + 5:.1f},{y:.1f} {x:.1f},{y + 5:.1f} {x - 5:.1f},{y:.1f}"
            self.parts.append(f'<polygon class="{c}" points="{pts}"/>')
        else:
            self.parts.append(f'<circle class="{c}" cx="{x:.1f}" cy="{y:.1f}" r="4"/>')

    def polyline(self, cls: str, points: list[tuple[float, float]]) -> None:
        pts = " ".join(f"{self.x(a):.1f},{self.y(b):.1f}" for a, b in points)
        self.parts.append(f'<polyline class="{cls}" points="{pts}"/>')

    def legend(self, items: list[tuple[str, str, str, bool]], lines: bool = True) -> None:
        """(shape, colour class, text, dashed) entries in one row above the plot area."""
        x = _LEFT
        for shape, cls, text, dashed in items:
            if lines:
                line_cls = f"{cls} bm-line" + (" bm-pred" if dashed else "")
                self.parts.append(
                    f'<line class="{line_cls}" x1="{x}" x2="{x + 22}" y1="18" y2="18"/>'
                )
            self.marker(shape, cls, x + 11, 18, hollow=dashed)
            self.parts.append(f'<text x="{x + 28}" y="22">{_e(text)}</text>')
            x += 44 + 7.0 * len(text)

    def svg(self, label: str, title: str) -> str:
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_W} {_H}" width="{_W}" '
            f'height="{_H}" role="img" aria-label="{_e(label)}" class="benchmark-svg" '
            'style="max-width:100%;height:auto;font:12px sans-serif;fill:currentColor">'
            f"<title>{_e(title)}</title>{_STYLE}" + "".join(self.parts) + "</svg>"
        )


def _figure(svg: str, caption: str) -> str:
    return (
        f'<div class="benchmark benchmark-plot">\n<figure>\n{svg}\n'
        f"<figcaption>{caption}</figcaption>\n</figure>\n</div>"
    )


def _ok(rows: list[dict[str, Any]], strategy: str) -> list[dict[str, Any]]:
    return [r for r in rows if r["strategy"] == strategy and r["status"] == "ok"]


def _view_plot_memory(results: list[Results]) -> str:
    return "\n".join(_plot_memory(r) for r in results)


def _plot_memory(result: Results) -> str:
    gpu, key = result.on_gpu, result.memory_key
    pred_key = "predicted_peak_bytes" if gpu else "predicted_saved_bytes"
    quantity = "Peak memory above parameters" if gpu else "Bytes saved for backward"
    groups = sorted(_ok(result.rows, "groups"), key=lambda r: r["layers_per_group"])
    segs = sorted(_ok(result.rows, "segments"), key=lambda r: r["segments"])
    none = _ok(result.rows, "none")
    all_rows = [r for r in result.rows if r["strategy"] in ("groups", "segments")]
    values = [r[pred_key] for r in all_rows] + [r[key] for r in groups + segs + none]
    unit, scale = _unit(max(values, default=1))
    params = [r["layers_per_group"] or r["segments"] for r in all_rows] or [1]
    chart = _Chart((0, max(params)), (0, max(values, default=1) / scale))
    chart.axes("Layers per checkpointed group / number of segments", f"{quantity} ({unit})")
    series = [
        ("groups", groups, "layers_per_group", "circle", "bm-a"),
        ("segments", segs, "segments", "square", "bm-b"),
    ]
    for _, rows, param, shape, cls in series:
        pred_rows = sorted(
            (r for r in all_rows if r.get(param) is not None), key=lambda r: r[param]
        )
        if pred_rows:
            chart.polyline(
                f"{cls} bm-line bm-pred", [(r[param], r[pred_key] / scale) for r in pred_rows]
            )
            for r in pred_rows:
                chart.marker(shape, cls, chart.x(r[param]), chart.y(r[pred_key] / scale), True)
        if rows:
            chart.polyline(f"{cls} bm-line", [(r[param], r[key] / scale) for r in rows])
            for r in rows:
                chart.marker(shape, cls, chart.x(r[param]), chart.y(r[key] / scale))
    if none:
        y = chart.y(none[0][key] / scale)
        chart.parts.append(
            f'<line class="bm-ref" x1="{_LEFT}" x2="{_W - _RIGHT}" y1="{y:.1f}" y2="{y:.1f}"/>'
        )
        chart.parts.append(
            f'<text x="{_W - _RIGHT - 4}" y="{y - 6:.1f}" text-anchor="end">no checkpointing</text>'
        )
    chart.legend(
        [
            ("circle", "bm-a", "groups: measured", False),
            ("circle", "bm-a", "predicted", True),
            ("square", "bm-b", "segments: measured", False),
            ("square", "bm-b", "predicted", True),
        ]
    )
    label = _memory_summary(result, groups, segs, none, key, quantity.lower())
    title = f"{quantity} against strategy parameter, {result.device['name']}"
    oom = sum(1 for r in all_rows if r["status"] == "oom")
    caption = (
        f"{_e(quantity)} for checkpointing every group of N layers (circles) and for "
        f"<code>checkpoint_sequential</code> with N segments (squares), measured (solid) and "
        f"predicted from per-layer sizes (dashed), on {_e(result.device['name'])}; "
        f"{_e(_shape(result))}."
        + (f" {oom} configuration(s) ran out of memory and are not drawn." if oom else "")
    )
    return _figure(chart.svg(label, title), caption)


def _memory_summary(
    result: Results,
    groups: list[dict[str, Any]],
    segs: list[dict[str, Any]],
    none: list[dict[str, Any]],
    key: str,
    quantity: str,
) -> str:
    """The aria-label: what a sighted reader takes from the chart, in one sentence."""
    parts = [f"Line chart of {quantity} on {result.device['name']}."]
    if none:
        parts.append(f"Without checkpointing: {fmt_bytes(none[0][key])}.")
    for name, rows, param in (
        ("Groups", groups, "layers_per_group"),
        ("Segments", segs, "segments"),
    ):
        if rows:
            best = min(rows, key=lambda r: r[key])
            parts.append(
                f"{name}: from {fmt_bytes(rows[0][key])} at {rows[0][param]} to "
                f"{fmt_bytes(rows[-1][key])} at {rows[-1][param]}; lowest "
                f"{fmt_bytes(best[key])} at {best[param]}."
            )
    return " ".join(parts)


def _view_plot_tradeoff(results: list[Results]) -> str:
    return "\n".join(_plot_tradeoff(r) for r in results)


_FAMILY = {
    "none": ("diamond", "bm-n"),  # no colour class: the page's text colour
    "groups": ("circle", "bm-a"),
    "segments": ("square", "bm-b"),
    "selective": ("triangle", "bm-c"),
    "offload": ("diamond", "bm-d"),
}


def _short(row: dict[str, Any]) -> str:
    if row["strategy"] == "groups":
        return f"{row['layers_per_group']}/group"
    if row["strategy"] == "segments":
        return f"{row['segments']} seg"
    return {"none": "none", "selective": "selective", "offload": "offload"}[row["strategy"]]


_LABEL_SPOTS = [
    (dx, dy, anchor)
    for reach in (0, 12, 24)
    for dx, dy, anchor in (
        (8, 4, "start"),
        (-8, 4, "end"),
        (0, -10 - reach, "middle"),
        (0, 18 + reach, "middle"),
        (8, -8 - reach, "start"),
        (8, 16 + reach, "start"),
        (-8, -8 - reach, "end"),
        (-8, 16 + reach, "end"),
    )
]


def _place_label(
    x: float, y: float, width: float, placed: list[tuple[float, float, float, float]]
) -> tuple[float, float, str]:
    """First spot near (x, y) whose text box is free and inside the plot; records the box."""
    chosen = fallback = None
    for dx, dy, anchor in _LABEL_SPOTS:
        left = x + dx - {"start": 0, "end": width, "middle": width / 2}[anchor]
        box = (left, y + dy - 11, left + width, y + dy + 3)
        inside = _LEFT < box[0] < box[2] < _W - _RIGHT and _TOP < box[1] < box[3] < _H - _BOTTOM
        if not inside:
            continue
        fallback = fallback or (dx, dy, anchor, box)  # crowded everywhere: nearest inside spot
        if not any(
            box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3] for b in placed
        ):
            chosen = (dx, dy, anchor, box)
            break
    chosen = chosen or fallback or (8.0, 4.0, "start", (x, y, x, y))
    placed.append(chosen[3])
    return chosen[0], chosen[1], chosen[2]


def _plot_tradeoff(result: Results) -> str:
    gpu, key = result.on_gpu, result.memory_key
    quantity = "Peak memory above parameters" if gpu else "Bytes saved for backward"
    rows = [
        r
        for r in result.rows
        if r["status"] == "ok"
        and r["step_time_s"] is not None
        and r[key] is not None
        and (gpu or r["saved_on"] == "device")
    ]
    if not rows:
        return _figure(
            '<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="no timed '
            'results" viewBox="0 0 10 10" width="10" height="10"></svg>',
            f"No timed results for {_e(result.device['name'])}.",
        )
    unit, scale = _unit(max(r[key] for r in rows))
    times = [r["step_time_s"] * 1e3 for r in rows]
    base = next((r for r in rows if r["strategy"] == "none"), None)
    bound_ms = None
    if base is not None and base.get("forward_time_s") is not None:
        bound_ms = (base["step_time_s"] + base["forward_time_s"]) * 1e3
        times.append(bound_ms)
    # Time axis from just below the fastest step: points spread out, and the axis is labelled.
    chart = _Chart((min(times) * 0.9, max(times)), (0, max(r[key] for r in rows) / scale))
    chart.axes("Median step time (ms)", f"{quantity} ({unit})")
    if bound_ms is not None:
        x = chart.x(bound_ms)
        chart.parts.append(
            f'<line class="bm-ref" x1="{x:.1f}" x2="{x:.1f}" y1="{_TOP}" y2="{_H - _BOTTOM}"/>'
        )
        chart.parts.append(
            f'<text x="{x - 4:.1f}" y="{_TOP + 12}" text-anchor="end">one extra forward</text>'
        )
    points = []
    for r in sorted(rows, key=lambda r: (r["step_time_s"], r[key])):
        shape, cls = _FAMILY.get(r["strategy"], ("circle", "bm-a"))
        x, y = chart.x(r["step_time_s"] * 1e3), chart.y(r[key] / scale)
        chart.marker(shape, cls, x, y)
        points.append((x, y, _short(r)))
    # Labels go where they overlap neither a marker nor another label, if such a place exists.
    placed = [(x - 6, y - 6, x + 6, y + 6) for x, y, _ in points]
    for x, y, text in points:
        dx, dy, anchor = _place_label(x, y, 7.0 * len(text), placed)
        chart.parts.append(
            f'<text x="{x + dx:.1f}" y="{y + dy:.1f}" text-anchor="{anchor}">{_e(text)}</text>'
        )
    chart.legend(
        [
            ("circle", "bm-a", "groups", False),
            ("square", "bm-b", "segments", False),
            ("triangle", "bm-c", "selective", False),
            ("diamond", "bm-d", "offload", False),
            ("diamond", "bm-n", "none", False),
        ],
        lines=False,
    )
    fastest_low = min(rows, key=lambda r: (r[key], r["step_time_s"]))
    label = (
        f"Scatter chart of {quantity.lower()} against median step time on "
        f"{result.device['name']}, one point per strategy. "
        + (
            f"No checkpointing: {fmt_bytes(base[key])} at {fmt_time(base['step_time_s'])}. "
            if base
            else ""
        )
        + f"Least memory: {_label(fastest_low)}, {fmt_bytes(fastest_low[key])} at "
        f"{fmt_time(fastest_low['step_time_s'])}."
    )
    title = f"Memory against step time, {result.device['name']}"
    caption = (
        f"Trade-off: {_e(quantity.lower())} against median step time, one point per strategy, "
        f"on {_e(result.device['name'])}. The dotted vertical line marks one extra forward pass "
        "on top of a step without checkpointing, the bound for recomputing everything once."
        + ("" if gpu else " CPU offload is not drawn: on a CPU run it moves nothing off-device.")
    )
    return _figure(chart.svg(label, title), caption)


# --- summary ----------------------------------------------------------------------------------


def _summary_column(result: Results) -> list[str]:
    key = result.memory_key
    rows = [r for r in result.rows if r["status"] == "ok"]
    measured = "peak" if result.on_gpu else "saved for backward"
    none = next((r for r in rows if r["strategy"] == "none"), None)
    candidates = [r for r in rows if r[key] is not None and r["saved_on"] == "device"]
    best = min(candidates, key=lambda r: r[key]) if candidates else None
    cells = [fmt_bytes(none[key]) + f" ({measured})" if none else "—"]
    if best is not None:
        cells.append(f"{fmt_bytes(best[key])}: {_e(_label(best))}")
        cells.append(f"{none[key] / best[key]:.1f}× less" if none and best[key] else "—")
        cells.append(_overhead_text(best) if best.get("overhead") is not None else "—")
    else:
        cells += ["—", "—", "—"]
    segs = [r for r in rows if r["strategy"] == "segments"]
    config, model = result.data["config"], result.data["model"]
    layers, c = config["layers"], model["activations_per_layer"]
    if segs:
        best_seg = min(segs, key=lambda r: r[key])
        cells.append(
            f"{best_seg['segments']} segments (√L = {math.sqrt(layers):.1f}; √(c·L) = "
            f"{math.sqrt(c * layers):.1f})"
        )
    else:
        cells.append("—")
    pred_key = "predicted_peak_bytes" if result.on_gpu else "predicted_saved_bytes"
    ratios = [_ratio(r[key], r[pred_key]) for r in rows]
    ratios = [x for x in ratios if x is not None]
    cells.append(f"{min(ratios):.2f} to {max(ratios):.2f}" if ratios else "—")
    compared = [r for r in rows if r["grads_equal"] is not None]
    equal = sum(1 for r in compared if r["grads_equal"])
    oom = sum(1 for r in result.rows if r["status"] == "oom")
    text = f"{equal} of {len(compared)} strategies"
    if oom:
        text += f" ({oom} OOM)"
    cells.append(text if compared else "—")
    return cells


def _view_summary(results: list[Results]) -> str:
    labels = [
        "Memory without checkpointing",
        "Lowest memory measured",
        "Reduction",
        "Its step-time overhead / one-forward bound",
        "Best segment count",
        "Measured / predicted, all rows",
        "Gradients equal to no checkpointing",
    ]
    columns = [_summary_column(r) for r in results]
    head = "".join(f'<th scope="col">{_e(r.device["name"])}</th>' for r in results)
    lines = [
        '<div class="benchmark benchmark-summary">',
        "<table>",
        "<caption>Gradient checkpointing: the key measured ratios per device</caption>",
        f'<thead><tr><th scope="col">Quantity</th>{head}</tr></thead>',
        "<tbody>",
    ]
    for i, label in enumerate(labels):
        cells = "".join(f'<td class="num">{col[i]}</td>' for col in columns)
        lines.append(f'<tr><th scope="row">{_e(label)}</th>{cells}</tr>')
    lines += ["</tbody>", "</table>"]
    lines += [_provenance_line(r) for r in results]
    lines.append("</div>")
    return "\n".join(lines)
