#!/usr/bin/env bash
# Device call D19 (2026-11-29, session 4), from `parallelism.waves`: the 192-row d64 tile's last
# query tile at s512/s1024 (and wherever seqlen_q is not a multiple of the tile) has a warpgroup
# with no row; v12i lets such a warpgroup pass its GEMM turns and hand its stages back without
# computing anything. v12 = kernels/attention/hopper.cu at 62c5c50, v12i = v12 plus that (both in
# .devcarry/, carried; 4e65e49 is v12i with the branch compiled into three-warpgroup instances only). Checked on all three scenario sets, timed on the grid in two passes.
set -u
r=/tmp/d19; mkdir -p $r
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $r/summary.txt 2>&1
CHECK="v12i" timeout 550 kernels/attention/tools/ab_variants.sh $r v12=.devcarry/v12-hopper.cu \
  v12i=.devcarry/v12i-hopper.cu >> $r/summary.txt 2>&1
tar czf $OUT/d19.tgz --exclude=build -C /tmp d19
