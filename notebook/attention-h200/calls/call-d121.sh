#!/usr/bin/env bash
# Device call D121 (session 13): v44, the previous tile's epilogue under the next tile's first S
# GEMM in the 128-key d128 persistent kernel (the S GEMM issued out of turn as soon as Q and K have
# landed; O / l packed before it, written to the epilogue's buffer beside it, handed to TMA after
# it), against v42 and v44off (the same source with HOPPER_EPILOGUE_UNDER_S=0: the restructured
# loop alone, which moved every persistent instance's PTX). The three sets against the fp32
# reference (v44 and v44off bit for bit against v42), then the 36 grid shapes in turns (unit
# normals, each launch held until enqueued). Prediction (D120: at s512 d128 the epilogue is 1.05k
# of a 12.8k-cycle tile, the S GEMM it hides under ~0.5k): s512/s1024 d128 and causal d128
# s512-s2048 +2-4%, every other shape level for both. Libraries: calls/build-session13.sh.
set -u
r=/tmp/d121; mkdir -p $r
ca=.devcarry/check_attention d=.devcarry
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
pack() { tar czf $OUT/d121.tgz --exclude=build -C /tmp d121; }
timeout 30 $ca --impl v44=$d/d121/v44.so --no-timing --trial-list 0 \
  --only s512_d128_b32_h16,s1024_d128_b16_h16_causal scenarios/attention_fa3_grid.json > $r/smoke.txt 2>&1
rc=$?; say "smoke exit $rc: $(tail -1 $r/smoke.txt)"
if [ $rc -ne 0 ]; then pack; exit 0; fi
timeout 150 $ca --impl v42=$d/d116/v42.so --impl v44=$d/d121/v44.so --impl v44off=$d/d121/v44off.so --same-as v42 --no-timing \
  scenarios/attention_edge.json scenarios/attention_fa3_grid.json scenarios/attention_production.json > $r/check.txt 2>&1
say "check exit $?: $(tail -1 $r/check.txt); FAIL lines $(grep -c FAIL $r/check.txt); v44 not bit-identical $(grep -E ' v44 ' $r/check.txt | grep -vc bit-identical); v44off not bit-identical $(grep -E ' v44off ' $r/check.txt | grep -vc bit-identical)"
pack
CHECK=" " CHECK_ATTENTION=$ca TIMING="--hold-flag --timing-trial 0" timeout 300 kernels/attention/tools/ab_variants.sh \
  $r/trial0 v42=$d/d116/v42.so v44=$d/d121/v44.so v44off=$d/d121/v44off.so >> $r/summary.txt 2>&1
say "ab_variants exit $?"
pack
