#!/usr/bin/env bash
# Device call D85 (session 10): softmax_bench (kernels/attention/tools/softmax_bench.cu) again, with
# the two instruction classes a row max over packed bf16 pairs would use: the packed max (HMNMX2)
# and the packing (F2FP), alone and beside the S GEMM groups (waited for, and without gaps).
set -u
r=/tmp/d85; mkdir -p $r
timeout 60 .devcarry/softmax_bench > $r/bench.txt 2>&1
echo "softmax_bench exit $?" >> $r/bench.txt
tar czf $OUT/d85.tgz -C /tmp d85
