#!/usr/bin/env bash
# D152 (2026-12-04, one H200): the adversarial corpus against a suite problem (issue 38):
# tests/suite_gpu/attack_check.sh, each cheat of tests/suite_gpu/attacks/ (side stream, modified
# inputs, a memo by pointer, skipped timed calls, half the rows) judged by `socratic eval --problem
# tests/suite/problems/rmsnorm_h4096` against the eager-PyTorch baseline, the honest control beside.
# Carried: .devcarry/d152.tar.xz (build/bin/socratic, devlib/libboost_url.so.1.81.0).
#   device: bash notebook/benchmarks/2026-12-04-h200-d152/call.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
mkdir -p build && tar xJf .devcarry/d152.tar.xz -C build
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
out=${OUT:?}
logs=$out/d152
mkdir -p "$logs"
t0=$(date +%s)
stamp() { echo "[$(($(date +%s) - t0)) s] $*"; }
{
  stamp "start $(date -u +%FT%TZ)"
  OUT=/tmp/ac timeout 540 sh tests/suite_gpu/attack_check.sh build/bin/socratic /opt/torch/.venv/bin/python3 >"$logs/attack_check.txt" 2>&1
  stamp "attack_check exit $?"
  cat "$logs/attack_check.txt" | cut -c1-330
  cp /tmp/ac/*.json "$logs/" 2>/dev/null
  stamp "end"
} 2>&1 | tee "$logs/summary.txt"
tar cJf "$out/d152.tar.xz" -C "$out" d152 && rm -rf "$logs"
