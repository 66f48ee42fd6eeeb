#!/usr/bin/env bash
# Device call D7 (2026-11-29, session 3): v6 = v4 + the softmax's partial chains (D6: +1% d64) +
# GEMM-issue turns chained across a persistent CTA's tiles (a warpgroup's epilogue hides under the
# other's GEMMs); against v4, and v6's variants: three warpgroups in the persistent d64 kernel,
# the persistent kernel everywhere (to revisit v4's dispatch thresholds), a 64-key tile at d256
# (80 keys leave 8.6% of s512's last tile empty). One tarball in $OUT.
set -u
r=/tmp/d7; mkdir -p $r
V=docs/campaigns/attention-h200/versions H=kernels/attention/hopper.cu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $r/summary.txt 2>&1
CHECK="v6 w3 sched2 d256n64" timeout 580 kernels/attention/tools/ab_variants.sh $r v4=$V/v4-hopper.cu v6=$H \
  w3=$H:-DHOPPER_D64_PERSISTENT_WGS=3 sched2=$H:-DHOPPER_SCHEDULE=2 d256n64=$H:-DHOPPER_D256_BLOCK_N=64 \
  >> $r/summary.txt 2>&1
rm -rf $r/build/*.so $r/build/check_attention
tar czf $OUT/d7.tgz -C /tmp d7
