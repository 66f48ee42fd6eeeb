#!/usr/bin/env bash
# Device call D91 (session 11): v30, v28's warp-level softmax without a row max (S again by mma.sync
# where P overflowed) with a warp back on softmax_step for the rest of the query tile once its rows
# grew (HOPPER_STALE_SWITCH), at d64 (d128 off), against v26: v30, v30b (not on a query tile's last
# key tile: HOPPER_STALE_MAX_LAST=0), v30m (only in query tiles of 32 key tiles or more), v30d (d128
# too; its 192-key persistent instance spills 16 bytes outside the loop). Smoke, check against v26
# bit for bit, the 24 d64 and d128 grid shapes in turns on unit normals (trial 0) and outliers (trial 3).
set -u
r=/tmp/d91; mkdir -p $r
ca=.devcarry/check_attention
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
timeout 30 $ca --impl v30=.devcarry/d91/v30.so --impl v30d=.devcarry/d91/v30d.so --no-timing \
  --only s512_d128_b32_h16,s4096_d128_b4_h16,s1024_d128_b16_h16_causal,s512_d64_b32_h32_causal,s4096_d64_b4_h32 \
  scenarios/attention_fa3_grid.json > $r/smoke.txt 2>&1
rc=$?; say "smoke exit $rc: $(tail -1 $r/smoke.txt)"
if ((rc == 0)); then
  timeout 240 $ca --impl v26=.devcarry/d82/v26.so --impl v30=.devcarry/d91/v30.so --impl v30b=.devcarry/d91/v30b.so \
    --impl v30m=.devcarry/d91/v30m.so --impl v30d=.devcarry/d91/v30d.so --same-as v26 --no-timing --jsonl $r/check.jsonl \
    scenarios/attention_edge.json scenarios/attention_fa3_grid.json scenarios/attention_production.json > $r/check.txt 2>&1
  say "check exit $?: $(tail -1 $r/check.txt)"
  for v in v30 v30b v30m v30d; do say "$v: bit-identical $(grep -c " $v .*bit-identical" $r/check.txt), differing $(grep -c " $v .*bits differ" $r/check.txt), FAIL $(grep -c " $v  *FAIL" $r/check.txt)"; done
  only=$(python3 -c "import json; print(','.join(s['id'] for s in json.load(open('scenarios/attention_fa3_grid.json'))['scenarios'] if '_d256_' not in s['id']))")
  for trial in 0 3; do
    mkdir -p $r/trial$trial
    ONLY=$only CHECK=" " CHECK_ATTENTION=$ca TIMING="--hold-flag --timing-trial $trial" timeout 280 kernels/attention/tools/ab_variants.sh \
      $r/trial$trial v26=.devcarry/d82/v26.so v30=.devcarry/d91/v30.so v30b=.devcarry/d91/v30b.so v30m=.devcarry/d91/v30m.so \
      v30d=.devcarry/d91/v30d.so >> $r/summary.txt 2>&1
    say "ab_variants trial $trial exit $?"
  done
fi
tar czf $OUT/d91.tgz --exclude=build -C /tmp d91
