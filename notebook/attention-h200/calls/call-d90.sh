#!/usr/bin/env bash
# Device call D90 (session 11): v29, v28's softmax without a row max with one warpgroup vote a key
# tile (bar.red.popc: whether a warp's rows may have grown, whether one overflowed), S again by
# wgmma where one did, and the warpgroup back on softmax_step for the rest of the query tile once its
# rows grew (HOPPER_STALE_SWITCH=2; v29s1: only once it took S again), against v26; v29x also at
# d64. The SASS of the spilling instance (check_build.sh fails it: 16 bytes, the d128 192-key
# persistent kernel) first, to see where the spills lie. Then as D89: smoke, check against v26 bit
# for bit, the 36 grid shapes in turns on unit normals (trial 0) and outliers (trial 3).
set -u
r=/tmp/d90; mkdir -p $r
ca=.devcarry/check_attention
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
cuobjdump=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
$cuobjdump -sass .devcarry/d90/v29.so > $r/v29.sass 2>&1; say "cuobjdump exit $?"
gzip -f $r/v29.sass
timeout 30 $ca --impl v29=.devcarry/d90/v29.so --impl v29x=.devcarry/d90/v29x.so --no-timing \
  --only s512_d128_b32_h16,s4096_d128_b4_h16,s1024_d128_b16_h16_causal,s512_d64_b32_h32_causal,s4096_d64_b4_h32 \
  scenarios/attention_fa3_grid.json > $r/smoke.txt 2>&1
rc=$?; say "smoke exit $rc: $(tail -1 $r/smoke.txt)"
if ((rc == 0)); then
  timeout 240 $ca --impl v26=.devcarry/d82/v26.so --impl v29=.devcarry/d90/v29.so --impl v29s1=.devcarry/d90/v29s1.so \
    --impl v29x=.devcarry/d90/v29x.so --same-as v26 --no-timing --jsonl $r/check.jsonl scenarios/attention_edge.json \
    scenarios/attention_fa3_grid.json scenarios/attention_production.json > $r/check.txt 2>&1
  say "check exit $?: $(tail -1 $r/check.txt)"
  for v in v29 v29s1 v29x; do say "$v: bit-identical $(grep -c " $v .*bit-identical" $r/check.txt), differing $(grep -c " $v .*bits differ" $r/check.txt), FAIL $(grep -c " $v  *FAIL" $r/check.txt)"; done
  only=$(python3 -c "import json; print(','.join(s['id'] for s in json.load(open('scenarios/attention_fa3_grid.json'))['scenarios'] if '_d256_' not in s['id']))")
  for trial in 0 3; do
    mkdir -p $r/trial$trial
    ONLY=$only CHECK=" " CHECK_ATTENTION=$ca TIMING="--hold-flag --timing-trial $trial" timeout 280 kernels/attention/tools/ab_variants.sh \
      $r/trial$trial v26=.devcarry/d82/v26.so v29=.devcarry/d90/v29.so v29s1=.devcarry/d90/v29s1.so v29x=.devcarry/d90/v29x.so \
      >> $r/summary.txt 2>&1
    say "ab_variants trial $trial exit $?"
  done
fi
tar czf $OUT/d90.tgz --exclude=build -C /tmp d90
