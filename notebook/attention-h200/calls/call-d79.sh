#!/usr/bin/env bash
# Device call D79 (session 10): v26, the first key tile's mask, softmax and conversion over its
# first half where no row of the warpgroup sees past it (HOPPER_LIVE_HALF). Answers the plateau
# question bound.sfu-floor in part (exponentials of masked keys). 20 s smoke test; v26 checked
# on the three sets and compared with v25 bit for bit (check_attention --same-as); the grid in
# turns against v25, each launch held until enqueued.
set -u
r=/tmp/d79; mkdir -p $r
ca=.devcarry/check_attention
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
timeout 20 $ca --impl v26=.devcarry/d79/v26.so --no-timing \
  --only s512_d64_b32_h32_causal,s512_d256_b32_h8,s4096_d128_b4_h16,s1024_d128_b16_h16_causal \
  scenarios/attention_fa3_grid.json > $r/smoke.txt 2>&1
rc=$?; say "smoke exit $rc: $(tail -1 $r/smoke.txt)"
if ((rc == 0)); then
  timeout 240 $ca --impl v25=.devcarry/d61/v25.so --impl v26=.devcarry/d79/v26.so --same-as v25 --no-timing \
    --jsonl $r/check.jsonl scenarios/attention_edge.json scenarios/attention_fa3_grid.json \
    scenarios/attention_production.json > $r/check.txt 2>&1
  say "check exit $?: $(tail -1 $r/check.txt); v26 lines bit-identical: $(grep -c ' v26 .*bit-identical' $r/check.txt), differing: $(grep -c ' v26 .*bits differ' $r/check.txt)"
  CHECK=" " CHECK_ATTENTION=$ca TIMING=--hold-flag timeout 320 kernels/attention/tools/ab_variants.sh $r \
    v25=.devcarry/d61/v25.so v26=.devcarry/d79/v26.so >> $r/summary.txt 2>&1
  say "ab_variants exit $?"
fi
tar czf $OUT/d79.tgz --exclude=build -C /tmp d79
