#!/usr/bin/env bash
# Device call D24 (2026-11-29, session 4): tile_phases of the shipped v15 on the six scenarios still
# below cuDNN in D22 (s512 d128, s1024 d128, s512 d256, causal s512/s1024 d64, causal s512 d256),
# for the next session's question: which phase of a short tile is left. One tarball in $OUT.
set -u
r=/tmp/d24; mkdir -p $r/v15
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels/attention kernels/attention/tools/tile_phases.cu \
  -o $r/tile_phases > $r/build.log 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $r/summary.txt 2>&1
timeout 100 $r/tile_phases $r/v15 32,512,512,16,128,0 16,1024,1024,16,128,0 32,512,512,8,256,0 \
  32,512,512,32,64,1 16,1024,1024,32,64,1 32,512,512,8,256,1 >> $r/summary.txt 2>&1; echo "phases: exit $?" >> $r/summary.txt
python3 scripts/bench/tile_phases.py $r/v15/*.csv > $r/phases.txt 2>&1
tar czf $OUT/d24.tgz --exclude='*.csv' -C /tmp d24
