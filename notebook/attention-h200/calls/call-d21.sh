#!/usr/bin/env bash
# Device call D21 (2026-11-29, session 4): v15 = v13 with the persistent producer publishing each
# tile decoded (query block, head, batch, key tiles: the consumers no longer divide between tiles)
# and prefetching each tile's Q into L2 a key tile or two before its load; v15np = v15 without the
# prefetch (-DHOPPER_Q_PREFETCH=0); v15c3 = v15 with three warpgroups for causal d64 below s2048 too
# (v13's pass for an empty warpgroup may have changed D7/D8's verdict there). v13 = 4e65e49's
# kernels/attention/hopper.cu; v15 = c4a1e57's plus the prefetch (HOPPER_Q_PREFETCH, not kept: c4a1e57
# compiles to v15np's PTX); sources in .devcarry/ (carried). v15 checked on the three sets, all
# timed on the grid in two passes.
set -u
r=/tmp/d21; mkdir -p $r
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $r/summary.txt 2>&1
CHECK="v15 v15c3" timeout 580 kernels/attention/tools/ab_variants.sh $r v13=.devcarry/v13-hopper.cu \
  v15=.devcarry/v15-hopper.cu v15np=.devcarry/v15-hopper.cu:-DHOPPER_Q_PREFETCH=0 \
  v15c3=.devcarry/v15-hopper.cu:-DHOPPER_D64_CAUSAL_PERSISTENT_WGS=3 >> $r/summary.txt 2>&1
tar czf $OUT/d21.tgz --exclude=build -C /tmp d21
