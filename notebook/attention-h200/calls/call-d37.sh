#!/usr/bin/env bash
# Device call D37 (session 6; branch hopper-v23-causal-skip): v23 = v19 with the causal skip (a
# warpgroup passes the key tiles wholly above its rows: d256's 80-key tiles, d64's 192-row tiles,
# d128's 192-key tiles) against v19 (the trace's candidates/50cf9ea9...cu); v23off =
# -DHOPPER_CAUSAL_SKIP=0 (the control: the same code, the skip never taken); v23w3 = v23 with
# three warpgroups (192-row tiles) for causal d64 below s2048 too, where the skip now saves work.
# v23 and v23w3 checked on the three sets; all timed on the grid in two passes.
set -u
r=/tmp/d37; mkdir -p $r
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $r/summary.txt 2>&1
v19=docs/campaigns/attention-h200/candidates/50cf9ea9d85f20813edb52caa7f6fb8d6c15112664ee763f0973ea201af130e2.cu
CHECK="v23 v23w3" timeout 500 kernels/attention/tools/ab_variants.sh $r v19=$v19 v23=kernels/attention/hopper.cu \
  v23off=kernels/attention/hopper.cu:-DHOPPER_CAUSAL_SKIP=0 \
  v23w3=kernels/attention/hopper.cu:-DHOPPER_D64_CAUSAL_PERSISTENT_WGS=3 >> $r/summary.txt 2>&1
tar czf $OUT/d37.tgz --exclude=build -C /tmp d37
