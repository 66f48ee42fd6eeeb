#!/usr/bin/env bash
# Device call D63 (session 8): with the exponential token, does the d64 dispatch still hold? The
# long d64 shapes (s8192+ non-causal, s16384 causal) run the per-tile 192-row kernel since D28
# measured the persistent one 0.2-1.1% slower there. Variant s2 (.devcarry/d63/s2.so = v25 with
# -DHOPPER_SCHEDULE=2: the persistent kernel for every shape) against v25 on the grid's d64 shapes
# from s4096, in turns (two passes, held until enqueued). One tarball in $OUT.
set -u
r=/tmp/d63; mkdir -p $r
ONLY=s4096_d64_b4_h32,s8192_d64_b2_h32,s16384_d64_b1_h32,s4096_d64_b4_h32_causal,s8192_d64_b2_h32_causal,s16384_d64_b1_h32_causal \
CHECK=" " CHECK_ATTENTION=.devcarry/check_attention TIMING=--hold-flag timeout 300 kernels/attention/tools/ab_variants.sh $r \
  v25=.devcarry/d61/v25.so s2=.devcarry/d63/s2.so > $r/summary.txt 2>&1
echo "ab_variants exit $?" >> $r/summary.txt
tar czf $OUT/d63.tgz --exclude=build -C /tmp d63
