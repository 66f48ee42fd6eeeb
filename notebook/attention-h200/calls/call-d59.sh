#!/usr/bin/env bash
# Device call D59 (session 8): the exponential token. D58: at d64 MUFU holds 28-32% of the warp
# samples, 7-10% of them on the MIO queue; with three consumer warpgroups, two can be in their
# exponentials at once and share one MUFU queue per SM sub-partition. Variant tok
# (.devcarry/d59/tok.so, built from a working copy then: v25's token code with its switch, then
# named HOPPER_D64_EXP_TOKEN, limited to the instances below; not kept): in d64's
# non-causal three-warpgroup instances the warpgroups take turns for their exponentials (a ring of
# named barriers beside the GEMM turns). A new barrier protocol, so a 20 s smoke test first; then
# checked on the three sets and timed against v24 on the grid's 12 d64 shapes in turns (two passes,
# held until enqueued). One tarball in $OUT.
set -u
r=/tmp/d59; mkdir -p $r
ca=.devcarry/check_attention
timeout 20 $ca --impl tok=.devcarry/d59/tok.so --no-timing --only s512_d64_b32_h32,s4096_d64_b4_h32,s16384_d64_b1_h32 \
  scenarios/attention_fa3_grid.json > $r/smoke.txt 2>&1
rc=$?; echo "smoke exit $rc" >> $r/summary.txt
if ((rc == 0)); then
  ONLY=s512_d64_b32_h32,s1024_d64_b16_h32,s2048_d64_b8_h32,s4096_d64_b4_h32,s8192_d64_b2_h32,s16384_d64_b1_h32,s512_d64_b32_h32_causal,s1024_d64_b16_h32_causal,s2048_d64_b8_h32_causal,s4096_d64_b4_h32_causal,s8192_d64_b2_h32_causal,s16384_d64_b1_h32_causal \
  CHECK="tok" CHECK_ATTENTION=$ca TIMING=--hold-flag timeout 400 kernels/attention/tools/ab_variants.sh $r \
    v24=.devcarry/v24.so tok=.devcarry/d59/tok.so >> $r/summary.txt 2>&1
  echo "ab_variants exit $?" >> $r/summary.txt
fi
tar czf $OUT/d59.tgz --exclude=build -C /tmp d59
