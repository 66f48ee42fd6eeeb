#!/usr/bin/env bash
# Device call D38 (session 6; branch hopper-v23-causal-skip): v23 as D37, but the skip handled
# before the loops (which start at their constant again: D37's loops from the skip cost 1.5-3% on
# non-causal d128 and long d64), against v19 (the trace's candidates/50cf9ea9...cu); v23off =
# -DHOPPER_CAUSAL_SKIP=0; v23w3 = v23 with three warpgroups for causal d64 below s2048 too (D37:
# +2.4% causal s512, +3.0% s1024 d64). v23 and v23w3 checked on the three sets.
set -u
r=/tmp/d38; mkdir -p $r
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $r/summary.txt 2>&1
v19=docs/campaigns/attention-h200/candidates/50cf9ea9d85f20813edb52caa7f6fb8d6c15112664ee763f0973ea201af130e2.cu
CHECK="v23 v23w3" timeout 500 kernels/attention/tools/ab_variants.sh $r v19=$v19 v23=kernels/attention/hopper.cu \
  v23off=kernels/attention/hopper.cu:-DHOPPER_CAUSAL_SKIP=0 \
  v23w3=kernels/attention/hopper.cu:-DHOPPER_D64_CAUSAL_PERSISTENT_WGS=3 >> $r/summary.txt 2>&1
tar czf $OUT/d38.tgz --exclude=build -C /tmp d38
