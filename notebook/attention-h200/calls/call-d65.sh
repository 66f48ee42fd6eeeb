#!/usr/bin/env bash
# Device call D65 (session 8): the next question's first data. Where v25's d128 warps wait on long
# shapes (75% of the tensor cores' rate at the clock the power cap leaves, D54; the exponential
# token cost 0.6-1.6% there, D60): Nsight Compute's source page of v25 (built here with -lineinfo,
# .devcarry/d65/v25li.so) on s4096 d128 and s16384 d128 (persistent, two consumer warpgroups,
# 192-key tiles), as D58 asked it for d64. Summaries: scripts/bench/ncu_stalls.py.
set -u
r=/tmp/d65; mkdir -p $r
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
for s in s4096_d128_b4_h16 s16384_d128_b1_h16; do
  timeout 150 ncu --section SourceCounters --section WarpStateStats --section SchedulerStats \
    --section SpeedOfLight --section LaunchStats --section ComputeWorkloadAnalysis -k regex:attention_fwd \
    --launch-skip 1 --launch-count 1 -o $r/$s --force-overwrite .devcarry/check_attention \
    --impl v25=.devcarry/d65/v25li.so --no-timing --only $s scenarios/attention_fa3_grid.json > $r/ncu_$s.log 2>&1
  say "ncu $s exit $?"
  ncu -i $r/$s.ncu-rep --page source --csv --print-source sass > $r/src_$s.csv 2> $r/src_$s.err; say "source page $s exit $?"
  ncu -i $r/$s.ncu-rep --page details --csv > $r/details_$s.csv 2>> $r/src_$s.err; say "details $s exit $?"
  gzip -f $r/src_$s.csv; rm -f $r/$s.ncu-rep
done
tar czf $OUT/d65.tgz -C /tmp d65
