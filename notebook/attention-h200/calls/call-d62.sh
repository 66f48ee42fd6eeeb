#!/usr/bin/env bash
# Device call D62 (session 8): with the exponential token, a warpgroup holding it is bound by its
# own MUFU time (D59/D60), so moving some of its exponentials to the FP32 pipe might now shorten
# the hold (D52 measured that trade without the token: slower). Variants (built here from v25 plus
# versions/v25p-token-exp2-poly.patch): tp8 (-DHOPPER_EXP_POLY_D64=8, one exponential in 8 of a
# row by exp2_poly at d64) and tp4 (=4). Against v25 (.devcarry/d61/v25.so) on the grid's 12 d64
# shapes in turns (two passes, held until enqueued), tp8 checked on the three sets. One tarball in $OUT.
set -u
r=/tmp/d62; mkdir -p $r
ONLY=s512_d64_b32_h32,s1024_d64_b16_h32,s2048_d64_b8_h32,s4096_d64_b4_h32,s8192_d64_b2_h32,s16384_d64_b1_h32,s512_d64_b32_h32_causal,s1024_d64_b16_h32_causal,s2048_d64_b8_h32_causal,s4096_d64_b4_h32_causal,s8192_d64_b2_h32_causal,s16384_d64_b1_h32_causal \
CHECK="tp8" CHECK_ATTENTION=.devcarry/check_attention TIMING=--hold-flag timeout 400 kernels/attention/tools/ab_variants.sh $r \
  v25=.devcarry/d61/v25.so tp8=.devcarry/d62/tp8.so tp4=.devcarry/d62/tp4.so > $r/summary.txt 2>&1
echo "ab_variants exit $?" >> $r/summary.txt
tar czf $OUT/d62.tgz --exclude=build -C /tmp d62
