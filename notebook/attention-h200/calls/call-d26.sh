#!/usr/bin/env bash
# Device call D26 (2026-11-29, session 5): v17 = v15 with lazy rescaling of O (a row's running max
# moves only when it grows by more than 2^8, decided per row for the whole warp, so O's rescale and
# the correction exponentials leave the loop's critical path; softmax_step). Variants: v15 (the
# shipped kernel, c0913c4's kernels/attention/hopper.cu, in .devcarry/), v17 (this tree's
# kernels/attention/hopper.cu), v17off (-DHOPPER_LAZY_RESCALE=0: v15's PTX up to the order of two
# setp, a control for the timer), v17t0 (threshold 0: skip only when no max grows), v17c2 (v17 with
# the row max and sum as two chains at d128 and d256, .devcarry/v17c2-hopper.cu). v17 and v17c2
# checked on the three sets; all timed on the grid in two passes; phases of v17 at the shapes of D24.
set -u
r=/tmp/d26; mkdir -p $r/v17
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels/attention kernels/attention/tools/tile_phases.cu \
  -o $r/tile_phases > $r/build_phases.log 2>&1 &
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $r/summary.txt 2>&1
CHECK="v17 v17c2" timeout 450 kernels/attention/tools/ab_variants.sh $r v15=.devcarry/v15-hopper.cu \
  v17=kernels/attention/hopper.cu v17off=kernels/attention/hopper.cu:-DHOPPER_LAZY_RESCALE=0 \
  v17t0=kernels/attention/hopper.cu:-DHOPPER_RESCALE_THRESHOLD=0.0f v17c2=.devcarry/v17c2-hopper.cu >> $r/summary.txt 2>&1
wait
timeout 60 $r/tile_phases $r/v17 32,512,512,16,128,0 16,1024,1024,16,128,0 32,512,512,8,256,0 \
  32,512,512,32,64,1 16,1024,1024,32,64,1 32,512,512,8,256,1 >> $r/summary.txt 2>&1; echo "phases: exit $?" >> $r/summary.txt
python3 scripts/bench/tile_phases.py $r/v17/*.csv > $r/phases.txt 2>&1
tar czf $OUT/d26.tgz --exclude=build --exclude='*.csv' -C /tmp d26
