#!/usr/bin/env bash
# Device call D66 (session 9): the softmax's share, per clock. Nsight Compute (clocks locked, so the
# power cap is out of the figures) times one launch of v25 and of three timing-only diagnostics
# built from it (HOPPER_DIAG_SOFTMAX, versions/v26-session9-variants.patch, wrong on purpose):
# diag1 no softmax at all (S goes to P as it is), diag2 no exponentials, diag3 no row max. If the
# GEMMs, loads and turns alone reach the tensor rate, what d128 loses is the softmax's latency;
# if not, the pipeline's structure. Summary: elapsed cycles per variant and shape.
set -u
r=/tmp/d66; mkdir -p $r
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
for s in s4096_d128_b4_h16 s16384_d128_b1_h16 s16384_d256_b1_h8 s4096_d64_b4_h32 s16384_d64_b1_h32 s16384_d128_b1_h16_causal; do
  for v in v25=.devcarry/d61/v25.so diag1=.devcarry/d66/diag1.so diag2=.devcarry/d66/diag2.so diag3=.devcarry/d66/diag3.so; do
    n=${v%%=*}
    timeout 60 ncu --section SpeedOfLight -k regex:attention_fwd --launch-skip 1 --launch-count 1 --csv \
      .devcarry/check_attention --impl $v --no-timing --only $s scenarios/attention_fa3_grid.json > $r/${n}_$s.csv 2> $r/${n}_$s.err
    say "$n $s exit $? $(grep -h '"Elapsed Cycles"' $r/${n}_$s.csv | awk -F'","' '{print $NF}' | tr -d '"')"
  done
done
tar czf $OUT/d66.tgz -C /tmp d66
