#!/usr/bin/env bash
# Builds, on any machine with nvcc (no GPU needed), what session 12's device calls D102-D111 carried
# in .devcarry/ (from the repository root). D93's v31.so comes from calls/build-session11.sh, v26.so
# and v27.so (D82, D86) from build-session10.sh, check_attention, blocking_hold.so and D61's
# baseline.so from build-session8.sh.
# v34, v35 and v36 are v31 (the trace's stop 11) plus versions/v34-one-step.patch,
# v35-d128-three-warpgroups.patch and v36-convert-fma-max.patch; v37 is hopper.cu as shipped (its
# every-head-dim forms by flags); v38, v39 and v40 are v37 plus v38-lazy-select.patch,
# v39-first-tile-convert.patch and v40-early-release-v.patch. D104's mufu_rate is
# versions/mufu_rate-session12.cu.
set -euo pipefail
dc=.devcarry; mkdir -p $dc/d102 $dc/d103 $dc/d104 $dc/d105 $dc/d106 $dc/d107 $dc/d108 $dc/d109 $dc/d110
# v37 is the trace's stop 12 (hopper.cu as shipped in session 12)
C=docs/campaigns/attention-h200 H=docs/campaigns/attention-h200/candidates/a83f02666c13b88c646f0c9dbf5f057c3a7f033ec034e3e43af2ae8c4b8297b7.cu
v31=$C/candidates/17d2d7d44b217cba3ecb82168487cbc9ef912c9b234635bc1b6bcd3657421d14.cu
nv=(nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels/attention)
lib=(-shared -Xcompiler -fPIC -Xcompiler -fno-gnu-unique)
from_patch() {  # base file, patch name -> a directory holding hopper.cu (base + the patch) and its header
  local tmp; tmp=$(mktemp -d); cp kernels/attention/attention_args.h "$tmp/"
  patch -s -o "$tmp/hopper.cu" "$1" "$C/versions/$2.patch"; echo "$tmp"
}
# D102: v34 (one softmax_step after S again), v34n also in the 128-key persistent d128 kernel.
t=$(from_patch $v31 v34-one-step)
"${nv[@]}" "${lib[@]}" "$t/hopper.cu" -o $dc/d102/v34.so
"${nv[@]}" "${lib[@]}" -DHOPPER_STALE_MAX_D128_NARROW=1 "$t/hopper.cu" -o $dc/d102/v34n.so
# D103: non-causal d128 on three consumer warpgroups, 80- or 64-key tiles, 2 or 3 stages.
t=$(from_patch $v31 v35-d128-three-warpgroups)
for n in 80 64; do
  "${nv[@]}" "${lib[@]}" -DHOPPER_D128_WGS3_BLOCK_N=$n "$t/hopper.cu" -o $dc/d103/w3n$n.so
  "${nv[@]}" "${lib[@]}" -DHOPPER_D128_WGS3_BLOCK_N=$n -DHOPPER_D128_WGS3_STAGES=3 "$t/hopper.cu" -o $dc/d103/w3n${n}s3.so
done
# D104: the exponential forms' rate.
"${nv[@]}" $C/versions/mufu_rate-session12.cu -o $dc/d104/mufu_rate
# D105: v36 (P converted row by row + the max's leaf pairs on the FP32 pipe), v36c, v36m.
t=$(from_patch $v31 v36-convert-fma-max)
"${nv[@]}" "${lib[@]}" "$t/hopper.cu" -o $dc/d105/v36.so
"${nv[@]}" "${lib[@]}" -DHOPPER_MAX_ON_FMA=0 "$t/hopper.cu" -o $dc/d105/v36c.so
"${nv[@]}" "${lib[@]}" -DHOPPER_EARLY_CONVERT=0 "$t/hopper.cu" -o $dc/d105/v36m.so
# D106: v37's conversion at every head dim, and at d64 or d256 alone.
"${nv[@]}" "${lib[@]}" -DHOPPER_EARLY_CONVERT_D64=1 -DHOPPER_EARLY_CONVERT_D256=1 $H -o $dc/d106/v37.so
"${nv[@]}" "${lib[@]}" -DHOPPER_EARLY_CONVERT_D64=1 -DHOPPER_EARLY_CONVERT_D128=0 $H -o $dc/d106/v37d64.so
"${nv[@]}" "${lib[@]}" -DHOPPER_EARLY_CONVERT_D256=1 -DHOPPER_EARLY_CONVERT_D128=0 $H -o $dc/d106/v37d256.so
# D107: v38 (the lazy max update by selects).
t=$(from_patch $H v38-lazy-select)
"${nv[@]}" "${lib[@]}" "$t/hopper.cu" -o $dc/d107/v38.so
# D108: v39 (the first key tile's P row by row too), at d256 / d64 as well.
t=$(from_patch $H v39-first-tile-convert)
"${nv[@]}" "${lib[@]}" "$t/hopper.cu" -o $dc/d108/v39.so
"${nv[@]}" "${lib[@]}" -DHOPPER_EARLY_CONVERT_FIRST_D256=1 "$t/hopper.cu" -o $dc/d108/v39f256.so
"${nv[@]}" "${lib[@]}" -DHOPPER_EARLY_CONVERT_FIRST_D64=1 "$t/hopper.cu" -o $dc/d108/v39f64.so
# D109: v40 (v39 with the V stage handed back inside the softmax).
t=$(from_patch $H v40-early-release-v)
"${nv[@]}" "${lib[@]}" "$t/hopper.cu" -o $dc/d109/v40.so
# D110, D111: v37 as shipped.
"${nv[@]}" "${lib[@]}" $H -o $dc/d110/v37.so
