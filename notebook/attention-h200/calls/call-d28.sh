#!/usr/bin/env bash
# Device call D28 (2026-11-29, session 5): v18 = v15 + lazy rescaling at d128/d256 (v17) + the
# 192-key tile at d128 from seqlen_kv 2048 (4096 causal) + d256 persistent at every non-causal
# length (this tree's kernels/attention/hopper.cu), against v15 (c0913c4's, .devcarry/). Variants:
# v18l64 (-DHOPPER_LAZY_RESCALE_D64=1: lazy rescaling at d64 too, with one vote for both rows so
# the exponentials stay one straight-line block; D26's per-row votes cost 2-4% there) and v18s2
# (-DHOPPER_SCHEDULE=2: the persistent kernel everywhere; D2-D9's thresholds for d64 long shapes
# predate v8-v15). All checked on the three sets and timed on the grid in two passes.
set -u
r=/tmp/d28; mkdir -p $r
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $r/summary.txt 2>&1
CHECK="v18 v18l64 v18s2" timeout 540 kernels/attention/tools/ab_variants.sh $r v15=.devcarry/v15-hopper.cu \
  v18=kernels/attention/hopper.cu v18l64=kernels/attention/hopper.cu:-DHOPPER_LAZY_RESCALE_D64=1 \
  v18s2=kernels/attention/hopper.cu:-DHOPPER_SCHEDULE=2 >> $r/summary.txt 2>&1
tar czf $OUT/d28.tgz --exclude=build -C /tmp d28
