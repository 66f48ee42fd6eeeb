#!/usr/bin/env bash
# Builds, on any machine with nvcc (no GPU needed), what session 13's device calls carried in
# .devcarry/ (from the repository root). v37.so (D110) comes from calls/build-session12.sh,
# check_attention and blocking_hold.so from build-session8.sh.
# D115: v37 (hopper.cu as shipped) with the dispatch's other choices, one build each: the shapes
# each changes are named beside it. cw2048 is hopper.cu with kD128CausalWideFromSeqlenKv at 2048
# (a constant, not a macro: written by sed into a copy).
set -euo pipefail
dc=.devcarry; mkdir -p $dc/d115
# v37 (the trace's stop 12) for D113-D115, v42 (stop 13, hopper.cu as shipped in session 13) after
H=docs/campaigns/attention-h200/candidates/a83f02666c13b88c646f0c9dbf5f057c3a7f033ec034e3e43af2ae8c4b8297b7.cu
V42=docs/campaigns/attention-h200/candidates/338c9b35a6b0afff34e045c38f2874c04a20e94b61a26d7fc9c569c58b597f78.cu
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
# D116: v42 (v37's kernels, the dispatch of D115's two gains).
mkdir -p $dc/d116
"${nv[@]}" "${lib[@]}" $V42 -o $dc/d116/v42.so
# D119: v43 (versions/v43-lagged-warpgroups.patch on v42, built with -DHOPPER_D128_LAG=1: warpgroup 0
# one turn ahead in the 128-key d128 persistent kernel) and s3, its control (three stages and O from
# registers there, the warpgroups in step: v43 with HOPPER_D128_NARROW_PERSISTENT_STAGES set to 3
# and the lag off).
mkdir -p $dc/d119
patch -s -o "$tmp/v43.cu" $V42 docs/campaigns/attention-h200/versions/v43-lagged-warpgroups.patch
"${nv[@]}" "${lib[@]}" -DHOPPER_D128_LAG=1 "$tmp/v43.cu" -o $dc/d119/v43.so
sed 's/^#define HOPPER_D128_NARROW_PERSISTENT_STAGES .*/#define HOPPER_D128_NARROW_PERSISTENT_STAGES 3/' "$tmp/v43.cu" > "$tmp/s3.cu"
"${nv[@]}" "${lib[@]}" -DHOPPER_D128_LAG=0 "$tmp/s3.cu" -o $dc/d119/s3.so
# D120: tile_phases at v42 (the tool includes hopper.cu: build it at session 13's tree).
mkdir -p $dc/d120
"${nv[@]}" kernels/attention/tools/tile_phases.cu -o $dc/d120/tile_phases
# D121: v44 (versions/v44-epilogue-under-s.patch on v42) with the epilogue under the first S GEMM
# (-DHOPPER_EPILOGUE_UNDER_S=1) and without (v44off: the restructured loop alone).
mkdir -p $dc/d121
patch -s -o "$tmp/v44.cu" $V42 docs/campaigns/attention-h200/versions/v44-epilogue-under-s.patch
"${nv[@]}" "${lib[@]}" -DHOPPER_EPILOGUE_UNDER_S=1 "$tmp/v44.cu" -o $dc/d121/v44.so
"${nv[@]}" "${lib[@]}" "$tmp/v44.cu" -o $dc/d121/v44off.so
# D122: v42 with the causal tile order's L2 sections at 8 MB, 32 MB and one section (HOPPER_L2_SECTION_BYTES;
# v42: 16 MB).
mkdir -p $dc/d122
for v in 8:$((8 << 20)) 32:$((32 << 20)) 0:0; do
  "${nv[@]}" "${lib[@]}" "-DHOPPER_L2_SECTION_BYTES=${v#*:}" $V42 -o $dc/d122/l2s${v%%:*}.so
done
# D123: v45 (hopper.cu as shipped in session 13: v42 with the L2 sections sized by shape).
mkdir -p $dc/d123
V45=docs/campaigns/attention-h200/candidates/6607d1f60bb859219109745738150fa2f21549631d3f5a2ac5b8b02de06398e6.cu
"${nv[@]}" "${lib[@]}" $V45 -o $dc/d123/v45.so
# D124 carries no build: .devcarry/d124/acw is the acw/ folder of D117's tarball (D117's workspace,
# its build cache left out; run call-d117.sh first to make it) and .devcarry/d124/v45.cu is the
# candidate above.
