#!/usr/bin/env bash
# Device call D58 (session 8): where v24's d64 warps wait on long shapes. D52-D55: at d64 every
# added instruction costs (p8 -3.5%), taking a FADD per value away (row sums by wgmma) gains
# nothing, and at its sustained clock (1797 MHz, D54) v24 reaches 53% of the tensor cores' rate.
# Nsight Compute's source page (warp-state samples per SASS instruction) of v24 (built here with
# -lineinfo, .devcarry/d58/v24li.so) on s4096 d64 (persistent, three consumer warpgroups) and
# s16384 d64 (the per-tile 192-row kernel), as D33 did for the short shapes.
set -u
r=/tmp/d58; mkdir -p $r
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
for s in s4096_d64_b4_h32 s16384_d64_b1_h32; do
  timeout 150 ncu --section SourceCounters --section WarpStateStats --section SchedulerStats \
    --section SpeedOfLight --section LaunchStats --section ComputeWorkloadAnalysis -k regex:attention_fwd \
    --launch-skip 1 --launch-count 1 -o $r/$s --force-overwrite .devcarry/check_attention \
    --impl v24=.devcarry/d58/v24li.so --no-timing --only $s scenarios/attention_fa3_grid.json > $r/ncu_$s.log 2>&1
  say "ncu $s exit $?"
  ncu -i $r/$s.ncu-rep --page source --csv --print-source sass > $r/src_$s.csv 2> $r/src_$s.err; say "source page $s exit $?"
  ncu -i $r/$s.ncu-rep --page details --csv > $r/details_$s.csv 2>> $r/src_$s.err; say "details $s exit $?"
  gzip -f $r/src_$s.csv; rm -f $r/$s.ncu-rep
done
tar czf $OUT/d58.tgz -C /tmp d58
