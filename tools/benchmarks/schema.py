"""The structure of a results file that the views rely on, checked before anything is drawn.

A hand-edited or half-written file fails here with the file and the exact key named, instead of
as a ``KeyError`` deep inside a plot.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tools.benchmarks.errors import BenchmarkError

SCHEMA_VERSION = 1

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


def validate(data: Any, rel: Path, name: str) -> None:
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
