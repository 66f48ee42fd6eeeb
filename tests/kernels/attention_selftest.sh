#!/usr/bin/env bash
# Builds and runs attention_selftest.cu (no GPU needed): every scenario file against problem.json,
# the FA3 grid's exact shape, FLOP counts, refusals of bad parameters, the tolerance numbers.
#   usage: [NVCC=nvcc] [OUT_DIR=dir] tests/kernels/attention_selftest.sh
set -euo pipefail
tests=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$tests/../.." && pwd)
here=$root/kernels/attention
nvcc=${NVCC:-nvcc}
command -v "$nvcc" >/dev/null || nvcc=/usr/local/cuda/bin/nvcc
out=${OUT_DIR:-$(mktemp -d)}
mkdir -p "$out"
"$nvcc" -std=c++17 -I "$root/kernels/harness" -I "$here" "$tests/attention_selftest.cu" "$here/problem.cu" \
  "$here/reference.cu" -o "$out/attention_selftest"
"$out/attention_selftest" "$here/problem.json" "$root"/scenarios/attention_*.json
