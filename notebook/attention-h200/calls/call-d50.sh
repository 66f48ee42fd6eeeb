#!/usr/bin/env bash
# Device call D50 (session 7): the [gpu] tests on this session's tree (gpu_runner_tests and
# eval_gpu_tests from prebuilt/, against runners built here from the current harness, as in D42;
# blocking_hold_gpu ran in D49). Run from the repository root with prebuilt/ carried. One tarball
# in $OUT.
set -u
root=$PWD r=/tmp/d50; mkdir -p $r
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv >> $r/summary.txt 2>&1
mkdir -p /tmp/cuda && cp -r prebuilt/cuda/adversarial prebuilt/cuda/rmsnorm_baseline.so /tmp/cuda/
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels/harness -I kernels/rmsnorm \
  kernels/harness/runner.cu kernels/rmsnorm/problem.cu -o /tmp/cuda/socratic-runner-rmsnorm -ldl &
b1=$!
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels/harness -I kernels/attention \
  kernels/harness/runner.cu kernels/attention/problem.cu kernels/attention/reference.cu \
  -o /tmp/cuda/socratic-runner-attention -ldl &
b2=$!
wait $b1 $b2; say "runners built for the gpu tests: $(ls /tmp/cuda | tr '\n' ' ')"
export SOCRATIC_SOURCE_DIR=$root SOCRATIC_CUDA_BUILD_DIR=/tmp/cuda SOCRATIC_GPU_LOG_DIR=$r
timeout 120 prebuilt/bin/gpu_runner_tests --durations yes > $r/gpu_runner_tests.log 2>&1
say "gpu_runner_tests exit $? $(grep -E '^(All tests passed|test cases)' $r/gpu_runner_tests.log | head -1)"
timeout 150 prebuilt/bin/eval_gpu_tests --durations yes > $r/eval_gpu_tests.log 2>&1
say "eval_gpu_tests exit $? $(grep -E '^(All tests passed|test cases)' $r/eval_gpu_tests.log | head -1)"
say done; tar czf $OUT/d50.tgz -C /tmp d50
