#!/usr/bin/env bash
# Device call D55 (session 8): fewer instructions in the d64 softmax. D52/D54: the softmax issues
# about 5 instructions per value and every extra one costs; D53: the row sums by an n8 wgmma
# (one FADD per value fewer) cost nothing at d64 but lost at d128/d256. Variants (built here,
# .devcarry/d55): r64 = HOPPER_ROWSUM_MMA_D64=1 (row sums by wgmma at d64 only); x64 = r64 plus
# HOPPER_PACKED_EXP_D64=1 (the arguments rounded to 16-bit pairs and one packed MUFU exponential
# per pair, written straight into P's registers, so neither the FADD nor the F2FP after the
# exponential remains; the P V product is waited for before the exponentials, since a second P
# buffer does not fit a three-warpgroup instance's 160 registers). Both checked on the three sets
# (x64's rounding of the argument is the new numerical step); all timed on the grid's 12 d64
# shapes (the others run v24's PTX) in turns, two passes, held until enqueued. One tarball in $OUT.
set -u
r=/tmp/d55; mkdir -p $r
d=.devcarry/d55
cuobjdump -sass $d/x64.so 2>/dev/null | gzip > $r/x64.sass.gz
ONLY=s512_d64_b32_h32,s1024_d64_b16_h32,s2048_d64_b8_h32,s4096_d64_b4_h32,s8192_d64_b2_h32,s16384_d64_b1_h32,s512_d64_b32_h32_causal,s1024_d64_b16_h32_causal,s2048_d64_b8_h32_causal,s4096_d64_b4_h32_causal,s8192_d64_b2_h32_causal,s16384_d64_b1_h32_causal \
CHECK="x64 r64" CHECK_ATTENTION=.devcarry/check_attention TIMING=--hold-flag timeout 540 \
  kernels/attention/tools/ab_variants.sh $r v24=.devcarry/v24.so r64=$d/r64.so x64=$d/x64.so > $r/summary.txt 2>&1
echo "ab_variants exit $?" >> $r/summary.txt
tar czf $OUT/d55.tgz --exclude=build -C /tmp d55
