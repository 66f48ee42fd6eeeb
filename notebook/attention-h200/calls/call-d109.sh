#!/usr/bin/env bash
# Device call D109 (session 12): v40 is v39 (v36c with the first key tile's P converted row by row
# too) with the previous P V's V stage handed back inside the softmax, once that P V is waited for
# (HOPPER_EARLY_RELEASE_V). Checked against v31 (bit for bit) on the three sets, then against v31 and
# v36c on the 12 d128 grid shapes, in turns, on unit normals. Libraries: calls/build-session12.sh.
set -u
r=/tmp/d109; mkdir -p $r
ca=.devcarry/check_attention
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
timeout 200 $ca --impl v31=.devcarry/d93/v31.so --impl v40=.devcarry/d109/v40.so --same-as v31 --no-timing \
  scenarios/attention_edge.json scenarios/attention_fa3_grid.json scenarios/attention_production.json > $r/check.txt 2>&1
say "check exit $?: $(tail -1 $r/check.txt); FAIL lines $(grep -c FAIL $r/check.txt); not bit-identical $(grep ' v40 ' $r/check.txt | grep -vc bit-identical)"
only=$(python3 -c "import json; print(','.join(s['id'] for s in json.load(open('scenarios/attention_fa3_grid.json'))['scenarios'] if '_d128_' in s['id']))")
mkdir -p $r/trial0
ONLY=$only CHECK=" " CHECK_ATTENTION=$ca TIMING="--hold-flag --timing-trial 0" timeout 200 kernels/attention/tools/ab_variants.sh \
  $r/trial0 v31=.devcarry/d93/v31.so v36c=.devcarry/d105/v36c.so v40=.devcarry/d109/v40.so >> $r/summary.txt 2>&1
say "ab_variants trial 0 exit $?"
tar czf $OUT/d109.tgz --exclude=build -C /tmp d109
