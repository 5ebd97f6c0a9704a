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
# Needs about the GPU memory README.md states (.ci/gpu_memory.py works it out); checks first.
# Publishing: .github/workflows/publish.yml runs this, attests the file and builds the site from
# it; a file committed by hand is shown as "submitted", not as measured by the site.
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
# CUDA present, and enough free memory on the device for the full size (worked out from the
# course's memory model by .ci/gpu_memory.py): say so plainly before measuring anything.
if ! "$python" .ci/gpu_memory.py --check >"$log" 2>&1; then
  cat "$log" >&2
  exit 1
fi

marker="$(mktemp)"
trap 'rm -f "$marker"' EXIT
{
  cat "$log"
  echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(git rev-parse HEAD 2>/dev/null || echo 'no git')"
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version \
    --format=csv,noheader || true
  "$python" -c 'import torch; print("torch", torch.__version__, "CUDA", torch.version.cuda)'
} >"$log.tmp" 2>&1
mv "$log.tmp" "$log"

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
