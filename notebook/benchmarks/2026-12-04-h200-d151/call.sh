#!/usr/bin/env bash
# D151 (2026-12-04, one H200): KernelBench files judged (the resolved workload's reference `kind`
# kernelbench; the Model built by the reference worker): tests/suite_gpu/eval_check.sh, the
# rmsnorm_h4096 SOL folder against its native and eager baselines, then
# tests/suite/problems/kernelbench/1_scaled_row_sum.py with tests/suite_gpu/scaled_row_sum_kernelbench.cu
# against its Model in eager PyTorch.
# Carried: .devcarry/d151.tar.xz (build/bin/socratic, devlib/libboost_url.so.1.81.0).
#   device: bash notebook/benchmarks/2026-12-04-h200-d151/call.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
mkdir -p build && tar xJf .devcarry/d151.tar.xz -C build
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
out=${OUT:?}
logs=$out/d151
mkdir -p "$logs"
t0=$(date +%s)
stamp() { echo "[$(($(date +%s) - t0)) s] $*"; }
{
  stamp "start $(date -u +%FT%TZ)"
  OUT=/tmp/ec timeout 500 bash tests/suite_gpu/eval_check.sh build/bin/socratic /opt/torch/.venv/bin/python3 >"$logs/eval_check.txt" 2>&1
  stamp "eval_check exit $?"
  tail -30 "$logs/eval_check.txt"
  cp /tmp/ec/*.json /tmp/ec/*.txt "$logs/" 2>/dev/null
  stamp "end"
} 2>&1 | tee "$logs/summary.txt"
tar cJf "$out/d151.tar.xz" -C "$out" d151 && rm -rf "$logs"
