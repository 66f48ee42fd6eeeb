#!/usr/bin/env bash
# One batched session on a GPU machine: build, [gpu] tests, `socratic eval` benchmarks, PyTorch
# SDPA anchors in the same run. Everything lands in $OUT (logs, JSON reports, a summary).
# Usage (repository root): OUT=DIR tools/research/gpu_session.sh STAGE...
# Stages: build gputests grid_cold hopper repeat anchors baseline_sets
set -u
root=$(pwd)
out=${OUT:?set OUT}
mkdir -p "$out"
export SOCRATIC_DATA_DIR=$root SOCRATIC_CACHE_DIR=${SOCRATIC_CACHE_DIR:-/tmp/socratic-cache}
export PYTHONUNBUFFERED=1
t0=$(date +%s)
say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a "$out/summary.txt"; }
tool=$root/build-device/bin/socratic
[ -x "$tool" ] || tool=$root/prebuilt/bin/socratic

timed_eval() {  # NAME CANDIDATE SCENARIOS [extra args]
  local name=$1 cand=$2 scen=$3; shift 3
  local s=$(date +%s.%N)
  timeout 300 "$tool" eval "$cand" --problem attention --scenarios "$scen" --quiet \
    --json "$out/$name.json" "$@" > "$out/$name.txt" 2> "$out/$name.err"
  local rc=$?
  say "eval $name: exit $rc, $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $s}") s"
}

for stage in "$@"; do
  case $stage in
    build)
      nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv >> "$out/summary.txt" 2>&1
      if cmake -S . -B build-device -DCMAKE_BUILD_TYPE=Release -DSOCRATIC_BUILD_EXAMPLES=OFF \
           > "$out/build.log" 2>&1 &&
         cmake --build build-device -j "$(nproc)" --target socratic_tool gpu_runner_tests \
           eval_gpu_tests runner_logic_tests socratic_sdk_tests >> "$out/build.log" 2>&1; then
        say "cmake build ok (on the device)"
      else
        say "cmake build on the device failed (tail of build.log follows); using prebuilt/"
        tail -30 "$out/build.log" >> "$out/summary.txt"
      fi
      tool=$root/build-device/bin/socratic
      [ -x "$tool" ] || tool=$root/prebuilt/bin/socratic
      ;;
    gputests)
      for t in core_tests campaign_tests goals_tests runner_logic_tests; do
        [ -d build-device ] && { ctest --test-dir build-device -R "^$t\$" --output-on-failure > "$out/$t.log" 2>&1; say "$t exit $? ($(grep -E 'tests passed|tests failed' "$out/$t.log" | head -1))"; }
      done
      export SOCRATIC_GPU_LOG_DIR=$out
      gpu=build-device/bin/gpu_runner_tests
      [ -x "$gpu" ] || gpu=prebuilt/bin/gpu_runner_tests
      [ -x build-device/bin/gpu_runner_tests ] || export SOCRATIC_SOURCE_DIR=$root SOCRATIC_CUDA_BUILD_DIR=$root/prebuilt/cuda
      timeout 240 "$gpu" --durations yes > "$out/gpu_runner_tests.log" 2>&1
      say "gpu_runner_tests exit $? ($(grep -E '^(All tests passed|test cases)' "$out/gpu_runner_tests.log" | head -1))"
      if [ -x build-device/bin/eval_gpu_tests ]; then
        timeout 200 build-device/bin/eval_gpu_tests --durations yes > "$out/eval_gpu_tests.log" 2>&1
        say "eval_gpu_tests exit $? ($(grep -E '^(All tests passed|test cases)' "$out/eval_gpu_tests.log" | head -1))"
      fi
      ;;
    grid_cold)
      rm -rf "$SOCRATIC_CACHE_DIR"
      timed_eval baseline_grid_cold kernels/attention/baseline.cu attention_fa3_grid
      timed_eval baseline_grid_cached kernels/attention/baseline.cu attention_fa3_grid
      ;;
    hopper)
      timed_eval hopper_grid kernels/hopper/attention.cu attention_fa3_grid
      timed_eval hopper_edge kernels/hopper/attention.cu attention_edge
      timed_eval hopper_production kernels/hopper/attention.cu attention_production
      "$tool" scan --json $(find "$SOCRATIC_CACHE_DIR" -name "*.so") > "$out/scan_cache.json" 2>&1; say "scan of built .so files exit $?"
      ;;
    repeat)
      for i in 1 2 3 4 5; do timed_eval baseline_grid_repeat$i kernels/attention/baseline.cu attention_fa3_grid; done
      ;;
    baseline_sets)
      timed_eval baseline_edge kernels/attention/baseline.cu attention_edge
      timed_eval baseline_production kernels/attention/baseline.cu attention_production
      ;;
    anchors)
      # The shipped kernel timed in turns with cuDNN and FlashAttention-2 by one program, the
      # stream held until each call is enqueued (docs/benchmarks.md, timing protocols: like for like).
      a=$root/build-device/anchors; mkdir -p "$a"
      nv=(nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels/attention -shared
          -Xcompiler -fPIC -Xcompiler -fno-gnu-unique)
      if "${nv[@]}" kernels/hopper/attention.cu -o "$a/hopper.so" > "$out/anchors_build.log" 2>&1 &&
         "${nv[@]}" tools/research/attention/blocking_hold_lib.cu -o "$a/blocking_hold.so" >> "$out/anchors_build.log" 2>&1; then
        timeout 400 python3 tools/research/bench/sdpa_anchors.py --hold-flag "$a/blocking_hold.so" \
          --impl hopper="$a/hopper.so" scenarios/attention_fa3_grid.json \
          scenarios/attention_production.json > "$out/anchors.json" 2> "$out/anchors.log"
        say "anchors exit $? (hopper, cuDNN, FA2 in turns, held until enqueued)"
      else
        say "anchors: building hopper.so or blocking_hold.so failed (anchors_build.log)"
      fi
      ;;
    *) say "unknown stage $stage" ;;
  esac
done
say "done"
