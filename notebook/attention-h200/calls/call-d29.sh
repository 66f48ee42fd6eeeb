#!/usr/bin/env bash
# Device call D29 (2026-11-29, session 5): v19 = v18 with d64 on the persistent kernel up to
# seqlen_q 4096 (8192 causal) after D28 (this tree's kernels/attention/hopper.cu), against v15
# (c0913c4's, .devcarry/), and v19n64 (-DHOPPER_D256_BLOCK_N=64: at s512 an 80-key tile leaves the
# seventh key tile 40% full; 64 divides every grid length). v19 and v19n64 checked on the three
# sets; all timed on the grid in two passes.
set -u
r=/tmp/d29; mkdir -p $r
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $r/summary.txt 2>&1
CHECK="v19 v19n64" timeout 540 kernels/attention/tools/ab_variants.sh $r v15=.devcarry/v15-hopper.cu \
  v19=kernels/attention/hopper.cu v19n64=kernels/attention/hopper.cu:-DHOPPER_D256_BLOCK_N=64 >> $r/summary.txt 2>&1
tar czf $OUT/d29.tgz --exclude=build -C /tmp d29
