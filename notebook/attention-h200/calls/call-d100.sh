#!/usr/bin/env bash
# Device call D100 (session 11): the next form, tried once (not a candidate: its non-persistent
# instances' PTX moved). v33 is v32 with the switch outside the loop: a warpgroup's key tiles run in
# a stale loop until it first takes S again, then in v26's loop, so that neither loop tests the
# other's path every key tile (versions/v33-two-loops.patch, on v31). v33 checked against v31 on the
# three sets, then v27, v32 and v33 against v26 on the 12 d128 grid shapes, in turns, on unit
# normals (trial 0) and outliers (trial 3).
set -u
r=/tmp/d100; mkdir -p $r
ca=.devcarry/check_attention
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
timeout 120 $ca --impl v31=.devcarry/d93/v31.so --impl v33=.devcarry/d100/v33.so --same-as v31 --no-timing \
  scenarios/attention_edge.json scenarios/attention_fa3_grid.json scenarios/attention_production.json > $r/check.txt 2>&1
say "check exit $?: $(tail -1 $r/check.txt); v33 FAIL $(grep -c " v33  *FAIL" $r/check.txt)"
only=$(python3 -c "import json; print(','.join(s['id'] for s in json.load(open('scenarios/attention_fa3_grid.json'))['scenarios'] if '_d128_' in s['id']))")
for trial in 0 3; do
  mkdir -p $r/trial$trial
  ONLY=$only CHECK=" " CHECK_ATTENTION=$ca TIMING="--hold-flag --timing-trial $trial" timeout 200 kernels/attention/tools/ab_variants.sh \
    $r/trial$trial v26=.devcarry/d82/v26.so v27=.devcarry/d86/v27.so v32=.devcarry/d97/v32.so v33=.devcarry/d100/v33.so \
    >> $r/summary.txt 2>&1
  say "ab_variants trial $trial exit $?"
done
tar czf $OUT/d100.tgz --exclude=build -C /tmp d100
