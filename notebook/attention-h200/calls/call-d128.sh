#!/usr/bin/env bash
# Device call D128 (session 14): the four long causal grid shapes that run the per-tile kernel
# (d128 s16384, d256 s4096-s16384), asked again of the persistent kernel now that v45 sizes the L2
# sections by shape (32 MB there, 16 MB when D115 found the persistent kernel 1.7-12.8% slower).
# v45 (hopper.cu as shipped) against s2 (the same source with -DHOPPER_SCHEDULE=2: every shape
# persistent), in turns, two passes, on those four shapes and causal d128 s8192 (persistent in both
# builds: the control). Built here: .devcarry/d123/v45.so, .devcarry/d128/s2.so (nvcc -O3 ...
# -DHOPPER_SCHEDULE=2 kernels/attention/hopper.cu), .devcarry/check_attention.
set -u
r=/tmp/d128; mkdir -p $r
d=.devcarry
ONLY=s16384_d128_b1_h16_causal,s4096_d256_b4_h8_causal,s8192_d256_b2_h8_causal,s16384_d256_b1_h8_causal,s8192_d128_b2_h16_causal \
CHECK=" " CHECK_ATTENTION=$d/check_attention TIMING="--hold-flag --timing-trial 0" timeout 300 \
  kernels/attention/tools/ab_variants.sh $r/trial0 v45=$d/d123/v45.so s2=$d/d128/s2.so > $r/summary.txt 2>&1
echo "ab_variants exit $?" >> $r/summary.txt
tar czf $OUT/d128.tgz --exclude=build -C /tmp d128
