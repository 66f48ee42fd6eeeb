#!/usr/bin/env bash
# Device call D48 (session 7): v24, cuDNN and FlashAttention-2 with the host's part of every call
# out of its interval and without resting the GPU between samples. D47 timed all three in turns
# in one program: with a 500 us hold 1.089x cuDNN, all host parts hidden, but the rest lifted
# cuDNN's power cap (throttle reason 0x4 in 197 of 667 nvidia-smi samples against 389 of 464
# without the hold); without the hold 1.121x, but cuDNN's host part (SDPA's dispatch under
# sdpa_kernel) fell inside 200 of 200 intervals per scenario. Here the stream is held until each
# call is enqueued (--hold-flag: NVBench's blocking kernel, blocking_hold.cuh), so the GPU rests
# only as long as the host needs: sdpa_anchors.py in turns (twice), and check_attention with the
# baseline and v24 on all three scenario sets (correctness included), nvidia-smi sampling every
# 100 ms. One tarball in $OUT, packed after every step. (The first attempt of this call waited at
# a bare `wait` for the nvidia-smi sampler started before it, until the 600 s limit.)
set -u
r=/tmp/d48; mkdir -p $r/build
pack() { tar czf $OUT/d48.tgz --exclude=build -C /tmp d48; }
q=timestamp,power.draw,clocks.sm,temperature.gpu,clocks_throttle_reasons.active
nvidia-smi --query-gpu=uuid,serial,power.limit --format=csv > $r/gpu.csv 2>&1
nv=(nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels/attention)
lib=(-shared -Xcompiler -fPIC -Xcompiler -fno-gnu-unique)
"${nv[@]}" "${lib[@]}" kernels/attention/hopper.cu -o $r/build/v24.so &
"${nv[@]}" "${lib[@]}" kernels/attention/baseline.cu -o $r/build/baseline.so &
"${nv[@]}" "${lib[@]}" kernels/attention/tools/blocking_hold_lib.cu -o $r/build/blocking_hold.so &
"${nv[@]}" -I kernels/harness kernels/attention/tools/check_attention.cu kernels/attention/problem.cu \
  kernels/attention/reference.cu -o $r/build/check_attention -ldl &
wait  # the builds (nvidia-smi's sampler starts after: a bare wait would wait for it too)
nvidia-smi --query-gpu=$q --format=csv -lms 100 > $r/smi.csv 2>&1 &
smi=$!
sets=(scenarios/attention_fa3_grid.json scenarios/attention_production.json)
phase() { date -u +"%F %T.%N $1 $2" >> $r/phases.txt; }
an() {  # name
  phase $1 start
  timeout 150 python3 scripts/bench/sdpa_anchors.py --hold-flag $r/build/blocking_hold.so \
    --impl v24=$r/build/v24.so "${sets[@]}" > $r/$1.json 2> $r/$1.log
  echo "$1 exit $?" >> $r/summary.txt; phase $1 end; pack
}
an turns_flag_a
phase check start
timeout 150 $r/build/check_attention --hold-flag --impl baseline=$r/build/baseline.so --impl v24=$r/build/v24.so \
  --jsonl $r/check.jsonl "${sets[@]}" scenarios/attention_edge.json > $r/check.txt 2>&1
echo "check exit $?" >> $r/summary.txt; phase check end; pack
if [ $SECONDS -lt 300 ]; then an turns_flag_b; else echo "turns_flag_b skipped at ${SECONDS}s" >> $r/summary.txt; fi
kill $smi
pack
