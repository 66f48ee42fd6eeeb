#!/usr/bin/env bash
# Device call D102 (session 12): v34 is v32 with one softmax_step in the stale instance's loop: a
# warpgroup that takes S again runs the same softmax_step as one already back on the row max
# (v32 held two, and D98/D99 put v32's loss to v27 in the code around them). v34n also in the
# 128-key persistent d128 kernel of non-causal problems (s512, s1024). Both checked against v31 on
# the three sets, then v27, v34 and v34n against v26 (v31's d128 PTX) on the 12 d128 grid shapes,
# in turns, on unit normals (trial 0) and outliers (trial 3). Libraries: calls/build-session12.sh.
set -u
r=/tmp/d102; mkdir -p $r
ca=.devcarry/check_attention
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
timeout 150 $ca --impl v31=.devcarry/d93/v31.so --impl v34=.devcarry/d102/v34.so --impl v34n=.devcarry/d102/v34n.so \
  --same-as v31 --no-timing \
  scenarios/attention_edge.json scenarios/attention_fa3_grid.json scenarios/attention_production.json > $r/check.txt 2>&1
say "check exit $?: $(tail -1 $r/check.txt); v34 FAIL $(grep -c " v34  *FAIL" $r/check.txt), v34n FAIL $(grep -c " v34n  *FAIL" $r/check.txt)"
only=$(python3 -c "import json; print(','.join(s['id'] for s in json.load(open('scenarios/attention_fa3_grid.json'))['scenarios'] if '_d128_' in s['id']))")
for trial in 0 3; do
  mkdir -p $r/trial$trial
  ONLY=$only CHECK=" " CHECK_ATTENTION=$ca TIMING="--hold-flag --timing-trial $trial" timeout 200 kernels/attention/tools/ab_variants.sh \
    $r/trial$trial v26=.devcarry/d82/v26.so v27=.devcarry/d86/v27.so v34=.devcarry/d102/v34.so v34n=.devcarry/d102/v34n.so \
    >> $r/summary.txt 2>&1
  say "ab_variants trial $trial exit $?"
done
tar czf $OUT/d102.tgz --exclude=build -C /tmp d102
