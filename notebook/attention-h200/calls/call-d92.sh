#!/usr/bin/env bash
# Device call D92 (session 11): v31, v30's softmax without a row max compiled into one instance, the
# non-persistent d64 kernel of non-causal problems (every other instance's PTX is v26's), against
# v26; v31a and v31b also send non-causal d64 to that kernel from seqlen_q 4096 and 2048 (v26: 8192;
# HOPPER_D64_ROWS192_FROM). Smoke, check against v26 bit for bit on the three sets, then the 12 d64
# grid shapes in turns on unit normals (trial 0) and outliers (trial 3).
set -u
r=/tmp/d92; mkdir -p $r
ca=.devcarry/check_attention
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
timeout 30 $ca --impl v31=.devcarry/d92/v31.so --impl v31b=.devcarry/d92/v31b.so --no-timing \
  --only s8192_d64_b2_h32,s2048_d64_b8_h32,s16384_d64_b1_h32_causal scenarios/attention_fa3_grid.json > $r/smoke.txt 2>&1
rc=$?; say "smoke exit $rc: $(tail -1 $r/smoke.txt)"
if ((rc == 0)); then
  timeout 240 $ca --impl v26=.devcarry/d82/v26.so --impl v31=.devcarry/d92/v31.so --impl v31a=.devcarry/d92/v31a.so \
    --impl v31b=.devcarry/d92/v31b.so --same-as v26 --no-timing --jsonl $r/check.jsonl \
    scenarios/attention_edge.json scenarios/attention_fa3_grid.json scenarios/attention_production.json > $r/check.txt 2>&1
  say "check exit $?: $(tail -1 $r/check.txt)"
  for v in v31 v31a v31b; do say "$v: bit-identical $(grep -c " $v .*bit-identical" $r/check.txt), differing $(grep -c " $v .*bits differ" $r/check.txt), FAIL $(grep -c " $v  *FAIL" $r/check.txt)"; done
  only=$(python3 -c "import json; print(','.join(s['id'] for s in json.load(open('scenarios/attention_fa3_grid.json'))['scenarios'] if '_d64_' in s['id']))")
  for trial in 0 3; do
    mkdir -p $r/trial$trial
    ONLY=$only CHECK=" " CHECK_ATTENTION=$ca TIMING="--hold-flag --timing-trial $trial" timeout 280 kernels/attention/tools/ab_variants.sh \
      $r/trial$trial v26=.devcarry/d82/v26.so v31=.devcarry/d92/v31.so v31a=.devcarry/d92/v31a.so v31b=.devcarry/d92/v31b.so \
      >> $r/summary.txt 2>&1
    say "ab_variants trial $trial exit $?"
  done
fi
tar czf $OUT/d92.tgz --exclude=build -C /tmp d92
