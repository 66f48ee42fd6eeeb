#!/usr/bin/env bash
# Builds, on any machine with nvcc (no GPU needed), what session 11's device calls D89-D101 carried
# in .devcarry/ (from the repository root; 7.5 minutes on 2 cores). D82's v26.so, check_attention,
# blocking_hold.so and D61's baseline.so come from calls/build-session10.sh and build-session8.sh.
# v28, v29 and v30 are v26 (the trace's stop 10) plus versions/v28-warp-recovery.patch (D89's v28
# had no HOPPER_STALE_SWITCH yet: the patch's default 0 leaves every warp on softmax_stale, its
# code), v29-warpgroup-vote.patch and v30-warp-switch.patch; v31 is hopper.cu as shipped, v32 v31
# plus v32-d128-kept-switch.patch, v33 and v33b v31 plus v33-two-loops.patch and v33b-stale-loop.patch.
set -euo pipefail
dc=.devcarry; mkdir -p $dc/d89 $dc/d90 $dc/d91 $dc/d92 $dc/d93 $dc/d96 $dc/d97 $dc/d100 $dc/d101
C=docs/campaigns/attention-h200
v26=$C/candidates/94c2cd627f6cb68b759942b19d3f84e8e5bac2e7a7b86a6dbc4da477de89b812.cu
nv=(nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels/attention)
lib=(-shared -Xcompiler -fPIC -Xcompiler -fno-gnu-unique)
from_patch() {  # patch name -> a directory holding hopper.cu (v26 + the patch) and its header
  local tmp; tmp=$(mktemp -d); cp kernels/attention/attention_args.h "$tmp/"
  patch -s -o "$tmp/hopper.cu" "$v26" "$C/versions/$1.patch"; echo "$tmp"
}
# D89: v28 at d128; v28b not on a query tile's last key tile; v28x at d64 and d256 too.
t=$(from_patch v28-warp-recovery)
"${nv[@]}" "${lib[@]}" "$t/hopper.cu" -o $dc/d89/v28.so
"${nv[@]}" "${lib[@]}" -DHOPPER_STALE_MAX_LAST=0 "$t/hopper.cu" -o $dc/d89/v28b.so
"${nv[@]}" "${lib[@]}" -DHOPPER_STALE_MAX_D64=1 -DHOPPER_STALE_MAX_D256=1 "$t/hopper.cu" -o $dc/d89/v28x.so
# D90: v29 (one warpgroup vote a key tile); v29s1 switches only after S again; v29x at d64 too.
t=$(from_patch v29-warpgroup-vote)
"${nv[@]}" "${lib[@]}" "$t/hopper.cu" -o $dc/d90/v29.so
"${nv[@]}" "${lib[@]}" -DHOPPER_STALE_SWITCH=1 "$t/hopper.cu" -o $dc/d90/v29s1.so
"${nv[@]}" "${lib[@]}" -DHOPPER_STALE_MAX_D64=1 "$t/hopper.cu" -o $dc/d90/v29x.so
"${nv[@]}" "${lib[@]}" -DHOPPER_STALE_SWITCH=0 "$t/hopper.cu" -o $dc/d96/v29n.so   # D96 (v27: build-session10.sh)
# D91: v30 (v28 with the switch, at d64); v30b LAST=0, v30m from 32 key tiles, v30d d128 too.
t=$(from_patch v30-warp-switch)
"${nv[@]}" "${lib[@]}" "$t/hopper.cu" -o $dc/d91/v30.so
"${nv[@]}" "${lib[@]}" -DHOPPER_STALE_MAX_LAST=0 "$t/hopper.cu" -o $dc/d91/v30b.so
"${nv[@]}" "${lib[@]}" -DHOPPER_STALE_MIN_BLOCKS=32 "$t/hopper.cu" -o $dc/d91/v30m.so
"${nv[@]}" "${lib[@]}" -DHOPPER_STALE_MAX_D128=1 "$t/hopper.cu" -o $dc/d91/v30d.so
# D92: v31 in the one instance, the non-persistent d64 kernel from seqlen_q 8192 (v31), 4096 (v31a,
# what shipped) and 2048 (v31b); D93, D94: v31 as shipped.
H=kernels/attention/hopper.cu
"${nv[@]}" "${lib[@]}" -DHOPPER_D64_ROWS192_FROM=8192 $H -o $dc/d92/v31.so
"${nv[@]}" "${lib[@]}" $H -o $dc/d92/v31a.so
"${nv[@]}" "${lib[@]}" -DHOPPER_D64_ROWS192_FROM=2048 $H -o $dc/d92/v31b.so
cp $dc/d92/v31a.so $dc/d93/v31.so
# D97: v32, v31 plus versions/v32-d128-kept-switch.patch.
tmp32=$(mktemp -d); cp kernels/attention/attention_args.h "$tmp32/"
patch -s -o "$tmp32/hopper.cu" $H $C/versions/v32-d128-kept-switch.patch
"${nv[@]}" "${lib[@]}" "$tmp32/hopper.cu" -o $dc/d97/v32.so
# D100: v33, v31 plus versions/v33-two-loops.patch.
tmp33=$(mktemp -d); cp kernels/attention/attention_args.h "$tmp33/"
patch -s -o "$tmp33/hopper.cu" $H $C/versions/v33-two-loops.patch
"${nv[@]}" "${lib[@]}" "$tmp33/hopper.cu" -o $dc/d100/v33.so
# D101: v33b, v31 plus versions/v33b-stale-loop.patch.
tmp33b=$(mktemp -d); cp kernels/attention/attention_args.h "$tmp33b/"
patch -s -o "$tmp33b/hopper.cu" $H $C/versions/v33b-stale-loop.patch
"${nv[@]}" "${lib[@]}" "$tmp33b/hopper.cu" -o $dc/d101/v33b.so
