#!/usr/bin/env bash
# Device call D33 (2026-11-29, session 5): where v19's short tiles wait, per SASS instruction.
# Nsight Compute's source page (warp-state samples per instruction) of the persistent kernel on the
# three short scenarios still furthest below cuDNN or with the longest tile boundary: s512 d256
# (its epilogue took 3.2-3.8k cycles a tile in D24/D26; D25 showed it is not the stores' own cost),
# causal s512 d64 (the first S GEMM and softmax are 30% of a tile) and s512 d128 (for comparison).
# Driver: check_attention --no-timing on one scenario; the second launch of the kernel is profiled.
set -u
r=/tmp/d33; mkdir -p $r
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
ncu --version >> $r/summary.txt 2>&1
B=/tmp/v19; mkdir -p $B
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC -Xcompiler -fno-gnu-unique \
  -lineinfo -I kernels/attention kernels/attention/hopper.cu -o $B/v19.so &
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels/harness -I kernels/attention \
  kernels/attention/tools/check_attention.cu kernels/attention/problem.cu kernels/attention/reference.cu \
  -o $B/check_attention -ldl &
wait; say "built: $(ls $B | tr '\n' ' ')"
for s in s512_d256_b32_h8 s512_d64_b32_h32_causal s512_d128_b32_h16; do
  timeout 150 ncu --section SourceCounters --section WarpStateStats --section SchedulerStats \
    --section SpeedOfLight --section LaunchStats -k regex:attention_fwd_persistent --launch-skip 1 --launch-count 1 \
    -o $r/$s --force-overwrite $B/check_attention --impl v19=$B/v19.so --no-timing --only $s \
    scenarios/attention_fa3_grid.json > $r/ncu_$s.log 2>&1; say "ncu $s exit $?"
  ncu -i $r/$s.ncu-rep --page source --csv --print-source sass > $r/src_$s.csv 2> $r/src_$s.err; say "source page $s exit $?"
  ncu -i $r/$s.ncu-rep --page details --csv > $r/details_$s.csv 2>> $r/src_$s.err; say "details $s exit $?"
  gzip -f $r/src_$s.csv
done
tar czf $OUT/d33.tgz -C /tmp d33
