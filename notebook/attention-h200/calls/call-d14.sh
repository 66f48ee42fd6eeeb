#!/usr/bin/env bash
# Device call D14 (2026-11-29, session 3): v10b = D13's v10a with the cause of its slowdown removed
# (ptxas serialised its wgmma, C7511/C7514/C7515: O zeroed by ordinary instructions inside the
# pipeline, and wgmma issue/wait pairs split across a run-time branch; now the first P V of a tile
# overwrites O through wgmma's scale-d, and the first step is two whole branches). Against v8 on
# the grid; v10b2 = the same with two consumer warpgroups everywhere in the persistent d64 kernel
# (v10b's three-warpgroup instance spills 16 bytes). Timing and checks only. One tarball in $OUT.
set -u
r=/tmp/d14; mkdir -p $r
V=docs/campaigns/attention-h200/versions
v8=docs/campaigns/attention-h200/candidates/06da90d29e253f9f6cfc413e9d1b24bc849f045a4734e73478ffdd16053fad20.cu
patch -s -o $r/v10b-cross-tile-hopper.cu $v8 $V/v10b-cross-tile.patch
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $r/summary.txt 2>&1
CHECK="v10b v10b2" timeout 300 kernels/attention/tools/ab_variants.sh $r v8=$v8 v10b=$r/v10b-cross-tile-hopper.cu \
  v10b2=$r/v10b-cross-tile-hopper.cu:-DHOPPER_D64_PERSISTENT_WGS=2,-DHOPPER_D64_CAUSAL_LONG_PERSISTENT_WGS=2 \
  >> $r/summary.txt 2>&1
tar czf $OUT/d14.tgz --exclude=build -C /tmp d14
