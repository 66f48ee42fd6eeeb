#!/usr/bin/env bash
# Device call D88 (session 10): check_attention --timing-trial, the inputs the timed launches run on
# (default trial 0, unit normals; before, the last checked trial's: the outlier regime). v26 and
# v27 (D86's) on three d128 shapes, timed on trial 0's inputs and on trial 3's (outliers): v27
# takes S again where a row grows, so the two must differ for it and not for v26.
set -u
r=/tmp/d88; mkdir -p $r
ca=.devcarry/check_attention
only=s4096_d128_b4_h16,s16384_d128_b1_h16,s4096_d128_b4_h16_causal
for t in 0 3; do
  timeout 120 $ca --impl v26=.devcarry/d82/v26.so --impl v27=.devcarry/d86/v27.so --hold-flag --timing-trial $t \
    --only $only --jsonl $r/timing_trial_$t.jsonl scenarios/attention_fa3_grid.json > $r/timing_trial_$t.txt 2>&1
  echo "timing trial $t: exit $?" >> $r/summary.txt
done
tar czf $OUT/d88.tgz -C /tmp d88
