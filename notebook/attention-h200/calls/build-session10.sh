#!/usr/bin/env bash
# Builds, on any machine with nvcc (no GPU needed), what session 10's device calls D79-D88 carried
# in .devcarry/ (from the repository root; about 6 minutes on 2 cores). D61's v25.so and
# baseline.so and blocking_hold.so come from calls/build-session8.sh.
set -euo pipefail
dc=.devcarry; mkdir -p $dc/d79 $dc/d80 $dc/d82
C=docs/campaigns/attention-h200
nv=(nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels/attention)
lib=(-shared -Xcompiler -fPIC -Xcompiler -fno-gnu-unique)
"${nv[@]}" -I kernels/harness kernels/attention/tools/check_attention.cu kernels/attention/problem.cu \
  kernels/attention/reference.cu -o $dc/check_attention -ldl   # with --same-as (and, from D88, --timing-trial)
# D79: the live half compiled into every instance (the first form, v25 + a patch).
tmp=$(mktemp -d); cp kernels/attention/attention_args.h "$tmp/"
v25=$C/candidates/d2a9329daf15a4bc6001ab7a0c2cde05b92dacf6a32d3dd6c9b75fd995f43661.cu
patch -s -o "$tmp/hopper.cu" "$v25" $C/versions/v26-d79-every-instance.patch
"${nv[@]}" "${lib[@]}" "$tmp/hopper.cu" -o $dc/d79/v26.so
# D80: the causal instances only (v26c, the default: what shipped as v26), and its extensions.
"${nv[@]}" "${lib[@]}" $C/candidates/94c2cd627f6cb68b759942b19d3f84e8e5bac2e7a7b86a6dbc4da477de89b812.cu -o $dc/d80/v26c.so
"${nv[@]}" "${lib[@]}" -DHOPPER_LIVE_HALF_GEMMS=1 $C/candidates/94c2cd627f6cb68b759942b19d3f84e8e5bac2e7a7b86a6dbc4da477de89b812.cu -o $dc/d80/v26g.so
"${nv[@]}" "${lib[@]}" -DHOPPER_D128_CAUSAL_INSTANCES=1 $C/candidates/94c2cd627f6cb68b759942b19d3f84e8e5bac2e7a7b86a6dbc4da477de89b812.cu -o $dc/d80/v26d.so
"${nv[@]}" "${lib[@]}" -DHOPPER_D128_CAUSAL_INSTANCES=1 -DHOPPER_LIVE_HALF_GEMMS=1 $C/candidates/94c2cd627f6cb68b759942b19d3f84e8e5bac2e7a7b86a6dbc4da477de89b812.cu \
  -o $dc/d80/v26gd.so
# D81: the tensor cores' rate by group form.
"${nv[@]}" kernels/attention/tools/wgmma_rate.cu -o $dc/wgmma_rate
# D82: v26 as shipped.
cp $dc/d80/v26c.so $dc/d82/v26.so
# D84, D85: softmax_bench with the session-10 modes (D84 ran it before the HMNMX2 and F2FP rows)
"${nv[@]}" kernels/attention/tools/softmax_bench.cu -o $dc/softmax_bench
# D86, D87: v27 (v26 + versions/v27-stale-max.patch), and v27b with HOPPER_STALE_MAX_LAST=0.
tmp27=$(mktemp -d); cp kernels/attention/attention_args.h "$tmp27/"
patch -s -o "$tmp27/hopper.cu" $C/candidates/94c2cd627f6cb68b759942b19d3f84e8e5bac2e7a7b86a6dbc4da477de89b812.cu \
  $C/versions/v27-stale-max.patch   # (v26: the trace's stop 10)
mkdir -p $dc/d86
"${nv[@]}" "${lib[@]}" "$tmp27/hopper.cu" -o $dc/d86/v27.so
"${nv[@]}" "${lib[@]}" -DHOPPER_STALE_MAX_LAST=0 "$tmp27/hopper.cu" -o $dc/d86/v27b.so
