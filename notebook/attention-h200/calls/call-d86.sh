#!/usr/bin/env bash
# Device call D86 (session 10; its first run hung in the smoke test: the verdict was per warp, and
# a warp alone issued the warpgroup-wide wgmma; now taken per warpgroup, bar.red.and): v27, d128's loop softmax without a per-tile row max while the
# running one holds (softmax_stale; HOPPER_STALE_MAX_D128), against v26: v27 (also on a query
# tile's last key tile), v27b (not there: HOPPER_STALE_MAX_LAST=0, Q goes back as in v26). Smoke
# test, both checked on the three sets and compared with v26 bit for bit, then the 12 d128 grid
# shapes in turns (every other instance compiles to v26's PTX).
set -u
r=/tmp/d86; mkdir -p $r
ca=.devcarry/check_attention
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
timeout 30 $ca --impl v27=.devcarry/d86/v27.so --impl v27b=.devcarry/d86/v27b.so --no-timing \
  --only s512_d128_b32_h16,s4096_d128_b4_h16,s1024_d128_b16_h16_causal,s16384_d128_b1_h16_causal \
  scenarios/attention_fa3_grid.json > $r/smoke.txt 2>&1
rc=$?; say "smoke exit $rc: $(tail -1 $r/smoke.txt)"
if ((rc == 0)); then
  timeout 240 $ca --impl v26=.devcarry/d82/v26.so --impl v27=.devcarry/d86/v27.so --impl v27b=.devcarry/d86/v27b.so \
    --same-as v26 --no-timing --jsonl $r/check.jsonl scenarios/attention_edge.json \
    scenarios/attention_fa3_grid.json scenarios/attention_production.json > $r/check.txt 2>&1
  say "check exit $?: $(tail -1 $r/check.txt)"
  for v in v27 v27b; do say "$v: bit-identical $(grep -c " $v .*bit-identical" $r/check.txt), differing $(grep -c " $v .*bits differ" $r/check.txt), FAIL $(grep -c " $v  *FAIL" $r/check.txt)"; done
  only=$(python3 -c "import json; print(','.join(s['id'] for s in json.load(open('scenarios/attention_fa3_grid.json'))['scenarios'] if '_d128_' in s['id']))")
  ONLY=$only CHECK=" " CHECK_ATTENTION=$ca TIMING=--hold-flag timeout 300 kernels/attention/tools/ab_variants.sh $r \
    v26=.devcarry/d82/v26.so v27=.devcarry/d86/v27.so v27b=.devcarry/d86/v27b.so >> $r/summary.txt 2>&1
  say "ab_variants exit $?"
fi
tar czf $OUT/d86.tgz --exclude=build -C /tmp d86
