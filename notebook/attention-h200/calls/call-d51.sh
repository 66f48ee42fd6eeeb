#!/usr/bin/env bash
# Device call D51 (session 7): after the fixed-length hold moved into blocking_hold.cuh
# (hold_for) and the check's busy kernel onto its timer: blocking_hold_check again, and
# check_attention on one scenario with no hold, --hold-us 500 and --hold-flag. Built here and
# carried in .devcarry/ (blocking_hold_check, check_attention, v24.so). One tarball in $OUT.
set -u
r=/tmp/d51; mkdir -p $r
timeout 60 .devcarry/blocking_hold_check > $r/blocking_hold_check.txt 2>&1
echo "blocking_hold_check exit $?" >> $r/summary.txt
for h in "" "--hold-us 500" "--hold-flag"; do
  timeout 60 .devcarry/check_attention $h --impl v24=.devcarry/v24.so --only s4096_d128_b4_h16 \
    scenarios/attention_fa3_grid.json >> $r/check.txt 2>&1
  echo "check_attention '$h' exit $?" >> $r/summary.txt
done
tar czf $OUT/d51.tgz -C /tmp d51
