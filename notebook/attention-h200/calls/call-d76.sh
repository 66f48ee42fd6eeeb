#!/usr/bin/env bash
# Device call D76 (session 9): kernels/attention/tools/softmax_bench.cu as committed (built by
# calls/build-session9.sh into .devcarry/softmax_bench): v25's softmax_step and its exponentials
# alone, beside S-like or P V-like GEMMs, beside the same work; and the GEMM groups' own rate.
mkdir -p $OUT/d76 && timeout 120 .devcarry/softmax_bench 2>&1 | tee $OUT/d76/bench.txt
