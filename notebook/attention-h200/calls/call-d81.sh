#!/usr/bin/env bash
# Device call D81 (session 10): kernels/attention/tools/wgmma_rate.cu, the tensor cores' rate for
# hopper.cu's wgmma groups by warpgroups issuing at once and accumulators interleaved.
set -u
r=/tmp/d81; mkdir -p $r
timeout 60 .devcarry/wgmma_rate > $r/rate.txt 2>&1
echo "wgmma_rate exit $?" >> $r/rate.txt
nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv >> $r/rate.txt
tar czf $OUT/d81.tgz -C /tmp d81
