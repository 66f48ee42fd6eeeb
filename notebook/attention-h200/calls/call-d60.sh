#!/usr/bin/env bash
# Device call D60 (session 8): the exponential token at every head dim. D59: in d64's non-causal
# three-warpgroup instances it measured 1.014x on the d64 shapes (+1.4..+2.8% non-causal, correct
# on the three sets). Variant tokall (.devcarry/d60/tokall.so = v25's hopper.cu with
# -DHOPPER_EXP_TOKEN_D128=1 -DHOPPER_EXP_TOKEN_D256=1; calls/build-session8.sh): every instance
# with turns, causal ones (whose skipped key tiles pass the token) and the two-warpgroup ones
# included. 20 s smoke test, then checked on the three sets and timed against v24 on the whole
# grid in turns (two passes, held until enqueued). One tarball in $OUT.
set -u
r=/tmp/d60; mkdir -p $r
ca=.devcarry/check_attention
timeout 20 $ca --impl tokall=.devcarry/d60/tokall.so --no-timing \
  --only s512_d64_b32_h32_causal,s512_d128_b32_h16,s1024_d256_b16_h8_causal,s16384_d256_b1_h8_causal \
  scenarios/attention_fa3_grid.json > $r/smoke.txt 2>&1
rc=$?; echo "smoke exit $rc" >> $r/summary.txt
if ((rc == 0)); then
  CHECK="tokall" CHECK_ATTENTION=$ca TIMING=--hold-flag timeout 500 kernels/attention/tools/ab_variants.sh $r \
    v24=.devcarry/v24.so tokall=.devcarry/d60/tokall.so >> $r/summary.txt 2>&1
  echo "ab_variants exit $?" >> $r/summary.txt
fi
tar czf $OUT/d60.tgz --exclude=build -C /tmp d60
