#!/usr/bin/env bash
# Device call D127 (session 14): the [gpu] tests at session 14's tree, built on the GPU machine
# (CMake, Boost 1.83, Catch2 v3 there): scripts/device/gpu_session.sh's build and gputests stages,
# then ctest's other [gpu] test (blocking_hold_gpu) and the tile-order check (now compiled to PTX
# only). Run from the repository root; nothing carried.
set -u
r=$OUT/d127; mkdir -p $r
OUT=$r scripts/device/gpu_session.sh build gputests
ctest --test-dir build-device -R 'blocking_hold_gpu|attention_tile_order' --output-on-failure > $r/ctest.log 2>&1
echo "ctest blocking_hold_gpu, attention_tile_order: exit $?; $(grep -E 'Test +#|tests passed' $r/ctest.log | tr -s ' ' | tr '\n' ';')" >> $r/summary.txt
cat $r/summary.txt
