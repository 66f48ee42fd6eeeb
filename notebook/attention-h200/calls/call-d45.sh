#!/usr/bin/env bash
# Device call D45 (session 6): v24 and cuDNN timed alike on the whole FA3 grid. check_attention
# times v24 the way sdpa_anchors.py times cuDNN and FlashAttention-2 (an L2 flush enqueued before
# every launch, no synchronisation between it and the start event, so neither side's interval
# holds the host's part of the call; median), in one session on one GPU: v24, the anchors, v24
# again. The evaluator's figures (D41) include the host's part for the kernel only. One tarball
# in $OUT, packed after every step. Tables: scripts/bench/benchmark_tables.py ANCHORS.json
# attention_fa3_grid v24=v24_a.jsonl (a check_attention report is read as such).
set -u
r=/tmp/d45; mkdir -p $r/build
pack() { tar czf $OUT/d45.tgz --exclude=build -C /tmp d45; }
nvidia-smi --query-gpu=uuid,serial,power.limit,clocks.sm,clocks_throttle_reasons.active --format=csv > $r/gpu.csv 2>&1
nv=(nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels/attention)
"${nv[@]}" -shared -Xcompiler -fPIC -Xcompiler -fno-gnu-unique kernels/attention/hopper.cu -o $r/build/v24.so &
"${nv[@]}" -I kernels/harness kernels/attention/tools/check_attention.cu kernels/attention/problem.cu \
  kernels/attention/reference.cu -o $r/build/check_attention -ldl &
wait
ca() { timeout 120 $r/build/check_attention --impl v24=$r/build/v24.so --jsonl $r/v24_$1.jsonl \
  scenarios/attention_fa3_grid.json > $r/v24_$1.txt 2>&1; echo "v24 pass $1 exit $?" >> $r/summary.txt; pack; }
ca a
timeout 120 python3 scripts/bench/sdpa_anchors.py scenarios/attention_fa3_grid.json > $r/anchors.json 2> $r/anchors.log
echo "anchors exit $?" >> $r/summary.txt; pack
ca b
