#!/usr/bin/env bash
# Device call D120 (session 13): where a short d128 tile's time goes in v42, after v43's lag (D119)
# bought nothing: tile_phases (clock marks at six points of every tile, per warpgroup) on s512,
# s1024 and s4096 d128 and causal s512/s2048 d128, as D15/D24 asked of v8/v15. Tool:
# .devcarry/d120/tile_phases (calls/build-session13.sh). Summary: scripts/bench/tile_phases.py.
set -u
r=/tmp/d120; mkdir -p $r/v42
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $r/summary.txt 2>&1
timeout 100 .devcarry/d120/tile_phases $r/v42 32,512,512,16,128,0 16,1024,1024,16,128,0 4,4096,4096,16,128,0 \
  32,512,512,16,128,1 8,2048,2048,16,128,1 >> $r/summary.txt 2>&1; echo "phases: exit $?" >> $r/summary.txt
python3 scripts/bench/tile_phases.py $r/v42/*.csv > $r/phases.txt 2>&1
tar czf $OUT/d120.tgz --exclude='*.csv' -C /tmp d120
