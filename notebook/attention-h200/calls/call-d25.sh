#!/usr/bin/env bash
# Device call D25 (2026-11-29, session 4), from D24's phases (d256's stores from registers: 3.2-3.7k
# cycles a tile): v16 = v15 with d256's O staged in the last key tile's K stage (warpgroup 0) and V
# stage (warpgroup 1), once the other warpgroup's last GEMM on it is done, stored by TMA, the stages
# handed back once the store has read them (versions/v16-stage-o-in-kv.patch against v15). v15 = the
# shipped kernel (ef31a28); both in .devcarry/ (carried). v16 checked on the three sets; both timed on the grid in two passes; phases of
# v16 at s512 d256, causal and not (tile_phases built against the v16 copy). Not shipped.
set -u
r=/tmp/d25; mkdir -p $r/v16
sed 's|#include "../hopper.cu"|#include "v16-hopper.cu"|' kernels/attention/tools/tile_phases.cu > .devcarry/tile_phases_v16.cu
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels/attention -I .devcarry .devcarry/tile_phases_v16.cu \
  -o $r/tile_phases > $r/build_phases.log 2>&1 &
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $r/summary.txt 2>&1
CHECK="v16" timeout 400 kernels/attention/tools/ab_variants.sh $r v15=.devcarry/v15-hopper.cu v16=.devcarry/v16-hopper.cu \
  >> $r/summary.txt 2>&1
wait
timeout 60 $r/tile_phases $r/v16 32,512,512,8,256,0 32,512,512,8,256,1 >> $r/summary.txt 2>&1; echo "phases: exit $?" >> $r/summary.txt
python3 scripts/bench/tile_phases.py $r/v16/*.csv > $r/phases.txt 2>&1
tar czf $OUT/d25.tgz --exclude=build --exclude='*.csv' -C /tmp d25
