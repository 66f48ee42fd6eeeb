#!/usr/bin/env bash
# Device call D11 (2026-11-29, session 3): after v8, the short lengths still trail cuDNN (D10).
# Pipeline depth and key-tile width at d64 and d128, against v8 on the grid (timing only; a winner
# is checked before it ships): d64 with 4 or 2 K/V stages, d64 with a 64-key tile (finer causal
# diagonal), d128 with 96 keys x 3 stages and 64 keys x 4 stages. One tarball in $OUT.
set -u
r=/tmp/d11; mkdir -p $r
H=kernels/attention/hopper.cu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $r/summary.txt 2>&1
CHECK=" " timeout 400 kernels/attention/tools/ab_variants.sh $r v8=$H d64s4=$H:-DHOPPER_D64_STAGES=4 \
  d64s2=$H:-DHOPPER_D64_STAGES=2 d64n64=$H:-DHOPPER_D64_BLOCK_N=64 \
  d128n96s3=$H:-DHOPPER_D128_BLOCK_N=96,-DHOPPER_D128_STAGES=3 \
  d128n64s4=$H:-DHOPPER_D128_BLOCK_N=64,-DHOPPER_D128_STAGES=4 >> $r/summary.txt 2>&1
rm -rf $r/build/*.so $r/build/check_attention
tar czf $OUT/d11.tgz -C /tmp d11
