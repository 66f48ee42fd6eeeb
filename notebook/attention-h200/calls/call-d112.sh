#!/usr/bin/env bash
# Device call D112 (session 12): v37 against v31 on the 12 d128 grid shapes, in turns, timed on the
# other value regimes: peaked_large (trial 1, score std ~6) and FlashAttention-3's outliers (trial 3).
# v37 takes no path by value, so its gain should not depend on them. Libraries: calls/build-session12.sh.
set -u
r=/tmp/d112; mkdir -p $r
ca=.devcarry/check_attention
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
only=$(python3 -c "import json; print(','.join(s['id'] for s in json.load(open('scenarios/attention_fa3_grid.json'))['scenarios'] if '_d128_' in s['id']))")
for trial in 1 3; do
  mkdir -p $r/trial$trial
  ONLY=$only CHECK=" " CHECK_ATTENTION=$ca TIMING="--hold-flag --timing-trial $trial" timeout 200 kernels/attention/tools/ab_variants.sh \
    $r/trial$trial v31=.devcarry/d93/v31.so v37=.devcarry/d110/v37.so >> $r/summary.txt 2>&1
  say "ab_variants trial $trial exit $?"
done
tar czf $OUT/d112.tgz --exclude=build -C /tmp d112
