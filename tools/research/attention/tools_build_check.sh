#!/usr/bin/env bash
# Compile check (no GPU) of the device-side measuring tools against the current kernel and
# harness: tile_phases.cu (the kernel with its HOPPER_PHASE marks defined), softmax_bench.cu (the
# kernel's softmax_step beside wgmma work), wgmma_rate.cu (the kernel's wgmma wrappers' rate by
# group form), check_attention.cu (the A/B timer) and
# blocking_hold_lib.cu (the stream hold sdpa_anchors.py --hold-flag loads). A renamed variable at
# a mark, or a changed kernel or harness interface, fails here rather than at the start of a
# device call. The three that include the whole kernel stop at PTX (ptxas's verdict on the kernel is
# check_build.sh's), with NVVM's optimiser off (-Xcicc -O0: the PTX is not used, and the front end's
# checks are the same; 8-12 s each against 15-21 s), and run side by side.
#   usage: [NVCC=nvcc] [OUT_DIR=dir] tools/research/attention/tools_build_check.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
includes=(-I "$root/kernels/hopper" -I "$root/kernels/attention" -I "$root/kernels/harness")
nvcc=${NVCC:-nvcc}
command -v "$nvcc" >/dev/null || nvcc=/usr/local/cuda/bin/nvcc
out=${OUT_DIR:-$(mktemp -d)}
mkdir -p "$out"
flags=(-std=c++17 -gencode=arch=compute_90a,code=sm_90a "${includes[@]}" -c)
ptx_flags=(-std=c++17 -gencode=arch=compute_90a,code=compute_90a -Xcicc -O0 "${includes[@]}" -c)
"$nvcc" "${ptx_flags[@]}" "$here/tile_phases.cu" -o "$out/tile_phases.o" &
tile_phases=$!
"$nvcc" "${ptx_flags[@]}" "$here/wgmma_rate.cu" -o "$out/wgmma_rate.o" &
wgmma_rate=$!
"$nvcc" "${ptx_flags[@]}" "$here/softmax_bench.cu" -o "$out/softmax_bench.o"
wait "$tile_phases"
wait "$wgmma_rate"
"$nvcc" "${flags[@]}" "$here/check_attention.cu" -o "$out/check_attention.o"
"$nvcc" "${flags[@]}" -Xcompiler -fPIC "$here/blocking_hold_lib.cu" -o "$out/blocking_hold_lib.o"
echo "OK: tile_phases.cu, softmax_bench.cu, wgmma_rate.cu, check_attention.cu and blocking_hold_lib.cu compile"
