#!/usr/bin/env bash
# D145 (2026-12-03, one H200): every [gpu] test of the tree after issue 36's judge, which the
# calls D141-D144 ran only in parts: gpu_runner_tests (the corpus, with waits_on_own_stream.cu:
# the launch hold's expiry path), eval_gpu_tests, store_gate_gpu, blocking_hold_gpu; then the
# attention runner's baseline against itself (one run of the final judge whole).
# Carried: .devcarry/d145.tar.xz (build/bin test programs and tool, build/cuda: runners,
# baselines, corpus, built here with nvcc 13.0 for sm_90a).
#   device: bash notebook/benchmarks/2026-12-03-h200-d145/call.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
mkdir -p build && tar xJf .devcarry/d145.tar.xz -C build
out=${OUT:?}
logs=$out/d145
mkdir -p "$logs"
t0=$(date +%s)
stamp() { echo "[$(($(date +%s) - t0)) s] $*"; }
secs() { python3 -c "import time; print(f'{time.time()-$1:.2f}')"; }
export PATH=/usr/local/cuda/bin:$PATH
{
  stamp "start $(date -u +%FT%TZ)"
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  SOCRATIC_GPU_LOG_DIR=$logs/gpu timeout 200 build/bin/gpu_runner_tests --durations yes >"$logs/gpu_runner.txt" 2>&1
  stamp "gpu_runner_tests (corpus of $(ls tests/adversarial/*.cu | wc -l)) exit $?"
  grep -E "^(test cases|assertions)|FAILED|passed|failed" "$logs/gpu_runner.txt" | tail -6
  (cd build && timeout 200 bin/eval_gpu_tests --durations yes >"$logs/eval_gpu.txt" 2>&1)
  stamp "eval_gpu_tests exit $?"
  grep -E "^(test cases|assertions)|FAILED|passed|failed" "$logs/eval_gpu.txt" | tail -6
  (cd build && timeout 150 bin/store_gate_gpu >"$logs/store_gate_gpu.txt" 2>&1)
  stamp "store_gate_gpu exit $?"
  tail -4 "$logs/store_gate_gpu.txt"
  NVCC=nvcc OUT_DIR=/tmp/hold timeout 100 bash tools/research/attention/blocking_hold_check.sh >"$logs/blocking_hold.txt" 2>&1
  stamp "blocking_hold_gpu exit $?"
  tail -3 "$logs/blocking_hold.txt"
  s1=$(date +%s.%N)
  printf '%s\n' --baseline build/cuda/attention_baseline.so --candidate build/cuda/attention_baseline.so \
    --scenarios scenarios/attention_fa3_grid.json |
    timeout 120 build/cuda/socratic-runner-attention --options-stdin >"$logs/attention_held_1.jsonl" 2>/dev/null
  stamp "attention runner, baseline against itself: exit $?, $(secs $s1) s"
  python3 "$here/../2026-12-03-h200-d141/selfstats.py" "$logs" attention | grep -v "^   s[0-9]"
  stamp "end"
} 2>&1 | tee "$logs/summary.txt"
tar cJf "$out/d145.tar.xz" -C "$out" d145 && rm -rf "$logs"
