#!/usr/bin/env bash
# Device call D8 (2026-11-29, session 3): v7 = D7's findings folded in (softmax chains at d64 only,
# three consumer warpgroups for non-causal persistent d64, d128 persistent except causal s16384)
# against v4; variants: three warpgroups for causal persistent d64 too, three K/V stages at d128.
# One tarball in $OUT.
set -u
r=/tmp/d8; mkdir -p $r
V=docs/campaigns/attention-h200/versions H=kernels/attention/hopper.cu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $r/summary.txt 2>&1
CHECK="v7 w3c d128s3" timeout 580 kernels/attention/tools/ab_variants.sh $r v4=$V/v4-hopper.cu v7=$H \
  w3c=$H:-DHOPPER_D64_CAUSAL_PERSISTENT_WGS=3 d128s3=$H:-DHOPPER_D128_STAGES=3 >> $r/summary.txt 2>&1
rm -rf $r/build/*.so $r/build/check_attention
tar czf $OUT/d8.tgz -C /tmp d8
