#!/usr/bin/env bash
# Device call D74 (session 9): the exponential token passed on early. At d64 the three warpgroups'
# exponentials need as much MUFU time as their GEMMs need tensor time (D66: 59% of the tensor rate
# per clock with the softmax, 96% without), and the token (v25) hands the MUFU unit from one
# warpgroup to the next only after the last exponential, so it idles at each handoff. tp1
# (versions/v26-session9-variants.patch, HOPPER_TOKEN_PASS_AT_ROW=1): the token passed on after row
# 0's exponentials, so the next warpgroup's queue up behind row 1's. 20 s smoke test (a changed
# barrier protocol), checks on the three sets, the 12 d64 shapes in turns against v25.
set -u
r=/tmp/d74; mkdir -p $r
ca=.devcarry/check_attention
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
timeout 20 $ca --impl tp1=.devcarry/d74/tp1.so --no-timing \
  --only s512_d64_b32_h32,s512_d64_b32_h32_causal,s4096_d64_b4_h32_causal,s16384_d64_b1_h32 \
  scenarios/attention_fa3_grid.json > $r/smoke.txt 2>&1
rc=$?; say "smoke exit $rc: $(tail -1 $r/smoke.txt)"
if ((rc == 0)); then
  only=$(python3 -c "import json; print(','.join(s['id'] for s in json.load(open('scenarios/attention_fa3_grid.json'))['scenarios'] if '_d64_' in s['id']))")
  ONLY=$only CHECK="tp1" CHECK_ATTENTION=$ca TIMING=--hold-flag timeout 420 kernels/attention/tools/ab_variants.sh $r \
    v25=.devcarry/d61/v25.so tp1=.devcarry/d74/tp1.so >> $r/summary.txt 2>&1
  say "ab_variants exit $?"
fi
tar czf $OUT/d74.tgz --exclude=build -C /tmp d74
