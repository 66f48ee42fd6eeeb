#!/usr/bin/env bash
# Device call D3 of the attention campaign (2026-11-29, session 2), from the repository root on the
# H200, with prebuilt/ (the socratic tool and GPU tests built on the development machine) carried.
# One tarball comes back in $OUT. v4 (kernels/attention/hopper.cu) checked, then the whole campaign
# recorded again under `socratic hook stop` in one run (v1, v2, v3, v4; D2's recording carried the
# state folder's name as its id and predates the evaluator's -fno-gnu-unique), v4 against v1 directly (interleaved in one runner), v4 and the baseline on the grid
# and production sets, the free-softmax bound re-run (D2's run was void: see log.md), the SDPA
# anchors in the same run, and the [gpu] tests.
set -u
root=$PWD r=/tmp/d3; mkdir -p $r
export SOCRATIC_DATA_DIR=$root SOCRATIC_CACHE_DIR=/tmp/sc PYTHONUNBUFFERED=1
S=$root/prebuilt/bin/socratic B=/tmp/v4 V=docs/campaigns/attention-h200/versions
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
pack() { tar czf $OUT/d3.tgz -C /tmp d3; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >> $r/summary.txt 2>&1
which ncu >> $r/summary.txt 2>&1

mkdir -p $B
NV="nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC -Xcompiler -fno-gnu-unique -I kernels/attention"
$NV kernels/attention/hopper.cu -o $B/v4.so &
$NV $V/v1-hopper.cu -o $B/v1.so &
$NV $V/v3-free-softmax-hopper.cu -o $B/free.so &
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels/harness -I kernels/attention \
  kernels/attention/tools/check_attention.cu kernels/attention/problem.cu kernels/attention/reference.cu \
  -o $B/check_attention -ldl &
wait; say "built: $(ls $B | tr '\n' ' ')"
for f in $B/*.so; do echo "$f: $(nm -C --defined-only $f | grep -c ' u ') gnu-unique symbols"; done >> $r/summary.txt

timeout 120 $B/check_attention --impl v4=$B/v4.so --no-timing --jsonl $r/v4_check.jsonl \
  scenarios/attention_edge.json scenarios/attention_fa3_grid.json scenarios/attention_production.json \
  > $r/v4_check.txt 2>&1; say "v4 check exit $? $(tail -1 $r/v4_check.txt)"; pack

timeout 300 docs/campaigns/attention-h200/record.sh $S /tmp/acw $r/recording \
  $V/v1-hopper.cu docs/campaigns/attention-h200/stops/01-v1.txt \
  $V/v2-persistent-hopper.cu docs/campaigns/attention-h200/stops/02-v2.txt \
  $V/v3-dynamic-hopper.cu docs/campaigns/attention-h200/stops/03-v3.txt \
  kernels/attention/hopper.cu docs/campaigns/attention-h200/stops/04-v4.txt > $r/record.log 2>&1
say "record exit $? $(grep '^stop' $r/record.log | cut -c1-200)"; cp -r /tmp/acw $r/acw; pack

ev() { local n=$1 c=$2 s=$3; shift 3; local st=$(date +%s); timeout 200 $S eval $c --problem attention --scenarios $s --quiet --json $r/$n.json "$@" > $r/$n.txt 2> $r/$n.err; say "eval $n exit $? $(( $(date +%s) - st )) s: $(tail -2 $r/$n.txt | head -1)"; }
ev v4_vs_v1_grid kernels/attention/hopper.cu attention_fa3_grid --baseline $V/v1-hopper.cu
ev hopper_grid kernels/attention/hopper.cu attention_fa3_grid
ev hopper_production kernels/attention/hopper.cu attention_production
ev hopper_edge kernels/attention/hopper.cu attention_edge
ev baseline_grid kernels/attention/baseline.cu attention_fa3_grid
ev baseline_production kernels/attention/baseline.cu attention_production
$S scan --json $(find /tmp/sc -name "*.so") > $r/scan.json 2>&1; say "scan of every built .so exit $?"; pack

timeout 150 python3 scripts/bench/sdpa_anchors.py scenarios/attention_fa3_grid.json \
  scenarios/attention_production.json > $r/anchors.json 2> $r/anchors.log; say "anchors exit $?"; pack

timeout 100 $B/check_attention --impl v1=$B/v1.so --impl free=$B/free.so --time-failing free \
  --trial-list 0 --jsonl $r/free_softmax.jsonl scenarios/attention_fa3_grid.json > $r/free_softmax.txt 2>&1
say "free-softmax exit $? (free fails on purpose)"; pack

export SOCRATIC_SOURCE_DIR=$root SOCRATIC_CUDA_BUILD_DIR=$root/prebuilt/cuda SOCRATIC_GPU_LOG_DIR=$r
timeout 120 prebuilt/bin/gpu_runner_tests --durations yes > $r/gpu_runner_tests.log 2>&1
say "gpu_runner_tests exit $? $(grep -E '^(All tests passed|test cases)' $r/gpu_runner_tests.log | head -1)"
timeout 150 prebuilt/bin/eval_gpu_tests --durations yes > $r/eval_gpu_tests.log 2>&1
say "eval_gpu_tests exit $? $(grep -E '^(All tests passed|test cases)' $r/eval_gpu_tests.log | head -1)"
say done; pack
