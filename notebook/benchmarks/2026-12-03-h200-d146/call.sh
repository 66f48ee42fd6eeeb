#!/usr/bin/env bash
# D146 (2026-12-03, one H200): the judge after its split by role and its generalisation to several
# outputs and the suites' dtypes (issue 37 item 5, issue 38): the corpus (gpu_runner_tests) and
# eval_gpu_tests on the rebuilt runners; the attention runner's baseline against itself; the suite
# runner end to end (tests/suite_gpu/device_check.sh: a two-output SOL-style problem, the PyTorch
# reference worker over CUDA IPC); the reference worker's and the KernelBench describer's tests
# under the machine's PyTorch 2.11.
# Carried: .devcarry/d146.tar.xz (build/bin test programs, build/cuda runners/baselines/corpus,
# built here with nvcc 13.0 for sm_90a).   device: bash notebook/benchmarks/2026-12-03-h200-d146/call.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
mkdir -p build && tar xJf .devcarry/d146.tar.xz -C build
out=${OUT:?}
logs=$out/d146
mkdir -p "$logs"
t0=$(date +%s)
stamp() { echo "[$(($(date +%s) - t0)) s] $*"; }
secs() { python3 -c "import time; print(f'{time.time()-$1:.2f}')"; }
export PATH=/usr/local/cuda/bin:$PATH
torch_python=/opt/torch/.venv/bin/python3
{
  stamp "start $(date -u +%FT%TZ)"
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  SOCRATIC_GPU_LOG_DIR=$logs/gpu timeout 200 build/bin/gpu_runner_tests --durations yes >"$logs/gpu_runner.txt" 2>&1
  stamp "gpu_runner_tests (corpus of $(ls tests/adversarial/*.cu | wc -l)) exit $?"
  grep -E "^(test cases|assertions)|FAILED|passed|failed" "$logs/gpu_runner.txt" | tail -6
  OUT=/tmp/suite timeout 200 bash tests/suite_gpu/device_check.sh $torch_python >"$logs/suite_check.txt" 2>&1
  stamp "suite device_check exit $?"
  tail -30 "$logs/suite_check.txt"
  cp /tmp/suite/protocol.jsonl "$logs/suite_protocol.jsonl" 2>/dev/null
  cp /tmp/suite/stderr.log "$logs/suite_stderr.log" 2>/dev/null
  tail -5 /tmp/suite/stderr.log 2>/dev/null
  for t in test_kernelbench_describe test_reference_worker; do
    SOCRATIC_SOURCE_DIR=$PWD PYTHONDONTWRITEBYTECODE=1 timeout 120 $torch_python tests/suite_python/$t.py >"$logs/$t.txt" 2>&1
    stamp "$t under $($torch_python -c 'import torch; print(torch.__version__)') exit $?"
    tail -4 "$logs/$t.txt"
  done
  s1=$(date +%s.%N)
  printf '%s\n' --baseline build/cuda/attention_baseline.so --candidate build/cuda/attention_baseline.so \
    --scenarios scenarios/attention_fa3_grid.json |
    timeout 120 build/cuda/socratic-runner-attention --options-stdin >"$logs/attention_held_1.jsonl" 2>"$logs/attention.err"
  stamp "attention runner, baseline against itself: exit $?, $(secs $s1) s"
  python3 "$here/../2026-12-03-h200-d141/selfstats.py" "$logs" attention | grep -v "^   s[0-9]"
  (cd build && timeout 200 bin/eval_gpu_tests --durations yes >"$logs/eval_gpu.txt" 2>&1)
  stamp "eval_gpu_tests exit $?"
  grep -E "^(test cases|assertions)|FAILED|passed|failed" "$logs/eval_gpu.txt" | tail -6
  stamp "end"
} 2>&1 | tee "$logs/summary.txt"
tar cJf "$out/d146.tar.xz" -C "$out" d146 && rm -rf "$logs"
