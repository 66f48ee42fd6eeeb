#!/usr/bin/env bash
# D154 (2026-12-04, one H200): the native corpus (gpu_runner_tests) on the final judge, after
# D153's change to the timing plan (only a PyTorch baseline timed unheld; the native path is meant
# to be unchanged). Carried: .devcarry/d154.tar.xz (build/bin/gpu_runner_tests, build/cuda, devlib/).
#   device: bash notebook/benchmarks/2026-12-04-h200-d154/call.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
mkdir -p build && tar xJf .devcarry/d154.tar.xz -C build
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}  # Debian 12's libboost_url 1.81
out=${OUT:?}
mkdir -p "$out/d154"
timeout 200 build/bin/gpu_runner_tests --durations yes >"$out/d154/gpu_runner.txt" 2>&1
echo "gpu_runner_tests exit $?"
grep -E "^(test cases|assertions)|FAILED|passed|failed" "$out/d154/gpu_runner.txt" | tail -6
tar cJf "$out/d154.tar.xz" -C "$out" d154 && rm -rf "$out/d154"
