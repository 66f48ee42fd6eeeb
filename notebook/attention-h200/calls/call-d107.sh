#!/usr/bin/env bash
# Device call D107 (session 12): v38 is v36c (v37 at d128 only) with the loop's lazy max update taken
# by selects instead of a branch on the warp's vote (HOPPER_LAZY_SELECT), so the loop's softmax is
# one basic block. Checked against v31 (bit for bit) on the three sets, then against v31 and v36c on
# the 12 d128 grid shapes, in turns, on unit normals (trial 0) and outliers (trial 3, where rows
# grow and the select's side runs). Libraries: calls/build-session12.sh.
set -u
r=/tmp/d107; mkdir -p $r
ca=.devcarry/check_attention
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
timeout 200 $ca --impl v31=.devcarry/d93/v31.so --impl v38=.devcarry/d107/v38.so --same-as v31 --no-timing \
  scenarios/attention_edge.json scenarios/attention_fa3_grid.json scenarios/attention_production.json > $r/check.txt 2>&1
say "check exit $?: $(tail -1 $r/check.txt); FAIL lines $(grep -c FAIL $r/check.txt); not bit-identical $(grep ' v38 ' $r/check.txt | grep -vc bit-identical)"
only=$(python3 -c "import json; print(','.join(s['id'] for s in json.load(open('scenarios/attention_fa3_grid.json'))['scenarios'] if '_d128_' in s['id']))")
for trial in 0 3; do
  mkdir -p $r/trial$trial
  ONLY=$only CHECK=" " CHECK_ATTENTION=$ca TIMING="--hold-flag --timing-trial $trial" timeout 200 kernels/attention/tools/ab_variants.sh \
    $r/trial$trial v31=.devcarry/d93/v31.so v36c=.devcarry/d105/v36c.so v38=.devcarry/d107/v38.so >> $r/summary.txt 2>&1
  say "ab_variants trial $trial exit $?"
done
tar czf $OUT/d107.tgz --exclude=build -C /tmp d107
