#!/usr/bin/env bash
# Ran on the branch's tree: on main, `git apply docs/campaigns/attention-h200/versions/v22-tail-split.patch`
# first (D35 ran the branch before its two fixes; the device took the files from .devcarry/).
# Device call D35 (prepared in session 5 for the next session; branch hopper-v21-tail-split): v21 =
# v19 with the tail split (this tree's kernels/attention/hopper.cu) against v19 (the trace's
# candidates/50cf9ea9...cu); v21off = v21 with -DHOPPER_TAIL_SPLIT=0 (the control: v21's other
# changes alone, the generalised key-tile range and the deferred ring-slot release); v21m4 = the
# split from 4 key tiles per tile (s512 too). v21 and v21m4 checked on the three sets (the edge set
# has two shapes whose last round is split, at d64 and d128); all timed on the grid in two passes.
set -u
r=/tmp/d35; mkdir -p $r
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $r/summary.txt 2>&1
v19=docs/campaigns/attention-h200/candidates/50cf9ea9d85f20813edb52caa7f6fb8d6c15112664ee763f0973ea201af130e2.cu
CHECK="v21 v21m4" timeout 500 kernels/attention/tools/ab_variants.sh $r v19=$v19 v21=kernels/attention/hopper.cu \
  v21off=kernels/attention/hopper.cu:-DHOPPER_TAIL_SPLIT=0 \
  v21m4=kernels/attention/hopper.cu:-DHOPPER_TAIL_SPLIT_MIN_BLOCKS=4 >> $r/summary.txt 2>&1
tar czf $OUT/d35.tgz --exclude=build -C /tmp d35
