#!/usr/bin/env bash
# Regenerate the GPU benchmark results on a machine with CUDA, torch and pytest (nothing else).
#
#   bash .ci/gpu-benchmarks.sh            # results + log in build/gpu/, and docs/benchmarks/ updated
#   OUT=/some/dir bash .ci/gpu-benchmarks.sh
#   BENCHMARK_RESULTS_DIR=/tmp/r bash .ci/gpu-benchmarks.sh   # the test writes there instead
#
# Runs only the gpu-marked test file (it imports torch, pytest, the standard library and
# snippets/, never the course engine), then copies the results file(s) it wrote and the log
# into "${OUT:-build/gpu}". Fails when CUDA is missing: a skipped run must not look like a result.
# Installs nothing and never uses the network (the GPU machine has none): when torch or pytest
# is missing it says what to install, and stops.
# Commit docs/benchmarks/checkpointing-<gpu>.json unedited afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."

out="${OUT:-build/gpu}"
python="${PYTHON:-python3}"
export BENCHMARK_RESULTS_DIR="${BENCHMARK_RESULTS_DIR:-docs/benchmarks}"
mkdir -p "$out" "$BENCHMARK_RESULTS_DIR"
log="$out/gpu-benchmarks.log"

# The same ranges as pyproject.toml; torch must be a CUDA build for this machine's driver.
missing=() specs=()
for pair in "torch:torch>=2.4,<3" "pytest:pytest>=8.3,<10"; do
  if ! "$python" -c "import ${pair%%:*}" >/dev/null 2>&1; then
    missing+=("${pair%%:*}") specs+=("'${pair#*:}'")
  fi
done
if [ "${#missing[@]}" -gt 0 ]; then
  {
    echo "gpu-benchmarks: $python cannot import ${missing[*]}. This script installs nothing and"
    echo "uses no network. Install into that Python, then run it again:"
    echo "  $python -m pip install ${specs[*]}"
    echo "(torch: a CUDA build that matches the driver), or set PYTHON= to a Python that has them."
  } | tee "$log" >&2
  exit 1
fi
if ! "$python" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)'; then
  echo "gpu-benchmarks: torch sees no CUDA device; nothing measured" | tee "$log" >&2
  exit 1
fi

marker="$(mktemp)"
trap 'rm -f "$marker"' EXIT
{
  echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(git rev-parse HEAD 2>/dev/null || echo 'no git')"
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version \
    --format=csv,noheader || true
  "$python" -c 'import torch; print("torch", torch.__version__, "CUDA", torch.version.cuda)'
} >"$log" 2>&1

status=0
"$python" -m pytest -m gpu -p no:cacheprovider -q -rA tests/test_benchmarks_gpu.py 2>&1 \
  | tee -a "$log" || status=$?

# Copy every results file this run wrote (newer than the marker), whatever the GPU's name.
copied=0
while IFS= read -r -d '' file; do
  cp "$file" "$out/"
  echo "gpu-benchmarks: $file -> $out/" | tee -a "$log"
  copied=$((copied + 1))
done < <(find "$BENCHMARK_RESULTS_DIR" -maxdepth 1 -name '*.json' -newer "$marker" -print0)

if [ "$status" -eq 0 ] && [ "$copied" -eq 0 ]; then
  echo "gpu-benchmarks: the tests passed but wrote no results file" | tee -a "$log" >&2
  status=1
fi
exit "$status"
