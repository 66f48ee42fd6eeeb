#!/usr/bin/env bash
# Device call D53 (session 8): v25's question after D52. D52 moved a share of the softmax's
# exponentials from the MUFU unit to the FP32 pipe and every share made every shape slower (p8
# 0.973x ... p2 0.864x v24), so the softmax is bound by the instructions it issues, not by MUFU.
# Variant r (.devcarry/d53/r.so = hopper.cu with HOPPER_ROWSUM_MMA_D64/D128/D256=1, built here
# beforehand): P's row sums added by the tensor cores (a wgmma of P against a ones matrix, m64n8)
# instead of one FADD per value in the softmax (about 1 of its 4.5 instructions per value).
# Against v24 (.devcarry/v24.so, the trace's stop 8): r checked on the three sets; both timed on
# the FA3 grid in turns, two passes, held until enqueued; nvidia-smi sampling. One tarball in $OUT.
set -u
r=/tmp/d53; mkdir -p $r
d=.devcarry/d53
q=timestamp,power.draw,clocks.sm,temperature.gpu,clocks_throttle_reasons.active
nvidia-smi --query-gpu=uuid,serial,power.limit --format=csv > $r/gpu.csv 2>&1
cuobjdump -sass $d/r.so 2>/dev/null | gzip > $r/r.sass.gz
nvidia-smi --query-gpu=$q --format=csv -lms 100 > $r/smi.csv 2>&1 &
smi=$!
CHECK="r" CHECK_ATTENTION=.devcarry/check_attention TIMING=--hold-flag timeout 540 \
  kernels/attention/tools/ab_variants.sh $r v24=.devcarry/v24.so r=$d/r.so > $r/summary.txt 2>&1
echo "ab_variants exit $?" >> $r/summary.txt
kill $smi
tar czf $OUT/d53.tgz --exclude=build -C /tmp d53
