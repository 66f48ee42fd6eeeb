#!/usr/bin/env bash
# Builds, on any machine with nvcc (no GPU needed), what session 13's device calls carried in
# .devcarry/ (from the repository root). v37.so (D110) comes from calls/build-session12.sh,
# check_attention and blocking_hold.so from build-session8.sh.
# D115: v37 (hopper.cu as shipped) with the dispatch's other choices, one build each: the shapes
# each changes are named beside it. cw2048 is hopper.cu with kD128CausalWideFromSeqlenKv at 2048
# (a constant, not a macro: written by sed into a copy).
set -euo pipefail
dc=.devcarry; mkdir -p $dc/d115
H=kernels/attention/hopper.cu
nv=(nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels/attention)
lib=(-shared -Xcompiler -fPIC -Xcompiler -fno-gnu-unique)
build() {  # name, flags...
  local name=$1; shift
  "${nv[@]}" "${lib[@]}" "$@" -o $dc/d115/$name.so
}
tmp=$(mktemp -d); cp kernels/attention/attention_args.h "$tmp/"
sed 's/constexpr int kD128CausalWideFromSeqlenKv = 4096;/constexpr int kD128CausalWideFromSeqlenKv = 2048;/' $H > "$tmp/hopper.cu"
grep -q 'kD128CausalWideFromSeqlenKv = 2048' "$tmp/hopper.cu"
build s1 -DHOPPER_SCHEDULE=1 $H &                     # every shape on the per-tile kernel
build s2 -DHOPPER_SCHEDULE=2 $H                       # every shape on the persistent kernel
wait
build w2 -DHOPPER_D64_PERSISTENT_WGS=2 $H &           # d64 non-causal s512..s2048 on 128-row tiles
build cw2 -DHOPPER_D64_CAUSAL_PERSISTENT_WGS=2 -DHOPPER_D64_CAUSAL_LONG_PERSISTENT_WGS=2 $H  # d64 causal s512..s8192
wait
build st2 -DHOPPER_D64_STAGES=2 $H &                  # d64: two K/V stages
build st4 -DHOPPER_D64_STAGES=4 $H                    # d64: four
wait
# (a 64-key d256 tile needs WgmmaSS<32>, which gen_wgmma.py does not generate; D29 measured it)
build cw2048 "$tmp/hopper.cu"                         # d128 causal s2048 on the 192-key tile
wait
ls -la $dc/d115
# D116: v42 (hopper.cu as shipped in session 13: v37's kernels, the dispatch of D115's two gains).
mkdir -p $dc/d116
"${nv[@]}" "${lib[@]}" $H -o $dc/d116/v42.so
