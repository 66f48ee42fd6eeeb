#!/usr/bin/env bash
# Device call D20 (2026-11-29, session 4): v14 = v13 plus v10b's deferral of a persistent tile's
# last P V into the next tile's first GEMM turn, as a per-instance switch (branch v10c): the two-
# warpgroup persistent d64/d128 instances defer where seqlen_q and seqlen_kv <= 2048, with two Q
# buffers; v14w3 = the same with the three-warpgroup d64 instance deferring too (-DHOPPER_DEFER_3WG=1,
# without v13's pass for an empty warpgroup there). Sources in .devcarry/ (carried): v13 =
# kernels/attention/hopper.cu at 4e65e49, v14 = versions/v14-deferred-pv.patch applied to it. All three checked on
# the three scenario sets (the edge set now has whole query tiles with no key on the persistent
# kernel), timed on the grid in two passes.
set -u
r=/tmp/d20; mkdir -p $r
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $r/summary.txt 2>&1
timeout 580 kernels/attention/tools/ab_variants.sh $r v13=.devcarry/v13-hopper.cu v14=.devcarry/v14-hopper.cu \
  v14w3=.devcarry/v14-hopper.cu:-DHOPPER_DEFER_3WG=1 >> $r/summary.txt 2>&1
tar czf $OUT/d20.tgz --exclude=build -C /tmp d20
