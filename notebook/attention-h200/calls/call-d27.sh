#!/usr/bin/env bash
# Device call D27 (2026-11-29, session 5): after D26 (lazy rescaling: +2-5% at d128/d256 from s2048,
# -2..-4% at d64), v17 = lazy rescaling at d128 and d256 only (this tree's kernels/attention/hopper.cu;
# its d64 instances compile to v15's PTX). With the loop's softmax shorter, wider key tiles may pay
# at d128 again (session 1 measured them worse at s512 on v1): v17n176 and v17n192 (d128 key tile 176
# or 192; no room for the own O buffer then, so O is stored from registers); and d256 on the
# persistent kernel at every length (v17p, D17's verdict predates v12's register stores). v15 =
# c0913c4's kernel (.devcarry/). v17 and v17n176 checked on the three sets; all timed on the grid in two passes.
set -u
r=/tmp/d27; mkdir -p $r
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $r/summary.txt 2>&1
CHECK="v17 v17n176" timeout 500 kernels/attention/tools/ab_variants.sh $r v15=.devcarry/v15-hopper.cu \
  v17=kernels/attention/hopper.cu v17n176=kernels/attention/hopper.cu:-DHOPPER_D128_BLOCK_N=176 \
  v17n192=kernels/attention/hopper.cu:-DHOPPER_D128_BLOCK_N=192 \
  v17p=kernels/attention/hopper.cu:-DHOPPER_D256_PERSISTENT_UP_TO=16384 >> $r/summary.txt 2>&1
tar czf $OUT/d27.tgz --exclude=build -C /tmp d27
