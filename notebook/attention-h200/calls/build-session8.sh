#!/usr/bin/env bash
# Builds, on any machine with nvcc (no GPU needed), the libraries session 8's device calls D52-D65
# carried in .devcarry/ (D59's first form of the token, D62's and D63's variants aside: see the
# campaign log's Reproduce): v24 itself, check_attention, and the variants of
# versions/v25-session8-variants.patch (v24 plus switches that are all off by default; with none
# set, its PTX is v24's). Run from the repository root; then carry .devcarry to the GPU machine.
# The base is the trace's copy of v24 (stop 8), which the patch was made against.
set -euo pipefail
dc=.devcarry; mkdir -p $dc/d52 $dc/d53 $dc/d54 $dc/d55 $dc/d56 $dc/d57 $dc/d58
v24=docs/campaigns/attention-h200/candidates/47ac2c23ba581265b3c87f29480c07306a9f00a9df31af92f7bf52a0aabd6f62.cu
tmp=$(mktemp -d); src=$tmp/hopper.cu
cp kernels/attention/attention_args.h "$tmp/"
patch -s -o "$src" "$v24" docs/campaigns/attention-h200/versions/v25-session8-variants.patch
nv=(nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels/attention)
lib=(-shared -Xcompiler -fPIC -Xcompiler -fno-gnu-unique)
build() {  # OUT FLAGS...
  local out=$1; shift
  "${nv[@]}" "${lib[@]}" "$@" "$src" -o "$out" 2> "$out.log" || { cat "$out.log"; return 1; }
}
"${nv[@]}" "${lib[@]}" "$v24" -o $dc/v24.so
"${nv[@]}" -I kernels/harness kernels/attention/tools/check_attention.cu kernels/attention/problem.cu \
  kernels/attention/reference.cu -o $dc/check_attention -ldl
for n in 8 4 3 2; do  # D52 (p2 again in D54): every n-th exponential of a row by polynomial
  build $dc/d52/p$n.so -DHOPPER_EXP_POLY_D64=$n -DHOPPER_EXP_POLY_D128=$n -DHOPPER_EXP_POLY_D256=$n
done
cp $dc/d52/p2.so $dc/d54/p2.so
build $dc/d53/r.so -DHOPPER_ROWSUM_MMA_D64=1 -DHOPPER_ROWSUM_MMA_D128=1 -DHOPPER_ROWSUM_MMA_D256=1  # D53, D54
cp $dc/d53/r.so $dc/d54/r.so
build $dc/d55/r64.so -DHOPPER_ROWSUM_MMA_D64=1                              # D55
build $dc/d55/x64.so -DHOPPER_ROWSUM_MMA_D64=1 -DHOPPER_PACKED_EXP_D64=1
build $dc/d56/kvonce.so -DHOPPER_DIAG_KV_ONCE=1                             # D56 (timing only)
for v in "n64s2 64 2" "n80s2 80 2" "n64s3 64 3" "n80s3 80 3"; do           # D57
  set -- $v
  build $dc/d57/$1.so -DHOPPER_D128_WGS=3 -DHOPPER_D128_WGS3_BLOCK_N=$2 -DHOPPER_D128_WGS3_STAGES=$3
done
"${nv[@]}" "${lib[@]}" -lineinfo "$v24" -o $dc/d58/v24li.so  # D58 (Nsight Compute)
# D60 and D61 (v25 = kernels/attention/hopper.cu as shipped; D59's tok was an earlier working copy)
mkdir -p $dc/d60 $dc/d61
"${nv[@]}" "${lib[@]}" -DHOPPER_EXP_TOKEN_D128=1 -DHOPPER_EXP_TOKEN_D256=1 kernels/attention/hopper.cu -o $dc/d60/tokall.so
"${nv[@]}" "${lib[@]}" kernels/attention/hopper.cu -o $dc/d61/v25.so
"${nv[@]}" "${lib[@]}" kernels/attention/baseline.cu -o $dc/d61/baseline.so
"${nv[@]}" "${lib[@]}" kernels/attention/tools/blocking_hold_lib.cu -o $dc/blocking_hold.so
mkdir -p $dc/d65  # D65 (Nsight Compute on v25)
"${nv[@]}" "${lib[@]}" -lineinfo kernels/attention/hopper.cu -o $dc/d65/v25li.so
