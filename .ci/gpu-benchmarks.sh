#!/usr/bin/env bash
# Regenerate the GPU benchmark results on a machine with CUDA, torch and pytest (nothing else).
#
#   bash .ci/gpu-benchmarks.sh            # results + log in build/gpu/, and docs/benchmarks/ updated
#   OUT=/some/dir bash .ci/gpu-benchmarks.sh
#   BENCHMARK_RESULTS_DIR=/tmp/r bash .ci/gpu-benchmarks.sh   # the test writes there instead
#
# Runs only the gpu-marked test file (it imports torch, pytest, the standard library and
# snippets/, never the course engine), then copies the one results file it wrote for this
# device (named from torch.cuda.get_device_name()) and the log into "${OUT:-build/gpu}".
# Fails when CUDA is missing (a skipped run must not look like a result), and when the run
# changed any other file in docs/benchmarks/ or the results folder: the snippets and tests are
# contributors' code, and only the harness's file for this device may leave this machine.
# The CUDA check imports torch alone, before any of that code is imported.
# Installs nothing and never uses the network (the GPU machine has none): when torch or pytest
# is missing it says what to install, and stops.
# Needs about the GPU memory README.md states (.ci/gpu_memory.py works it out); checks first.
# Publishing: .github/workflows/publish.yml runs this, attests the file and builds the site from
# it; a file committed by hand is shown as "submitted", not as measured by the site.
set -euo pipefail
cd "$(dirname "$0")/.."
# The whole script is one compound command, read before any of it runs: code the run executes
# cannot change what the rest of this file does by rewriting it.
{

out="${OUT:-build/gpu}"
python="${PYTHON:-python3}"
export BENCHMARK_RESULTS_DIR="${BENCHMARK_RESULTS_DIR:-docs/benchmarks}"
mkdir -p "$out" "$BENCHMARK_RESULTS_DIR"
log="$out/gpu-benchmarks.log"

# The same ranges as pyproject.toml; torch must be a CUDA build for this machine's driver.
missing=() specs=()
for pair in "torch:torch>=2.4,<3" "pytest:pytest>=8.3,<10"; do
  # sys.path without the working directory: a torch.py in the repository is not torch.
  if ! "$python" -c "import sys; del sys.path[0]; import ${pair%%:*}" >/dev/null 2>&1; then
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
# CUDA present (torch alone, no course code yet), and the one file this device's run may ship.
if ! device="$("$python" .ci/gpu_memory.py --device 2>"$log")"; then
  cat "$log" >&2
  exit 1
fi
results_dir="${BENCHMARK_RESULTS_DIR%/}"
expected="$results_dir/${device#*$'\t'}"
# Every results file before any course code runs, to find what the run changed.
snapshot() {  # the log apart: this script writes it
  find docs/benchmarks "$results_dir" "$out" -type f ! -path "$log" -print0 2>/dev/null \
    | sort -zu | xargs -0 -r sha256sum
}
before="$(snapshot)"
# Enough free memory on the device for the full size (worked out from the course's memory
# model by .ci/gpu_memory.py): say so plainly before measuring anything.
if ! "$python" .ci/gpu_memory.py --check >"$log" 2>&1; then
  cat "$log" >&2
  exit 1
fi

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

# What the run changed: only the expected file may be among it.
after="$(snapshot)"
changed="$(diff <(echo "$before") <(echo "$after") | sed -n 's/^[<>] [0-9a-f]\{64\}  //p' \
  | sort -u || true)"
others="$(grep -vxF -- "$expected" <<<"$changed" || true)"
if [ -n "$others" ]; then
  {
    echo "gpu-benchmarks: the run changed files other than $expected; nothing is shipped:"
    sed 's/^/  /' <<<"$others"
  } | tee -a "$log" >&2
  exit 1
fi
if ! grep -qxF -- "$expected" <<<"$changed"; then
  echo "gpu-benchmarks: the run wrote no $expected (the file for ${device%%$'\t'*})" \
    | tee -a "$log" >&2
  [ "$status" -ne 0 ] || status=1
  exit "$status"
fi
cp "$expected" "$out/"
echo "gpu-benchmarks: $expected -> $out/" | tee -a "$log"
exit "$status"
}
