#!/usr/bin/env bash
# D148 (2026-12-03/04, one H200): the judge after the PyTorch baseline's introduction (issue 38
# item 3: implementation.cuh, sides.hpp, the null implementation as the clock check's
# calibration): the corpus (gpu_runner_tests) and eval_gpu_tests, as a regression of the native
# path; tests/suite_gpu/pytorch_baseline_check.sh (honest candidates against eager and
# torch.compile PyTorch, a forger caught against both baselines); device_check.sh; the reference
# worker's tests (time op included) under the machine's PyTorch 2.11.
# Carried: .devcarry/d148.tar.xz (build/bin test programs, build/cuda runners/baselines/corpus,
# built here with nvcc for sm_90a).   device: bash notebook/benchmarks/2026-12-03-h200-d148/call.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
mkdir -p build && tar xJf .devcarry/d148.tar.xz -C build
out=${OUT:?}
logs=$out/d148
mkdir -p "$logs"
t0=$(date +%s)
stamp() { echo "[$(($(date +%s) - t0)) s] $*"; }
export PATH=/usr/local/cuda/bin:$PATH
torch_python=/opt/torch/.venv/bin/python3
{
  stamp "start $(date -u +%FT%TZ)"
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  OUT=/tmp/pb timeout 300 bash tests/suite_gpu/pytorch_baseline_check.sh $torch_python >"$logs/pytorch_baseline.txt" 2>&1
  stamp "pytorch_baseline_check exit $?"
  tail -60 "$logs/pytorch_baseline.txt"
  mkdir -p "$logs/pb" && cp /tmp/pb/*.jsonl /tmp/pb/*.stderr "$logs/pb/" 2>/dev/null
  SOCRATIC_GPU_LOG_DIR=$logs/gpu timeout 220 build/bin/gpu_runner_tests --durations yes >"$logs/gpu_runner.txt" 2>&1
  stamp "gpu_runner_tests (corpus of $(ls tests/adversarial/*.cu | wc -l)) exit $?"
  grep -E "^(test cases|assertions)|FAILED|passed|failed" "$logs/gpu_runner.txt" | tail -6
  OUT=/tmp/suite timeout 150 bash tests/suite_gpu/device_check.sh $torch_python >"$logs/suite_check.txt" 2>&1
  stamp "suite device_check exit $?"
  tail -6 "$logs/suite_check.txt"
  for t in test_reference_worker test_reference_worker_time; do
    SOCRATIC_SOURCE_DIR=$PWD PYTHONDONTWRITEBYTECODE=1 timeout 120 $torch_python tests/suite_python/$t.py >"$logs/$t.txt" 2>&1
    stamp "$t under $($torch_python -c 'import torch; print(torch.__version__)') exit $?"
    tail -4 "$logs/$t.txt"
  done
  (cd build && timeout 200 bin/eval_gpu_tests --durations yes >"$logs/eval_gpu.txt" 2>&1)
  stamp "eval_gpu_tests exit $?"
  grep -E "^(test cases|assertions)|FAILED|passed|failed" "$logs/eval_gpu.txt" | tail -6
  stamp "end"
} 2>&1 | tee "$logs/summary.txt"
tar cJf "$out/d148.tar.xz" -C "$out" d148 && rm -rf "$logs"
