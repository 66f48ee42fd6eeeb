#!/usr/bin/env bash
# Device call D52 (session 8): v25's question, whether the softmax's exponentials are what the
# d64 tiles (and the d128 ones) wait for. At d64 the MUFU unit's 16 exponentials a clock per SM
# take as long per key tile as the tensor cores' two GEMMs, so a share of them computed on the
# FP32 pipe (exp2_poly: a cubic and an exponent add, about 8 FMA-pipe instructions) should shorten
# the softmax. Variants (built here beforehand: .devcarry/d52/pN.so = hopper.cu with
# HOPPER_EXP_POLY_D64/D128/D256 = N, every N-th value of a row by polynomial), against v24
# (.devcarry/v24.so, built from the trace's stop 8): p8, p4, p3, p2. p4 and p3 checked on the
# three sets; all five timed on the FA3 grid in turns, two passes (the second reversed), each
# launch held until enqueued (--hold-flag), nvidia-smi sampling every 100 ms. One tarball in $OUT.
set -u
r=/tmp/d52; mkdir -p $r
d=.devcarry/d52
q=timestamp,power.draw,clocks.sm,temperature.gpu,clocks_throttle_reasons.active
nvidia-smi --query-gpu=uuid,serial,power.limit --format=csv > $r/gpu.csv 2>&1
for v in p4 p2; do cuobjdump -sass $d/$v.so > $r/$v.sass 2>/dev/null; done
cuobjdump -sass .devcarry/v24.so > $r/v24.sass 2>/dev/null
nvidia-smi --query-gpu=$q --format=csv -lms 100 > $r/smi.csv 2>&1 &
smi=$!
CHECK="p4 p3" CHECK_ATTENTION=.devcarry/check_attention TIMING=--hold-flag timeout 540 \
  kernels/attention/tools/ab_variants.sh $r v24=.devcarry/v24.so p8=$d/p8.so p4=$d/p4.so p3=$d/p3.so \
  p2=$d/p2.so > $r/summary.txt 2>&1
echo "ab_variants exit $?" >> $r/summary.txt
kill $smi
gzip -f $r/*.sass
tar czf $OUT/d52.tgz --exclude=build -C /tmp d52
