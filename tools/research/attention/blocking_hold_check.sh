#!/usr/bin/env bash
# Builds and runs blocking_hold_check.cu: the GPU checks of the stream hold the timing tools use.
# Without a GPU the program exits 77 (ctest reports the test as skipped).
#   usage: [NVCC=nvcc] [OUT_DIR=dir] [ARCH=90a] tools/research/attention/blocking_hold_check.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
nvcc=${NVCC:-nvcc}
command -v "$nvcc" >/dev/null || nvcc=/usr/local/cuda/bin/nvcc
out=${OUT_DIR:-$(mktemp -d)}
arch=${ARCH:-90a}
mkdir -p "$out"
"$nvcc" -std=c++17 -gencode=arch=compute_$arch,code=sm_$arch -I "$here" "$here/blocking_hold_check.cu" \
  -o "$out/blocking_hold_check"
exec "$out/blocking_hold_check"
