#!/usr/bin/env bash
# Device call D47 (session 7): v24, cuDNN and FlashAttention-2 timed by one program, in turns.
# D46 found that a 500 us hold before every start event moved cuDNN by -3% (s512) to +11%
# (s8192 and up) and v24 by -3% to +1%: beyond hiding the host's part of the call, the hold
# rests the GPU between samples. Here sdpa_anchors.py times v24 itself (--impl, through ctypes
# on PyTorch's stream), round by round in turns with the two backends, so that every column sees
# the same flush, hold, clock and power state; once with the hold and once without, on the FA3
# grid and the production set, with nvidia-smi sampling power, SM clock and throttle reasons
# every 100 ms. One tarball in $OUT, packed after every step.
set -u
r=/tmp/d47; mkdir -p $r/build
pack() { tar czf $OUT/d47.tgz --exclude=build -C /tmp d47; }
q=timestamp,power.draw,clocks.sm,temperature.gpu,clocks_throttle_reasons.active
nvidia-smi --query-gpu=uuid,serial,power.limit --format=csv > $r/gpu.csv 2>&1
nvidia-smi --query-gpu=$q --format=csv -lms 100 > $r/smi.csv 2>&1 &
smi=$!
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels/attention -shared -Xcompiler -fPIC \
  -Xcompiler -fno-gnu-unique kernels/attention/hopper.cu -o $r/build/v24.so
sets=(scenarios/attention_fa3_grid.json scenarios/attention_production.json)
an() {  # name hold
  date -u +"%F %T.%N $1 start" >> $r/phases.txt
  timeout 250 python3 scripts/bench/sdpa_anchors.py --hold-us $2 --impl v24=$r/build/v24.so "${sets[@]}" \
    > $r/$1.json 2> $r/$1.log
  echo "$1 exit $?" >> $r/summary.txt
  date -u +"%F %T.%N $1 end" >> $r/phases.txt; pack
}
an turns_held 500
an turns_nohold 0
kill $smi
pack
