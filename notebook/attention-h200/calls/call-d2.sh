#!/usr/bin/env bash
# Device call D2 of the attention campaign (2026-11-29, session 2), run from the repository root on
# the H200 with the socratic tool and GPU test binaries built on the development machine in
# prebuilt/ (carried). Everything lands in one tarball under $OUT (only a few files come back).
# Steps follow docs/campaigns/attention-h200/DEVICE-v3.md: v3's correctness first, then the campaign
# recorded under `socratic hook stop` (v1, v2, v3; the real CUDA evaluator on the FA3 grid), v3
# against v1 directly, the free-softmax bound, the d64 192-row candidate, v3 on edge/production.
set -u
root=$PWD r=/tmp/d2; mkdir -p $r
export SOCRATIC_DATA_DIR=$root SOCRATIC_CACHE_DIR=/tmp/sc PYTHONUNBUFFERED=1
S=$root/prebuilt/bin/socratic B=/tmp/v3 V=docs/campaigns/attention-h200/versions
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
pack() { tar czf $OUT/d2.tgz -C /tmp d2; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >> $r/summary.txt 2>&1

mkdir -p $B
NV="nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC -I kernels/attention"
$NV kernels/attention/hopper.cu -o $B/v1.so &
$NV $V/v3-dynamic-hopper.cu -o $B/v3.so &
$NV $V/v3-free-softmax-hopper.cu -o $B/free.so &
$NV $V/v3-d64-m192-hopper.cu -o $B/m192.so &
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels/harness -I kernels/attention \
  kernels/attention/tools/check_attention.cu kernels/attention/problem.cu kernels/attention/reference.cu \
  -o $B/check_attention -ldl &
wait; say "built: $(ls $B | tr '\n' ' ')"

timeout 150 $B/check_attention --impl v3=$B/v3.so --no-timing --jsonl $r/v3_check.jsonl \
  scenarios/attention_edge.json scenarios/attention_fa3_grid.json scenarios/attention_production.json \
  > $r/v3_check.txt 2>&1; say "v3 check exit $? $(tail -2 $r/v3_check.txt | tr '\n' ' ')"; pack

timeout 240 docs/campaigns/attention-h200/record.sh $S /tmp/acw $r/recording \
  kernels/attention/hopper.cu docs/campaigns/attention-h200/stops/01-v1.txt \
  $V/v2-persistent-hopper.cu docs/campaigns/attention-h200/stops/02-v2.txt \
  $V/v3-dynamic-hopper.cu docs/campaigns/attention-h200/stops/03-v3.txt > $r/record.log 2>&1
say "record exit $? $(grep -c '^stop' $r/record.log) stops"; cp -r /tmp/acw $r/acw; pack

ev() { local n=$1 c=$2 s=$3; shift 3; local st=$(date +%s); timeout 200 $S eval $c --problem attention --scenarios $s --quiet --json $r/$n.json "$@" > $r/$n.txt 2> $r/$n.err; say "eval $n exit $? $(( $(date +%s) - st )) s"; }
ev v3_vs_v1_grid $V/v3-dynamic-hopper.cu attention_fa3_grid --baseline kernels/attention/hopper.cu
ev v3_edge $V/v3-dynamic-hopper.cu attention_edge
ev v3_production $V/v3-dynamic-hopper.cu attention_production; pack

timeout 120 $B/check_attention --impl v1=$B/v1.so --impl free=$B/free.so --time-failing free \
  --trial-list 0 --jsonl $r/free_softmax.jsonl scenarios/attention_fa3_grid.json > $r/free_softmax.txt 2>&1
say "free-softmax exit $?"; pack

timeout 90 $B/check_attention --impl m192=$B/m192.so --no-timing scenarios/attention_edge.json \
  scenarios/attention_fa3_grid.json > $r/m192_check.txt 2>&1; say "m192 check exit $? $(tail -1 $r/m192_check.txt)"
d64=$(python3 -c "import json;print(','.join(s['id'] for s in json.load(open('scenarios/attention_fa3_grid.json'))['scenarios'] if '_d64_' in s['id']))")
timeout 90 $B/check_attention --impl v1=$B/v1.so --impl m192=$B/m192.so --trial-list 0 --only $d64 \
  --jsonl $r/m192.jsonl scenarios/attention_fa3_grid.json > $r/m192.txt 2>&1; say "m192 timing exit $?"
say done; pack
