#!/usr/bin/env bash
# D149 (2026-12-04, one H200): a suite problem taken where it lies, end to end through the tool
# (tests/suite_gpu/eval_check.sh: `socratic eval --problem tests/suite/problems/rmsnorm_h4096`
# against the native baseline, then against the suite's own baseline, the reference in eager
# PyTorch); the torch.compile baseline after registering the reference's module
# (pytorch_baseline_check.sh with STRICT_COMPILE=1); eval_gpu_tests (the evaluator on the GPU,
# native problems) after the merges.
# Carried: .devcarry/d149.tar.xz (build/bin: the tool and the test programs; build/cuda; devlib/:
# Debian 12's libboost_url.so.1.81.0, which the tool links and the device's Boost 1.83 lacks).
#   device: bash notebook/benchmarks/2026-12-04-h200-d149/call.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
mkdir -p build && tar xJf .devcarry/d149.tar.xz -C build
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
out=${OUT:?}
logs=$out/d149
mkdir -p "$logs"
t0=$(date +%s)
stamp() { echo "[$(($(date +%s) - t0)) s] $*"; }
export PATH=/usr/local/cuda/bin:$PATH
torch_python=/opt/torch/.venv/bin/python3
{
  stamp "start $(date -u +%FT%TZ)"
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  OUT=/tmp/ec timeout 420 bash tests/suite_gpu/eval_check.sh build/bin/socratic $torch_python >"$logs/eval_check.txt" 2>&1
  stamp "eval_check exit $?"
  tail -40 "$logs/eval_check.txt"
  cp /tmp/ec/*.json /tmp/ec/*.txt "$logs/" 2>/dev/null
  STRICT_COMPILE=1 OUT=/tmp/pb timeout 240 bash tests/suite_gpu/pytorch_baseline_check.sh $torch_python >"$logs/pytorch_baseline.txt" 2>&1
  stamp "pytorch_baseline_check (strict compile) exit $?"
  grep -E "rmsnorm_compile|OK|FAIL|WARNING" "$logs/pytorch_baseline.txt" | cut -c1-300 | head -20
  (cd build && timeout 240 bin/eval_gpu_tests --durations yes >"$logs/eval_gpu.txt" 2>&1)
  stamp "eval_gpu_tests exit $?"
  grep -E "^(test cases|assertions)|FAILED|passed|failed" "$logs/eval_gpu.txt" | tail -6
  stamp "end"
} 2>&1 | tee "$logs/summary.txt"
tar cJf "$out/d149.tar.xz" -C "$out" d149 && rm -rf "$logs"
