#!/usr/bin/env bash
# D138 (2026-12-02, one H200): the [gpu] tests after the test programs were merged (their runner
# now tags every case with its file), and the merged test programs built on the device's own
# toolchain (Catch2 v3, Boost 1.83) where it can configure the project.
# Carried: .devcarry/d138 (bin/: eval_gpu_tests, gpu_runner_tests, store_gate_gpu built here in
# /work/main/build-m and stripped; cuda.tar.xz: the harness and adversarial corpus nvcc built).
#   device: bash notebook/benchmarks/2026-12-02-h200-d138/call.sh [all|again]
# `again` (the second call, after the Catch2 v3 shim was fixed): the four test programs built on
# the device and their CPU-only areas run, and the baseline-against-itself case run four times.
set -uo pipefail
out=${OUT:?}
phase=${1:-all}
logs=$out/d138-$phase
mkdir -p "$logs"
t0=$(date +%s)
stamp() { echo "[$(($(date +%s) - t0)) s] $*"; }
mkdir -p /work
[[ -e /work/main ]] || ln -s "$PWD" /work/main
cd /work/main
export PATH=/usr/local/cuda/bin:$PATH
{
  stamp "start $(date -u +%FT%TZ) phase $phase"
  nvidia-smi -L
  if [[ $phase == again ]]; then
    mkdir -p build-m/bin
    cp .devcarry/d138/bin/* build-m/bin/
    tar xJf .devcarry/d138/cuda.tar.xz -C build-m
    for i in 1 2 3 4; do
      timeout 60 build-m/bin/gpu_runner_tests "the baseline against itself*" >"$logs/self-$i.txt" 2>&1
      stamp "baseline against itself, run $i: exit $? ($(grep -oE 'speedup=[0-9.]+' "$logs/self-$i.txt" | tr '\n' ' '))"
    done
    timeout 60 cmake -S . -B build-dev -DCMAKE_BUILD_TYPE=Release -DSOCRATIC_TOOL_OPTIMIZATION=-O0 \
      -DSOCRATIC_BUILD_EXAMPLES=OFF >"$logs/dev-configure.txt" 2>&1
    stamp "configure exit $?"
    timeout 330 cmake --build build-dev -j 16 --target socratic_sdk_tests socratic_judge_tests \
      socratic_agent_tests socratic_real_cli_tests >"$logs/dev-build.txt" 2>&1
    stamp "build of the four test programs exit $?"
    grep -E "error" "$logs/dev-build.txt" | head -20
    timeout 120 ctest --test-dir build-dev -R '^(core|goals|campaign|questions|evolve|store)_tests$' \
      --output-on-failure --parallel 6 >"$logs/dev-ctest.txt" 2>&1
    stamp "ctest (sdk areas) exit $?"
    tail -n 12 "$logs/dev-ctest.txt"
    stamp "end"
  fi
} 2>&1 | tee "$logs/summary.txt"
[[ $phase == again ]] && { tar cJf "$out/d138-$phase-logs.tar.xz" -C "$out" "d138-$phase" && rm -rf "$logs"; exit 0; }
{
  mkdir -p build-m/bin
  cp .devcarry/d138/bin/* build-m/bin/
  tar xJf .devcarry/d138/cuda.tar.xz -C build-m
  timeout 150 build-m/bin/gpu_runner_tests --durations yes >"$logs/gpu_runner.txt" 2>&1
  stamp "gpu_runner_tests exit $?"
  tail -n 3 "$logs/gpu_runner.txt"
  timeout 200 build-m/bin/eval_gpu_tests --durations yes >"$logs/eval_gpu.txt" 2>&1
  stamp "eval_gpu_tests exit $?"
  tail -n 3 "$logs/eval_gpu.txt"
  timeout 150 build-m/bin/store_gate_gpu --trials 6 --out "$logs/gate-edge-6pct.json" >"$logs/gate.txt" 2>&1
  stamp "store_gate_gpu exit $?"
  tail -n 3 "$logs/gate.txt"
  # The device's toolchain: the SDK's test program on Catch2 v3 (the tool needs CLI11, which this
  # machine may lack; then the tool-dependent areas are not configured and that is reported).
  ls -d /usr/include/CLI /usr/share/cmake/CLI11 /usr/lib/cmake/CLI11 /usr/lib/x86_64-linux-gnu/cmake/CLI11 2>&1 | head -4
  if timeout 60 cmake -S . -B build-dev -DCMAKE_BUILD_TYPE=Release -DSOCRATIC_TOOL_OPTIMIZATION=-O0 \
       -DSOCRATIC_BUILD_EXAMPLES=OFF >"$logs/dev-configure.txt" 2>&1; then
    stamp "configure ok"
    timeout 300 cmake --build build-dev -j 16 --target socratic_sdk_tests >"$logs/dev-build.txt" 2>&1
    stamp "build socratic_sdk_tests exit $?"
    timeout 200 ctest --test-dir build-dev -R '^(core|goals|campaign|questions|evolve|store)_tests$' \
      --output-on-failure --parallel 6 >"$logs/dev-ctest.txt" 2>&1
    stamp "ctest (sdk areas) exit $?"
    tail -n 12 "$logs/dev-ctest.txt"
  else
    stamp "configure failed"
    tail -n 15 "$logs/dev-configure.txt"
  fi
  stamp "end"
} 2>&1 | tee -a "$logs/summary.txt"
tar cJf "$out/d138-$phase-logs.tar.xz" -C "$out" "d138-$phase" && rm -rf "$logs"
