#!/usr/bin/env bash
# Device call D10 (2026-11-29, session 3): v8 shipped. v8 checked on the three scenario sets; the
# whole campaign recorded again under `socratic hook stop` in a fresh workspace (v1..v4, then v8 as
# stop 5); v8 and the baseline on the grid and production sets (edge: v8); the banned-library scan;
# the SDPA anchors in the same run; v8 against v4 in one runner; the [gpu] tests.
# Run from the repository root with prebuilt/ carried. One tarball in $OUT.
set -u
root=$PWD r=/tmp/d10; mkdir -p $r
export SOCRATIC_DATA_DIR=$root SOCRATIC_CACHE_DIR=/tmp/sc PYTHONUNBUFFERED=1
S=$root/prebuilt/bin/socratic B=/tmp/v8 V=docs/campaigns/attention-h200/versions H=kernels/attention/hopper.cu
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
pack() { tar czf $OUT/d10.tgz -C /tmp d10; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >> $r/summary.txt 2>&1
mkdir -p $B
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC -Xcompiler -fno-gnu-unique \
  -I kernels/attention $H -o $B/v8.so &
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels/harness -I kernels/attention \
  kernels/attention/tools/check_attention.cu kernels/attention/problem.cu kernels/attention/reference.cu \
  -o $B/check_attention -ldl &
wait; say "built: $(ls $B | tr '\n' ' '); gnu-unique symbols in v8.so: $(nm -C --defined-only $B/v8.so | grep -c ' u ')"
timeout 120 $B/check_attention --impl v8=$B/v8.so --no-timing --jsonl $r/v8_check.jsonl \
  scenarios/attention_edge.json scenarios/attention_fa3_grid.json scenarios/attention_production.json \
  > $r/v8_check.txt 2>&1; say "v8 check exit $? $(tail -1 $r/v8_check.txt)"; pack

# The whole campaign again in one fresh workspace (the integrity manifest of D3's workspace covers
# the problem's folder, which now holds v8 as hopper.cu): v1, v2, v3, v4, then v8.
timeout 280 docs/campaigns/attention-h200/record.sh $S /tmp/acw $r/recording \
  $V/v1-hopper.cu docs/campaigns/attention-h200/stops/01-v1.txt \
  $V/v2-persistent-hopper.cu docs/campaigns/attention-h200/stops/02-v2.txt \
  $V/v3-dynamic-hopper.cu docs/campaigns/attention-h200/stops/03-v3.txt \
  $V/v4-hopper.cu docs/campaigns/attention-h200/stops/04-v4.txt \
  $H docs/campaigns/attention-h200/stops/05-v8.txt > $r/record.log 2>&1
say "record exit $? $(grep '^stop' $r/record.log | cut -c1-200)"; cp -r /tmp/acw $r/acw; rm -rf $r/acw/ws/.socratic/build-cache; pack

ev() { local n=$1 c=$2 s=$3; shift 3; local st=$(date +%s); timeout 200 $S eval $c --problem attention --scenarios $s --quiet --json $r/$n.json "$@" > $r/$n.txt 2> $r/$n.err; say "eval $n exit $? $(( $(date +%s) - st )) s: $(tail -2 $r/$n.txt | head -1)"; }
ev hopper_grid $H attention_fa3_grid
ev hopper_production $H attention_production
ev hopper_edge $H attention_edge
ev baseline_grid kernels/attention/baseline.cu attention_fa3_grid
ev baseline_production kernels/attention/baseline.cu attention_production
$S scan --json $(find /tmp/sc -name "*.so") > $r/scan.json 2>&1; say "scan of every built .so exit $?"; pack
timeout 150 python3 scripts/bench/sdpa_anchors.py scenarios/attention_fa3_grid.json \
  scenarios/attention_production.json > $r/anchors.json 2> $r/anchors.log; say "anchors exit $?"; pack
ev v8_vs_v4_grid $H attention_fa3_grid --baseline $V/v4-hopper.cu; pack

# The [gpu] tests against runners built here from this tree (as in D4); the adversarial candidates
# were built on the development machine.
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
