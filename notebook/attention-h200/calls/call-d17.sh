#!/usr/bin/env bash
# Device call D17 (2026-11-29, session 4): v12 = v11 with the non-persistent kernel's epilogue back
# to v8's stores (D16: TMA there lost 1-3% on d256 from s2048) and d256 on the persistent kernel up
# to seqlen_q 2048, its O staged through the Q buffer (each warpgroup's Q rows reloaded after its
# TMA store has read them, the next tile's Q prefetched into L2 once this tile's K/V loads are out).
# Variants: v12all (d256 persistent at every length), v12np (d256 never persistent). Checked on all
# three scenario sets, timed against v8 on the grid (two passes in opposite order), then
# tile_phases of v12 on the short d256 shapes. One tarball in $OUT.
set -u
r=/tmp/d17; mkdir -p $r/v12
v8=docs/campaigns/attention-h200/candidates/06da90d29e253f9f6cfc413e9d1b24bc849f045a4734e73478ffdd16053fad20.cu
h=kernels/attention/hopper.cu
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels/attention kernels/attention/tools/tile_phases.cu \
  -o $r/tile_phases > $r/build_phases.log 2>&1 &
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $r/summary.txt 2>&1
CHECK="v12 v12all" timeout 500 kernels/attention/tools/ab_variants.sh $r v8=$v8 v12=$h \
  v12all=$h:-DHOPPER_D256_PERSISTENT_UP_TO=16384 v12np=$h:-DHOPPER_D256_PERSISTENT_UP_TO=0 >> $r/summary.txt 2>&1
wait
timeout 60 $r/tile_phases $r/v12 32,512,512,8,256,0 16,1024,1024,8,256,0 32,512,512,8,256,1 \
  >> $r/summary.txt 2>&1; echo "phases: exit $?" >> $r/summary.txt
python3 scripts/bench/tile_phases.py $r/v12/*.csv > $r/phases.txt 2>&1
tar czf $OUT/d17.tgz --exclude=build -C /tmp d17
