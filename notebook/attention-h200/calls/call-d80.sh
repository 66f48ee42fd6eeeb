#!/usr/bin/env bash
# Device call D80 (session 10): v26's live half in the causal instances only (D79 compiled it into
# every instance and the non-causal loops lost 1-4%), with two extensions: v26c (the default:
# mask, softmax and conversion over the half; d64 and d256 causal instances), v26g (S and P V over
# the half too, d64: HOPPER_LIVE_HALF_GEMMS=1), v26d (d128 causal on instances of its own, so that
# it gets the half: HOPPER_D128_CAUSAL_INSTANCES=1), v26gd (both). Smoke test, each checked on the
# three sets and compared with v25 bit for bit, then the 18 causal grid shapes in turns (the
# non-causal instances compile to v25's PTX).
set -u
r=/tmp/d80; mkdir -p $r
ca=.devcarry/check_attention
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
vs="v26c v26g v26d v26gd"
impls=(--impl v25=.devcarry/d61/v25.so); for v in $vs; do impls+=(--impl $v=.devcarry/d80/$v.so); done
timeout 30 $ca "${impls[@]}" --no-timing \
  --only s512_d64_b32_h32_causal,s512_d256_b32_h8_causal,s1024_d128_b16_h16_causal,s4096_d128_b4_h16_causal \
  scenarios/attention_fa3_grid.json > $r/smoke.txt 2>&1
rc=$?; say "smoke exit $rc: $(tail -1 $r/smoke.txt)"
if ((rc == 0)); then
  timeout 240 $ca "${impls[@]}" --same-as v25 --no-timing --jsonl $r/check.jsonl scenarios/attention_edge.json \
    scenarios/attention_fa3_grid.json scenarios/attention_production.json > $r/check.txt 2>&1
  say "check exit $?: $(tail -1 $r/check.txt)"
  for v in $vs; do say "$v: bit-identical $(grep -c " $v .*bit-identical" $r/check.txt), differing $(grep -c " $v .*bits differ" $r/check.txt), FAIL $(grep -c " $v  *FAIL" $r/check.txt)"; done
  only=$(python3 -c "import json; print(','.join(s['id'] for s in json.load(open('scenarios/attention_fa3_grid.json'))['scenarios'] if s['id'].endswith('_causal')))")
  args=(v25=.devcarry/d61/v25.so); for v in $vs; do args+=($v=.devcarry/d80/$v.so); done
  ONLY=$only CHECK=" " CHECK_ATTENTION=$ca TIMING=--hold-flag timeout 400 kernels/attention/tools/ab_variants.sh $r "${args[@]}" >> $r/summary.txt 2>&1
  say "ab_variants exit $?"
fi
tar czf $OUT/d80.tgz --exclude=build -C /tmp d80
