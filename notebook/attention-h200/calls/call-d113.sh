#!/usr/bin/env bash
# Device call D113 (session 13): do the persistent kernels lose their last partial wave? v37 and
# cuDNN / FlashAttention-2 (sdpa_anchors.py, in turns, each launch held until enqueued) on
# calls/d113-waves.json: FA3-grid shapes at batches whose tile count is or is not a whole number
# of 132-SM waves. If the tail costs what the model says (15.52 waves run as 16), v37's TFLOP/s at
# s512 d128 b33 is ~3% above b32 (same 16 rounds, 3% more work). Libraries: .devcarry/d110/v37.so
# (calls/build-session12.sh), .devcarry/blocking_hold.so (calls/build-session8.sh).
set -u
r=/tmp/d113; mkdir -p $r
d=.devcarry
nvidia-smi --query-gpu=timestamp,power.draw,clocks.sm --format=csv -lms 100 > $r/smi.csv 2>&1 &
smi=$!
for pass in a b; do
  timeout 200 python3 scripts/bench/sdpa_anchors.py --hold-flag $d/blocking_hold.so --impl v37=$d/d110/v37.so \
    docs/campaigns/attention-h200/calls/d113-waves.json > $r/waves_$pass.json 2> $r/waves_$pass.log
  echo "pass $pass exit $?" >> $r/summary.txt
done
kill $smi
tar czf $OUT/d113.tgz -C /tmp d113
