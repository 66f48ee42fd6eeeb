#!/usr/bin/env bash
# Device call D46 (session 7): the host's part of the call out of every interval. D45 timed v24
# (check_attention) and cuDNN / FlashAttention-2 (sdpa_anchors.py) alike, flush enqueued with no
# synchronisation; how much of each side's host part still fell inside its interval depended on
# how long the flush ran. Here both tools hold the stream after the flush (--hold-us 500:
# NVBench's blocking kernel, by time) and record in how many samples the hold outlasted the
# host's part. In one session on one GPU: anchors and v24 without the hold (D45's way, the
# control), then v24 with the baseline, the anchors, and v24 again with the hold, on the FA3 grid
# and the production set. One tarball in $OUT, packed after every step.
set -u
r=/tmp/d46; mkdir -p $r/build
pack() { tar czf $OUT/d46.tgz --exclude=build -C /tmp d46; }
q=uuid,serial,power.limit,temperature.gpu,clocks.sm,clocks_throttle_reasons.active
nvidia-smi --query-gpu=$q --format=csv > $r/gpu.csv 2>&1
nv=(nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels/attention)
lib=(-shared -Xcompiler -fPIC -Xcompiler -fno-gnu-unique)
"${nv[@]}" "${lib[@]}" kernels/attention/hopper.cu -o $r/build/v24.so &
"${nv[@]}" "${lib[@]}" kernels/attention/baseline.cu -o $r/build/baseline.so &
"${nv[@]}" -I kernels/harness kernels/attention/tools/check_attention.cu kernels/attention/problem.cu \
  kernels/attention/reference.cu -o $r/build/check_attention -ldl &
wait
sets=(scenarios/attention_fa3_grid.json scenarios/attention_production.json)
ca() {  # name hold impl...
  local name=$1 hold=$2; shift 2
  timeout 150 $r/build/check_attention --hold-us $hold "$@" --jsonl $r/$name.jsonl "${sets[@]}" \
    > $r/$name.txt 2>&1; echo "$name exit $?" >> $r/summary.txt; pack
}
an() {  # name hold
  timeout 150 python3 scripts/bench/sdpa_anchors.py --hold-us $2 "${sets[@]}" > $r/$1.json 2> $r/$1.log
  echo "$1 exit $?" >> $r/summary.txt; pack
}
an anchors_nohold 0
ca v24_nohold 0 --impl v24=$r/build/v24.so
ca held_a 500 --impl baseline=$r/build/baseline.so --impl v24=$r/build/v24.so
an anchors_held 500
ca held_b 500 --impl v24=$r/build/v24.so
nvidia-smi --query-gpu=$q --format=csv,noheader >> $r/gpu.csv 2>&1
pack
