#!/usr/bin/env bash
# Device call D18 (2026-11-29, session 4): the implementations of a scenario now take turns launch by
# launch (check_attention), and v12ctl (a byte-identical copy of v12) measures what is left of the
# noise. v12r = v12 with d256's O stored straight from registers, 16 bytes per store after a 4 x 4
# exchange inside each quad (-DHOPPER_Q_STAGES_O=0: Q released after the last S GEMM, as at d64 and
# d128) instead of staged through the Q buffer. Variant sources travel in .devcarry/ (carried):
# v12-copy = kernels/attention/hopper.cu at 961c94f; v12r = the same plus HOPPER_Q_STAGES_O and the
# quad-exchange stores, which is what 62c5c50 shipped with the Q-staging branch removed.
# Checked (v12r) on all three scenario sets, timed on the grid in two passes. One tarball in $OUT.
set -u
r=/tmp/d18; mkdir -p $r
v8=docs/campaigns/attention-h200/candidates/06da90d29e253f9f6cfc413e9d1b24bc849f045a4734e73478ffdd16053fad20.cu
h=kernels/attention/hopper.cu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $r/summary.txt 2>&1
cp .devcarry/v12r-hopper.cu $r/
CHECK="v12r" timeout 550 kernels/attention/tools/ab_variants.sh $r v8=$v8 v12=$h v12ctl=.devcarry/v12-copy-hopper.cu \
  v12r=.devcarry/v12r-hopper.cu:-DHOPPER_Q_STAGES_O=0 >> $r/summary.txt 2>&1
tar czf $OUT/d18.tgz --exclude=build -C /tmp d18
