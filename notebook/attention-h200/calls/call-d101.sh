#!/usr/bin/env bash
# Device call D101 (session 11): v33b, D100's form with every other instance's PTX kept (v31's): the
# key tiles taken with softmax_kept run in a loop of their own before v31's loop, which takes the
# rest once the warpgroup first takes S again (versions/v33b-stale-loop.patch, on v31). Not a
# candidate: its stale instance spills 16 bytes (check_build.sh). v33b checked against v31 on the
# three sets, then v27, v33 and v33b against v26 on the 12 d128 grid shapes, in turns, on unit
# normals (trial 0) and outliers (trial 3).
set -u
r=/tmp/d101; mkdir -p $r
ca=.devcarry/check_attention
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
timeout 120 $ca --impl v31=.devcarry/d93/v31.so --impl v33b=.devcarry/d101/v33b.so --same-as v31 --no-timing \
  scenarios/attention_edge.json scenarios/attention_fa3_grid.json scenarios/attention_production.json > $r/check.txt 2>&1
say "check exit $?: $(tail -1 $r/check.txt); v33b FAIL $(grep -c " v33b  *FAIL" $r/check.txt)"
only=$(python3 -c "import json; print(','.join(s['id'] for s in json.load(open('scenarios/attention_fa3_grid.json'))['scenarios'] if '_d128_' in s['id']))")
for trial in 0 3; do
  mkdir -p $r/trial$trial
  ONLY=$only CHECK=" " CHECK_ATTENTION=$ca TIMING="--hold-flag --timing-trial $trial" timeout 200 kernels/attention/tools/ab_variants.sh \
    $r/trial$trial v26=.devcarry/d82/v26.so v27=.devcarry/d86/v27.so v33=.devcarry/d100/v33.so v33b=.devcarry/d101/v33b.so \
    >> $r/summary.txt 2>&1
  say "ab_variants trial $trial exit $?"
done
tar czf $OUT/d101.tgz --exclude=build -C /tmp d101
