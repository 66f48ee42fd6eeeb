#!/usr/bin/env bash
# Device call D23 (2026-11-29, session 4): the whole campaign recorded again under `socratic hook
# stop` in a fresh workspace (the integrity manifest covers the problem's folder, which now holds
# v15): v1, v2, v3, v4, v8, then v15 as stop 6; then the [gpu] tests, built on the development
# machine from this tree, against runners built here. Run from the repository root with prebuilt/
# carried. One tarball in $OUT.
set -u
root=$PWD r=/tmp/d23; mkdir -p $r
export SOCRATIC_DATA_DIR=$root SOCRATIC_CACHE_DIR=/tmp/sc PYTHONUNBUFFERED=1
S=$root/prebuilt/bin/socratic C=docs/campaigns/attention-h200 H=kernels/attention/hopper.cu
V=$C/versions v8=$C/candidates/06da90d29e253f9f6cfc413e9d1b24bc849f045a4734e73478ffdd16053fad20.cu
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
pack() { tar czf $OUT/d23.tgz -C /tmp d23; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >> $r/summary.txt 2>&1
timeout 330 $C/record.sh $S /tmp/acw $r/recording \
  $V/v1-hopper.cu $C/stops/01-v1.txt $V/v2-persistent-hopper.cu $C/stops/02-v2.txt \
  $V/v3-dynamic-hopper.cu $C/stops/03-v3.txt $V/v4-hopper.cu $C/stops/04-v4.txt \
  $v8 $C/stops/05-v8.txt $H $C/stops/06-v15.txt > $r/record.log 2>&1
say "record exit $? $(grep '^stop' $r/record.log | cut -c1-200)"; cp -r /tmp/acw $r/acw; rm -rf $r/acw/ws/.socratic/build-cache; pack

mkdir -p /tmp/cuda && cp -r prebuilt/cuda/adversarial prebuilt/cuda/rmsnorm_baseline.so /tmp/cuda/
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels/harness -I kernels/rmsnorm \
  kernels/harness/runner.cu kernels/rmsnorm/problem.cu -o /tmp/cuda/socratic-runner-rmsnorm -ldl &
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels/harness -I kernels/attention \
  kernels/harness/runner.cu kernels/attention/problem.cu kernels/attention/reference.cu \
  -o /tmp/cuda/socratic-runner-attention -ldl &
wait; say "runners built for the gpu tests: $(ls /tmp/cuda | tr '\n' ' ')"
export SOCRATIC_SOURCE_DIR=$root SOCRATIC_CUDA_BUILD_DIR=/tmp/cuda SOCRATIC_GPU_LOG_DIR=$r
timeout 120 prebuilt/bin/gpu_runner_tests --durations yes > $r/gpu_runner_tests.log 2>&1
say "gpu_runner_tests exit $? $(grep -E '^(All tests passed|test cases)' $r/gpu_runner_tests.log | head -1)"
timeout 150 prebuilt/bin/eval_gpu_tests --durations yes > $r/eval_gpu_tests.log 2>&1
say "eval_gpu_tests exit $? $(grep -E '^(All tests passed|test cases)' $r/eval_gpu_tests.log | head -1)"
say done; pack
