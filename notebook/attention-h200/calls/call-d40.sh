#!/usr/bin/env bash
# Device call D40 (session 6; branch hopper-v24-causal-instances): v24 = v23's causal skip moved
# into instances launched for causal problems only (every instance a non-causal problem runs has
# v19's PTX, label numbers aside), plus the half diagonal (a warpgroup that sees only the first 64
# keys of its first key tile computes S and P V over those: warpgroup 0 of every causal d128
# 128-row tile, one warpgroup of every causal d64 192-row tile). Against v19 (the trace's
# candidates/50cf9ea9...cu) and v24nohalf = -DHOPPER_HALF_DIAGONAL=0 (v23's causal code in the
# causal instances). Both checked on the three sets; timed on the grid's 18 causal shapes (the
# non-causal ones run v19's code) in two passes.
set -u
r=/tmp/d40; mkdir -p $r
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $r/summary.txt 2>&1
v19=docs/campaigns/attention-h200/candidates/50cf9ea9d85f20813edb52caa7f6fb8d6c15112664ee763f0973ea201af130e2.cu
ONLY=s512_d64_b32_h32_causal,s1024_d64_b16_h32_causal,s2048_d64_b8_h32_causal,s4096_d64_b4_h32_causal,s8192_d64_b2_h32_causal,s16384_d64_b1_h32_causal,s512_d128_b32_h16_causal,s1024_d128_b16_h16_causal,s2048_d128_b8_h16_causal,s4096_d128_b4_h16_causal,s8192_d128_b2_h16_causal,s16384_d128_b1_h16_causal,s512_d256_b32_h8_causal,s1024_d256_b16_h8_causal,s2048_d256_b8_h8_causal,s4096_d256_b4_h8_causal,s8192_d256_b2_h8_causal,s16384_d256_b1_h8_causal \
CHECK="v24 v24nohalf" timeout 500 kernels/attention/tools/ab_variants.sh $r v19=$v19 v24=kernels/attention/hopper.cu \
  v24nohalf=kernels/attention/hopper.cu:-DHOPPER_HALF_DIAGONAL=0 >> $r/summary.txt 2>&1
tar czf $OUT/d40.tgz --exclude=build -C /tmp d40
