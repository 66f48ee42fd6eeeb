#!/usr/bin/env bash
# Device calls D70 (session 9): the softmax alone and beside the tensor cores' work, with
# softmax_bench in two earlier forms (.devcarry/d70/smb_f*: one or two softmax warps per SM
# sub-partition; smb2_f*: beside a warpgroup of S-like or P V-like GEMMs), v25's softmax (f0) and
# D69's form 1 (f1; f3 in the first form). D76 repeated every mode with the committed tool.
# First call:
#   for f in 0 1 3; do echo "== form $f"; timeout 60 .devcarry/d70/smb_f$f; done 2>&1 | tee $OUT/d70.txt
# Second call (after a fix: the GEMM warpgroup's four warps now decide together when to stop):
for f in 0 1; do echo "== form $f"; timeout 90 .devcarry/d70/smb2_f$f; done 2>&1 | tee $OUT/d70b.txt
