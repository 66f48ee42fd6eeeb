#!/usr/bin/env bash
# Device call D4 (2026-11-29, session 2): does rotating the timed samples over several buffer
# placements make absolute times repeat between processes? The runner the evaluator builds from
# this tree is run directly, baseline against itself on the FA3 grid, alternating --placements 1
# and the new default 3, five runs each; then the [gpu] tests against the changed harness.
# From the repository root on the GPU machine, prebuilt/ carried; one tarball comes back in $OUT.
set -u
root=$PWD r=/tmp/d4; mkdir -p $r
export SOCRATIC_DATA_DIR=$root SOCRATIC_CACHE_DIR=/tmp/sc PYTHONUNBUFFERED=1
S=$root/prebuilt/bin/socratic
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
pack() { tar czf $OUT/d4.tgz -C /tmp d4; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >> $r/summary.txt 2>&1

# One evaluation builds the runner and the baseline into the cache (and is itself a data point).
timeout 200 $S eval kernels/attention/baseline.cu --problem attention --scenarios attention_fa3_grid \
  --quiet --json $r/eval_baseline_grid.json > $r/eval_baseline_grid.txt 2>&1
say "eval exit $? $(tail -2 $r/eval_baseline_grid.txt | head -1)"
runner=$(find /tmp/sc -type f -name 'socratic-runner-attention*' | head -1)
base=$(find /tmp/sc -type f -name 'baseline.so' | head -1)
set_file=$(ls /tmp/sc/scenarios/*.json | head -1)
say "runner $runner baseline $base scenarios $set_file"
for i in 1 2 3 4 5; do
  for p in 1 3; do
    timeout 120 $runner --baseline $base --candidate $base --scenarios $set_file \
      --placements $p > $r/runner_p${p}_$i.jsonl 2> $r/runner_p${p}_$i.err
    say "placements $p run $i exit $?"
  done
done
pack

mkdir -p /tmp/cuda && cp -r prebuilt/cuda/adversarial prebuilt/cuda/rmsnorm_baseline.so /tmp/cuda/
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels/harness -I kernels/rmsnorm \
  kernels/harness/runner.cu kernels/rmsnorm/problem.cu -o /tmp/cuda/socratic-runner-rmsnorm -ldl &
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels/harness -I kernels/attention \
  kernels/harness/runner.cu kernels/attention/problem.cu kernels/attention/reference.cu -o /tmp/cuda/socratic-runner-attention -ldl &
wait; say "runners built for the gpu tests: $(ls /tmp/cuda | tr '\n' ' ')"
export SOCRATIC_SOURCE_DIR=$root SOCRATIC_CUDA_BUILD_DIR=/tmp/cuda SOCRATIC_GPU_LOG_DIR=$r
timeout 150 prebuilt/bin/gpu_runner_tests --durations yes > $r/gpu_runner_tests.log 2>&1
say "gpu_runner_tests exit $? $(grep -E '^(All tests passed|test cases)' $r/gpu_runner_tests.log | head -1)"
timeout 150 prebuilt/bin/eval_gpu_tests --durations yes > $r/eval_gpu_tests.log 2>&1
say "eval_gpu_tests exit $? $(grep -E '^(All tests passed|test cases)' $r/eval_gpu_tests.log | head -1)"
say done; pack
