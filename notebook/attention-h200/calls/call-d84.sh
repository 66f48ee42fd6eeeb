#!/usr/bin/env bash
# Device call D84 (session 10): session 9's next question. kernels/attention/tools/softmax_bench.cu
# with the session-10 modes: the softmax beside gap-free (pipelined) S GEMM groups, and one
# instruction class at a time (FFMA, FMNMX, FADD; MUFU is the exponentials' row) alone and beside
# the GEMMs: which of the softmax's instructions does the tensor cores' work slow?
set -u
r=/tmp/d84; mkdir -p $r
timeout 60 .devcarry/softmax_bench > $r/bench.txt 2>&1
echo "softmax_bench exit $?" >> $r/bench.txt
tar czf $OUT/d84.tgz -C /tmp d84
