#!/usr/bin/env bash
# Regenerate the GPU benchmark results on a machine with CUDA, torch and pytest (nothing else).
#
#   bash .ci/gpu-benchmarks.sh            # results + log in build/gpu/, and docs/benchmarks/ updated
#   OUT=/some/dir bash .ci/gpu-benchmarks.sh
#
# Runs only the gpu-marked test file (it imports torch, pytest, the standard library and
# snippets/, never the course engine), then copies the results file(s) it wrote and the log
# into "${OUT:-build/gpu}". Fails when CUDA is missing: a skipped run must not look like a result.
# Commit docs/benchmarks/checkpointing-<gpu>.json unedited afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."

out="${OUT:-build/gpu}"
python="${PYTHON:-python3}"
mkdir -p "$out"
log="$out/gpu-benchmarks.log"

if ! "$python" -c 'import torch, pytest' >/dev/null 2>&1; then
  echo "gpu-benchmarks: $python cannot import torch and pytest (set PYTHON=...)" | tee "$log" >&2
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
done < <(find docs/benchmarks -maxdepth 1 -name '*.json' -newer "$marker" -print0)

if [ "$status" -eq 0 ] && [ "$copied" -eq 0 ]; then
  echo "gpu-benchmarks: the tests passed but wrote no results file" | tee -a "$log" >&2
  status=1
fi
exit "$status"
