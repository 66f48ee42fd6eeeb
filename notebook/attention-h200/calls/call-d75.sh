#!/usr/bin/env bash
# Device call D75 (session 9): P V deferred one more key tile at d128 (the campaign's standing next
# question). D68: each d128 warpgroup waits ~1200 cycles for its own S after its turn, then runs a
# ~2000-cycle softmax, and only then can take its next turn; the tensor cores idle ~20%. dpv112,
# dpv96 (versions/v26-session9-variants.patch, HOPPER_D128_DEFER_PV2=1, 112- or 96-key tiles, two S
# buffers): turn t issues P V(t - 2) and S(t), and the softmax of t - 1 (issued a turn earlier)
# starts at once. n112: v25 on 112-key tiles (the tile width alone). 20 s smoke test (a new
# pipeline), checks on the three sets, the 12 d128 shapes in turns against v25.
set -u
r=/tmp/d75; mkdir -p $r
ca=.devcarry/check_attention
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
timeout 20 $ca --impl dpv112=.devcarry/d75/dpv112.so --no-timing \
  --only s512_d128_b32_h16,s512_d128_b32_h16_causal,s4096_d128_b4_h16_causal,s16384_d128_b1_h16 \
  scenarios/attention_fa3_grid.json > $r/smoke.txt 2>&1
rc=$?; say "smoke exit $rc: $(tail -1 $r/smoke.txt)"
if ((rc == 0)); then
  only=$(python3 -c "import json; print(','.join(s['id'] for s in json.load(open('scenarios/attention_fa3_grid.json'))['scenarios'] if '_d128_' in s['id']))")
  ONLY=$only CHECK="dpv112 dpv96" CHECK_ATTENTION=$ca TIMING=--hold-flag timeout 420 kernels/attention/tools/ab_variants.sh $r \
    v25=.devcarry/d61/v25.so dpv112=.devcarry/d75/dpv112.so dpv96=.devcarry/d75/dpv96.so n112=.devcarry/d75/n112.so >> $r/summary.txt 2>&1
  say "ab_variants exit $?"
fi
tar czf $OUT/d75.tgz --exclude=build -C /tmp d75
