#!/usr/bin/env bash
# Device call D15 (2026-11-29, session 4): the bank's `bound.tensor-fraction` with the prologue and
# epilogue excluded. kernels/attention/tools/tile_phases marks six points of every query tile in
# the shipped kernel (v8) and in the same kernel with every head dim persistent (-DHOPPER_SCHEDULE=2,
# for d256, which is never persistent in v8); scripts/bench/tile_phases.py summarises the marks.
# Shapes: the grid's s512 and s16384 at each head dim, s1024 d128, causal s512 at each head dim.
# One tarball in $OUT.
set -u
r=/tmp/d15; mkdir -p $r/v8 $r/sched2
nv=(nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels/attention)
"${nv[@]}" kernels/attention/tools/tile_phases.cu -o $r/tile_phases > $r/build_v8.log 2>&1 &
"${nv[@]}" -DHOPPER_SCHEDULE=2 kernels/attention/tools/tile_phases.cu -o $r/tile_phases_sched2 > $r/build_sched2.log 2>&1 &
wait
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $r/summary.txt 2>&1
shapes=(32,512,512,32,64,0 1,16384,16384,32,64,0 32,512,512,16,128,0 16,1024,1024,16,128,0 1,16384,16384,16,128,0
        32,512,512,8,256,0 1,16384,16384,8,256,0 32,512,512,32,64,1 32,512,512,16,128,1 32,512,512,8,256,1)
timeout 200 $r/tile_phases $r/v8 "${shapes[@]}" >> $r/summary.txt 2>&1; echo "v8: exit $?" >> $r/summary.txt
timeout 100 $r/tile_phases_sched2 $r/sched2 32,512,512,8,256,0 16,1024,1024,8,256,0 1,16384,16384,8,256,0 \
  32,512,512,8,256,1 >> $r/summary.txt 2>&1; echo "sched2: exit $?" >> $r/summary.txt
python3 scripts/bench/tile_phases.py $r/v8/*.csv $r/sched2/*.csv > $r/phases.txt 2>&1
tar czf $OUT/d15.tgz -C /tmp d15
