#!/usr/bin/env bash
# Device call D32 (2026-11-29, session 5): gpu_runner_tests again after D31, where the adversarial
# uninit_shared.cu was rejected on 'tiny' by the tolerance (the first call's shared-memory garbage
# gave a finite wrong answer) rather than by the nondeterminism or non-finite check that
# tests/adversarial/expected.json required; the expectation now accepts any of the three. Runners
# built here, test program from prebuilt/ (carried); it reads expected.json from this tree.
set -u
root=$PWD r=/tmp/d32; mkdir -p $r
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
mkdir -p /tmp/cuda && cp -r prebuilt/cuda/adversarial prebuilt/cuda/rmsnorm_baseline.so /tmp/cuda/
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels/harness -I kernels/rmsnorm \
  kernels/harness/runner.cu kernels/rmsnorm/problem.cu -o /tmp/cuda/socratic-runner-rmsnorm -ldl &
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels/harness -I kernels/attention \
  kernels/harness/runner.cu kernels/attention/problem.cu kernels/attention/reference.cu \
  -o /tmp/cuda/socratic-runner-attention -ldl &
wait; say "runners built: $(ls /tmp/cuda | tr '\n' ' ')"
export SOCRATIC_SOURCE_DIR=$root SOCRATIC_CUDA_BUILD_DIR=/tmp/cuda SOCRATIC_GPU_LOG_DIR=$r
for i in 1 2 3; do
  timeout 120 prebuilt/bin/gpu_runner_tests --durations yes > $r/gpu_runner_tests_$i.log 2>&1
  say "gpu_runner_tests run $i exit $? $(grep -E '^(All tests passed|test cases)' $r/gpu_runner_tests_$i.log | head -1)"
done
tar czf $OUT/d32.tgz -C /tmp d32
