#!/usr/bin/env bash
# Device call D83 (session 10): the whole campaign recorded again under `socratic hook stop` in a
# fresh workspace, with v26 as stop 10 (v1, v2, v3, v4, v8, v15, v19, v24, v25, v26), as D64 did for
# v25; then the [gpu] tests (built on the development machine into prebuilt/, against runners built
# here from this tree). Run from the repository root with prebuilt/ carried. One tarball in $OUT.
set -u
root=$PWD r=/tmp/d83; mkdir -p $r
export SOCRATIC_DATA_DIR=$root SOCRATIC_CACHE_DIR=/tmp/sc PYTHONUNBUFFERED=1
S=$root/prebuilt/bin/socratic C=docs/campaigns/attention-h200 H=kernels/attention/hopper.cu
V=$C/versions v8=$C/candidates/06da90d29e253f9f6cfc413e9d1b24bc849f045a4734e73478ffdd16053fad20.cu
v15=$C/candidates/bf715b7420e3a37362849af86c3bb57525e6cce24df15c530432b33246416015.cu
v19=$C/candidates/50cf9ea9d85f20813edb52caa7f6fb8d6c15112664ee763f0973ea201af130e2.cu
v24=$C/candidates/47ac2c23ba581265b3c87f29480c07306a9f00a9df31af92f7bf52a0aabd6f62.cu
v25=$C/candidates/d2a9329daf15a4bc6001ab7a0c2cde05b92dacf6a32d3dd6c9b75fd995f43661.cu
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
pack() { tar czf $OUT/d83.tgz -C /tmp d83; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >> $r/summary.txt 2>&1
timeout 450 $C/record.sh $S /tmp/acw $r/recording \
  $V/v1-hopper.cu $C/stops/01-v1.txt $V/v2-persistent-hopper.cu $C/stops/02-v2.txt \
  $V/v3-dynamic-hopper.cu $C/stops/03-v3.txt $V/v4-hopper.cu $C/stops/04-v4.txt \
  $v8 $C/stops/05-v8.txt $v15 $C/stops/06-v15.txt $v19 $C/stops/07-v19.txt $v24 $C/stops/08-v24.txt \
  $v25 $C/stops/09-v25.txt $H $C/stops/10-v26.txt > $r/record.log 2>&1
say "record exit $? $(grep '^stop' $r/record.log | cut -c1-200)"; cp -r /tmp/acw $r/acw; rm -rf $r/acw/ws/.socratic/build-cache; pack

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
say done; pack
