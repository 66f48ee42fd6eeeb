#!/usr/bin/env bash
# Device call D106 (session 12): v37, D105's v36c (P converted row by row inside the loop's
# softmax_step) at every head dim: v37 (d64, d128, d256), v37d64 and v37d256 (one head dim each;
# v36c is the d128 one, PTX for PTX). Checked against v31 (bit for bit) on the three sets, then in
# turns against v31 on the 36 FA3 grid shapes, on unit normals. Libraries: calls/build-session12.sh.
set -u
r=/tmp/d106; mkdir -p $r
ca=.devcarry/check_attention
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
v=(v37 v37d64 v37d256)
impls=(); for n in "${v[@]}"; do impls+=(--impl $n=.devcarry/d106/$n.so); done
timeout 200 $ca --impl v31=.devcarry/d93/v31.so "${impls[@]}" --same-as v31 --no-timing \
  scenarios/attention_edge.json scenarios/attention_fa3_grid.json scenarios/attention_production.json > $r/check.txt 2>&1
say "check exit $?: $(tail -1 $r/check.txt); FAIL lines $(grep -c FAIL $r/check.txt); not bit-identical $(grep -E ' v37(d64|d256)? ' $r/check.txt | grep -vc bit-identical)"
mkdir -p $r/trial0
CHECK=" " CHECK_ATTENTION=$ca TIMING="--hold-flag --timing-trial 0" timeout 300 kernels/attention/tools/ab_variants.sh \
  $r/trial0 v31=.devcarry/d93/v31.so v36c=.devcarry/d105/v36c.so v37=.devcarry/d106/v37.so \
  v37d64=.devcarry/d106/v37d64.so v37d256=.devcarry/d106/v37d256.so >> $r/summary.txt 2>&1
say "ab_variants trial 0 exit $?"
tar czf $OUT/d106.tgz --exclude=build -C /tmp d106
