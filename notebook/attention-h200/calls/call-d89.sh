#!/usr/bin/env bash
# Device call D89 (session 11): v28, the loop softmax without a row max with a recovery in the warp
# (softmax_stale: P's own max and a power-of-two rescale where a row grew; S again by mma.sync where
# P overflowed), against v26. v28 at d128 (the default), v28b without it on a query tile's last key
# tile (HOPPER_STALE_MAX_LAST=0), v28x also at d64 and d256. Smoke test; checked on the three sets
# and compared with v26 bit for bit; then the 36 grid shapes in turns, timed on unit normals
# (trial 0, as the anchors) and on the outlier regime (trial 3).
set -u
r=/tmp/d89; mkdir -p $r
ca=.devcarry/check_attention
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
timeout 30 $ca --impl v28=.devcarry/d89/v28.so --impl v28x=.devcarry/d89/v28x.so --no-timing \
  --only s512_d128_b32_h16,s4096_d128_b4_h16,s1024_d128_b16_h16_causal,s512_d64_b32_h32_causal,s4096_d256_b4_h8 \
  scenarios/attention_fa3_grid.json > $r/smoke.txt 2>&1
rc=$?; say "smoke exit $rc: $(tail -1 $r/smoke.txt)"
if ((rc == 0)); then
  timeout 240 $ca --impl v26=.devcarry/d82/v26.so --impl v28=.devcarry/d89/v28.so --impl v28b=.devcarry/d89/v28b.so \
    --impl v28x=.devcarry/d89/v28x.so --same-as v26 --no-timing --jsonl $r/check.jsonl scenarios/attention_edge.json \
    scenarios/attention_fa3_grid.json scenarios/attention_production.json > $r/check.txt 2>&1
  say "check exit $?: $(tail -1 $r/check.txt)"
  for v in v28 v28b v28x; do say "$v: bit-identical $(grep -c " $v .*bit-identical" $r/check.txt), differing $(grep -c " $v .*bits differ" $r/check.txt), FAIL $(grep -c " $v  *FAIL" $r/check.txt)"; done
  for trial in 0 3; do
    mkdir -p $r/trial$trial
    CHECK=" " CHECK_ATTENTION=$ca TIMING="--hold-flag --timing-trial $trial" timeout 280 kernels/attention/tools/ab_variants.sh \
      $r/trial$trial v26=.devcarry/d82/v26.so v28=.devcarry/d89/v28.so v28b=.devcarry/d89/v28b.so v28x=.devcarry/d89/v28x.so \
      >> $r/summary.txt 2>&1
    say "ab_variants trial $trial exit $?"
  done
fi
tar czf $OUT/d89.tgz --exclude=build -C /tmp d89
