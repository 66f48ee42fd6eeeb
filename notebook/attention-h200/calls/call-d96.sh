#!/usr/bin/env bash
# Device call D96 (session 11): data for the next question, at d128 (no candidate): v27 (D86/D87's
# gain, timed again), v28 (D89) and v29n (v29 with HOPPER_STALE_SWITCH=0: one warpgroup vote a key
# tile, no switch back to the row max) against v26 on the 12 d128 grid shapes, in turns, on unit
# normals (trial 0) and outliers (trial 3). v29n checked first against v26 on the three sets.
set -u
r=/tmp/d96; mkdir -p $r
ca=.devcarry/check_attention
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
timeout 120 $ca --impl v26=.devcarry/d82/v26.so --impl v29n=.devcarry/d96/v29n.so --same-as v26 --no-timing \
  scenarios/attention_edge.json scenarios/attention_fa3_grid.json scenarios/attention_production.json > $r/check.txt 2>&1
say "check exit $?: $(tail -1 $r/check.txt); v29n FAIL $(grep -c " v29n  *FAIL" $r/check.txt)"
only=$(python3 -c "import json; print(','.join(s['id'] for s in json.load(open('scenarios/attention_fa3_grid.json'))['scenarios'] if '_d128_' in s['id']))")
for trial in 0 3; do
  mkdir -p $r/trial$trial
  ONLY=$only CHECK=" " CHECK_ATTENTION=$ca TIMING="--hold-flag --timing-trial $trial" timeout 200 kernels/attention/tools/ab_variants.sh \
    $r/trial$trial v26=.devcarry/d82/v26.so v27=.devcarry/d86/v27.so v28=.devcarry/d89/v28.so v29n=.devcarry/d96/v29n.so \
    >> $r/summary.txt 2>&1
  say "ab_variants trial $trial exit $?"
done
tar czf $OUT/d96.tgz --exclude=build -C /tmp d96
