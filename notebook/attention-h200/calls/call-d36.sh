#!/usr/bin/env bash
# Ran on the branch's tree: on main, `git apply docs/campaigns/attention-h200/versions/v22-tail-split.patch`
# first (D35 ran the branch before its two fixes; the device took the files from .devcarry/).
# Device call D36 (session 6; branch hopper-v21-tail-split): v22 = v21 with its two D35 faults
# fixed (the ring slot's piece fields 8-aligned; the merge sums every piece in the workers' order,
# so the result no longer depends on which piece merges) against v19 (the trace's candidates/50cf9ea9...cu);
# v22off = -DHOPPER_TAIL_SPLIT=0; v22m32 = the split only from 32 key tiles per tile (D35: the
# split lost 3-5% at d128 s2048/s4096 and won 2-3% at s8192/s16384). v22 checked on the three sets.
set -u
r=/tmp/d36; mkdir -p $r
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $r/summary.txt 2>&1
v19=docs/campaigns/attention-h200/candidates/50cf9ea9d85f20813edb52caa7f6fb8d6c15112664ee763f0973ea201af130e2.cu
CHECK="v22" timeout 500 kernels/attention/tools/ab_variants.sh $r v19=$v19 v22=kernels/attention/hopper.cu \
  v22off=kernels/attention/hopper.cu:-DHOPPER_TAIL_SPLIT=0 \
  v22m32=kernels/attention/hopper.cu:-DHOPPER_TAIL_SPLIT_MIN_BLOCKS=32 >> $r/summary.txt 2>&1
tar czf $OUT/d36.tgz --exclude=build -C /tmp d36
