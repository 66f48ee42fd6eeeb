#!/usr/bin/env bash
# Builds and runs tile_order_check.cu (a CPU-side check of the persistent kernel's tile order,
# no GPU needed) against a candidate, by default the shipped kernel.
#   usage: [NVCC=nvcc] [OUT_DIR=dir] tools/research/attention/tile_order_check.sh [CANDIDATE.cu]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
nvcc=${NVCC:-nvcc}
command -v "$nvcc" >/dev/null || nvcc=/usr/local/cuda/bin/nvcc
candidate=$(realpath "${1:-$root/kernels/hopper/attention.cu}")
out=${OUT_DIR:-$(mktemp -d)}
mkdir -p "$out"
# The check runs on the host only: the kernels are compiled to PTX, with NVVM's optimiser off, and
# not assembled (the compile takes 16 s; 22 s with the optimiser, 25-29 s with ptxas as well, on the
# 2-core development machine).
"$nvcc" -O2 -std=c++17 -gencode=arch=compute_90a,code=compute_90a -Xcicc -O0 -I "$root/kernels/attention" -DCANDIDATE="\"$candidate\"" \
  "$here/tile_order_check.cu" -o "$out/tile_order_check"
"$out/tile_order_check"
