#!/usr/bin/env bash
# D159 (2026-12-04, one H200): D156's checks again at the final code of the sixth session, after
# the changes D156 predates: the CUDA evaluator marks a runner that never reached the GPU, a
# harness that did not build and its own failures as harness faults; the gate's changed-judge
# branch; the coordinator and the suite runner split by role. gpu_runner_tests, eval_gpu_tests,
# blocking_hold, eval_check.sh (five cases), store_gate_gpu last.
# Carried: .devcarry/d159.tar.xz (build/bin test programs and tool, build/cuda, devlib/).
#   device: bash notebook/benchmarks/2026-12-04-h200-d159/call.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
mkdir -p build && tar xJf .devcarry/d159.tar.xz -C build
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}  # Debian 12's libboost_url 1.81
export PATH=/usr/local/cuda/bin:$PATH
py=/opt/torch/.venv/bin/python3
out=${OUT:?}
logs=$out/d159
mkdir -p "$logs"
t0=$(date +%s)
stamp() { echo "[$(($(date +%s) - t0)) s] $*"; }
{
  stamp "start $(date -u +%FT%TZ)"
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  timeout 150 build/bin/gpu_runner_tests --durations yes >"$logs/gpu_runner.txt" 2>&1
  stamp "gpu_runner_tests exit $?"
  grep -E "^(test cases|assertions)|FAILED|passed|failed" "$logs/gpu_runner.txt" | tail -6
  (cd build && timeout 200 bin/eval_gpu_tests --durations yes >"$logs/eval_gpu.txt" 2>&1)
  stamp "eval_gpu_tests exit $?"
  grep -E "^(test cases|assertions)|FAILED|passed|failed" "$logs/eval_gpu.txt" | tail -6
  NVCC=nvcc OUT_DIR=/tmp/hold timeout 60 bash tools/research/attention/blocking_hold_check.sh >"$logs/blocking_hold.txt" 2>&1
  stamp "blocking_hold exit $?"
  tail -2 "$logs/blocking_hold.txt"
  OUT=/tmp/ec timeout 200 bash tests/suite_gpu/eval_check.sh build/bin/socratic $py >"$logs/eval_check.txt" 2>&1
  stamp "eval_check exit $?"
  grep -E "eval_check|Error|error" "$logs/eval_check.txt" | cut -c1-300 | head -20
  left=$((560 - $(date +%s) + t0))
  (cd build && timeout $((left > 30 ? left : 30)) bin/store_gate_gpu >"$logs/store_gate_gpu.txt" 2>&1)
  stamp "store_gate_gpu exit $? (limit ${left} s)"
  tail -4 "$logs/store_gate_gpu.txt"
  stamp "end"
} 2>&1 | tee "$logs/summary.txt"
tar cJf "$out/d159.tar.xz" -C "$out" d159 && rm -rf "$logs"
