#!/usr/bin/env bash
# Builds hopper.cu the way the evaluator does (plus -D variants) into DEST (default .devcarry/hopper).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:-.devcarry/hopper}
mkdir -p "$dest"
nvcc_cmd=(nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC -I "$here" "$here/hopper.cu")
build() { local name=$1; shift; "${nvcc_cmd[@]}" "$@" -o "$dest/$name.so"; echo "built $dest/$name.so $*"; }
build hopper
build hopper_nopp -DHOPPER_PINGPONG=0
build hopper_plain -DHOPPER_OVERLAP=0 -DHOPPER_PINGPONG=0
build hopper_wide -DHOPPER_D128_BLOCK_N=176 -DHOPPER_D64_BLOCK_N=192
build hopper_general -DHOPPER_FORCE_GENERAL=1
build hopper_vswap -DHOPPER_V_SWAP_STRIDES=1
cp "$here/tools/bench_hopper.py" "$here/tools/run_device.sh" "$dest/"
