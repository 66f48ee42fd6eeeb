#!/usr/bin/env bash
# Device call D16 (2026-11-29, session 4): v11 = v8 with the epilogue's O stored by TMA from the
# staging buffer (one thread issues it, nobody waits for it) instead of read back and stored by
# every thread (D15: 1.4k, 2.3k and 4.1k cycles per tile at d64, d128 and d256). Checked on all three
# scenario sets, timed against v8 on the grid (two passes in opposite order); then tile_phases of
# v11 on D15's short shapes (marks read their buffer from constant memory since D15). One tarball.
# (kernels/attention/hopper.cu was then a working copy: f50e394's kernel with the TMA-store epilogue
# in both kernels, as described in the log; 961c94f keeps it in the persistent kernel only.)
set -u
r=/tmp/d16; mkdir -p $r/v11
v8=docs/campaigns/attention-h200/candidates/06da90d29e253f9f6cfc413e9d1b24bc849f045a4734e73478ffdd16053fad20.cu
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels/attention kernels/attention/tools/tile_phases.cu \
  -o $r/tile_phases > $r/build_phases.log 2>&1 &
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $r/summary.txt 2>&1
CHECK="v11" timeout 400 kernels/attention/tools/ab_variants.sh $r v8=$v8 v11=kernels/attention/hopper.cu >> $r/summary.txt 2>&1
wait
timeout 100 $r/tile_phases $r/v11 32,512,512,32,64,0 32,512,512,16,128,0 16,1024,1024,16,128,0 32,512,512,8,256,0 \
  32,512,512,32,64,1 32,512,512,16,128,1 32,512,512,8,256,1 >> $r/summary.txt 2>&1; echo "phases: exit $?" >> $r/summary.txt
python3 scripts/bench/tile_phases.py $r/v11/*.csv > $r/phases.txt 2>&1
tar czf $OUT/d16.tgz --exclude=build -C /tmp d16
