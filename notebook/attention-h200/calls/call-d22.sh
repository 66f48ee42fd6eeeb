#!/usr/bin/env bash
# Device call D22 (2026-11-29, session 4): v15 measured for docs/benchmarks.md. v15 checked on the
# three scenario sets; `socratic eval` of v15 on the grid, production and edge sets and of the
# baseline on the grid and production sets; the banned-library scan of every built object; the SDPA
# anchors (cuDNN, FlashAttention-2) in the same run; v15 against v8 in one runner. The campaign's
# recording and the [gpu] tests follow in D23 (one call may run 600 s). Run from the repository root
# with prebuilt/ carried (the tool built on the development machine). One tarball in $OUT.
set -u
root=$PWD r=/tmp/d22; mkdir -p $r
export SOCRATIC_DATA_DIR=$root SOCRATIC_CACHE_DIR=/tmp/sc PYTHONUNBUFFERED=1
S=$root/prebuilt/bin/socratic B=/tmp/v15 H=kernels/attention/hopper.cu
v8=docs/campaigns/attention-h200/candidates/06da90d29e253f9f6cfc413e9d1b24bc849f045a4734e73478ffdd16053fad20.cu
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
pack() { tar czf $OUT/d22.tgz -C /tmp d22; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >> $r/summary.txt 2>&1
mkdir -p $B
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC -Xcompiler -fno-gnu-unique \
  -I kernels/attention $H -o $B/v15.so &
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels/harness -I kernels/attention \
  kernels/attention/tools/check_attention.cu kernels/attention/problem.cu kernels/attention/reference.cu \
  -o $B/check_attention -ldl &
wait; say "built: $(ls $B | tr '\n' ' '); gnu-unique symbols in v15.so: $(nm -C --defined-only $B/v15.so | grep -c ' u ')"
timeout 150 $B/check_attention --impl v15=$B/v15.so --no-timing --jsonl $r/v15_check.jsonl \
  scenarios/attention_edge.json scenarios/attention_fa3_grid.json scenarios/attention_production.json \
  > $r/v15_check.txt 2>&1; say "v15 check exit $? $(tail -1 $r/v15_check.txt)"; pack

ev() { local n=$1 c=$2 s=$3; shift 3; local st=$(date +%s); timeout 200 $S eval $c --problem attention --scenarios $s --quiet --json $r/$n.json "$@" > $r/$n.txt 2> $r/$n.err; say "eval $n exit $? $(( $(date +%s) - st )) s: $(tail -2 $r/$n.txt | head -1)"; }
ev hopper_grid $H attention_fa3_grid
ev hopper_production $H attention_production
ev hopper_edge $H attention_edge
ev baseline_grid kernels/attention/baseline.cu attention_fa3_grid
ev baseline_production kernels/attention/baseline.cu attention_production
$S scan --json $(find /tmp/sc -name "*.so") > $r/scan.json 2>&1; say "scan of every built .so exit $?"; pack
timeout 150 python3 scripts/bench/sdpa_anchors.py scenarios/attention_fa3_grid.json \
  scenarios/attention_production.json > $r/anchors.json 2> $r/anchors.log; say "anchors exit $?"; pack
ev v15_vs_v8_grid $H attention_fa3_grid --baseline $v8
say done; pack
