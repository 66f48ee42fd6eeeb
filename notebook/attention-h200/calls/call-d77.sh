#!/usr/bin/env bash
# Device call D77 (session 9): D75 with three K/V stages. In D75's schedule K(t) can be loaded only
# once every warpgroup's S(t - 2) is done, which it learns one turn before S(t) is issued: one
# turn of slack for a TMA load where v25 has two. dpv112s3, dpv96s3 (HOPPER_D128_DEFER_PV2=1,
# HOPPER_D128_STAGES=3), n112s3 (v25 on 112-key tiles, three stages). 20 s smoke test, checks on
# the three sets, the 12 d128 shapes in turns against v25.
set -u
r=/tmp/d77; mkdir -p $r
ca=.devcarry/check_attention
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
timeout 20 $ca --impl dpv112s3=.devcarry/d77/dpv112s3.so --no-timing \
  --only s512_d128_b32_h16,s512_d128_b32_h16_causal,s4096_d128_b4_h16_causal,s16384_d128_b1_h16 \
  scenarios/attention_fa3_grid.json > $r/smoke.txt 2>&1
rc=$?; say "smoke exit $rc: $(tail -1 $r/smoke.txt)"
if ((rc == 0)); then
  only=$(python3 -c "import json; print(','.join(s['id'] for s in json.load(open('scenarios/attention_fa3_grid.json'))['scenarios'] if '_d128_' in s['id']))")
  ONLY=$only CHECK="dpv112s3 dpv96s3" CHECK_ATTENTION=$ca TIMING=--hold-flag timeout 420 kernels/attention/tools/ab_variants.sh $r \
    v25=.devcarry/d61/v25.so dpv112s3=.devcarry/d77/dpv112s3.so dpv96s3=.devcarry/d77/dpv96s3.so n112s3=.devcarry/d77/n112s3.so >> $r/summary.txt 2>&1
  say "ab_variants exit $?"
fi
tar czf $OUT/d77.tgz --exclude=build -C /tmp d77
