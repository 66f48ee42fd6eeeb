#!/usr/bin/env bash
# Device call D99 (session 11): D98's lead measured. Nsight Compute's source page (warp-state samples
# per SASS instruction) of v26, v27 and v32 on s8192 d128 (non-causal: the 192-key persistent kernel;
# v32's stale instance), as D65 asked it of v25. Whether v32's third softmax copy shows as warps
# waiting for instructions (no_inst) where v27's two do not. Summaries: scripts/bench/ncu_stalls.py.
set -u
r=/tmp/d99; mkdir -p $r
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
s=s8192_d128_b2_h16
for v in v26=.devcarry/d82/v26.so v27=.devcarry/d86/v27.so v32=.devcarry/d97/v32.so; do
  n=${v%%=*}
  timeout 150 ncu --section SourceCounters --section WarpStateStats -k regex:attention_fwd \
    --launch-skip 1 --launch-count 1 -o $r/$n --force-overwrite .devcarry/check_attention \
    --impl $v --no-timing --trial-list 0 --only $s scenarios/attention_fa3_grid.json > $r/ncu_$n.log 2>&1
  say "ncu $n exit $?"
  ncu -i $r/$n.ncu-rep --page source --csv --print-source sass > $r/src_$n.csv 2> $r/src_$n.err; say "source page $n exit $?"
  gzip -f $r/src_$n.csv; rm -f $r/$n.ncu-rep
done
tar czf $OUT/d99.tgz -C /tmp d99
