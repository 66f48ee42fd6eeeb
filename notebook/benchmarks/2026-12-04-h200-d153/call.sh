#!/usr/bin/env bash
# D153 (2026-12-04, one H200): after D152 (a side stream passed against the eager-PyTorch baseline,
# every side then timed unheld), the candidate and the judge's null implementation timed behind
# the launch hold again, only the PyTorch baseline unheld: the suite corpus
# (tests/suite_gpu/attack_check.sh), the PyTorch baselines and the forger
# (pytorch_baseline_check.sh), and eval_check.sh (SOL folder, native and eager; KernelBench file).
# Carried: .devcarry/d153.tar.xz (build/bin/socratic, devlib/libboost_url.so.1.81.0).
#   device: bash notebook/benchmarks/2026-12-04-h200-d153/call.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
mkdir -p build && tar xJf .devcarry/d153.tar.xz -C build
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
py=/opt/torch/.venv/bin/python3
out=${OUT:?}
logs=$out/d153
mkdir -p "$logs"
t0=$(date +%s)
stamp() { echo "[$(($(date +%s) - t0)) s] $*"; }
{
  stamp "start $(date -u +%FT%TZ)"
  OUT=/tmp/ac timeout 300 sh tests/suite_gpu/attack_check.sh build/bin/socratic $py >"$logs/attack_check.txt" 2>&1
  stamp "attack_check exit $?"
  grep -E "attack_check|side_stream" "$logs/attack_check.txt" | cut -c1-300
  OUT=/tmp/pb timeout 200 bash tests/suite_gpu/pytorch_baseline_check.sh $py >"$logs/pytorch_baseline.txt" 2>&1
  stamp "pytorch_baseline_check exit $?"
  grep -E "speedup=|residual|OK|FAIL" "$logs/pytorch_baseline.txt" | cut -c1-300 | head -24
  OUT=/tmp/ec timeout 200 bash tests/suite_gpu/eval_check.sh build/bin/socratic $py >"$logs/eval_check.txt" 2>&1
  stamp "eval_check exit $?"
  grep -E "eval_check" "$logs/eval_check.txt" | cut -c1-300
  cp /tmp/ac/*.json "$logs/" 2>/dev/null
  stamp "end"
} 2>&1 | tee "$logs/summary.txt"
tar cJf "$out/d153.tar.xz" -C "$out" d153 && rm -rf "$logs"
