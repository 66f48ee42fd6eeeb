#!/usr/bin/env bash
# Device call D108 (session 12): v39 is v36c (the d128 loop's P converted row by row) with the same
# on a query tile's first key tile at d128; v39f256 and v39f64 add the first tile's at d256 / d64. Checked against v31 (bit for bit) on the three sets, then in
# turns against v31 on the 36 FA3 grid shapes, on unit normals. Libraries: calls/build-session12.sh.
set -u
r=/tmp/d108; mkdir -p $r
ca=.devcarry/check_attention
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
v=(v39 v39f256 v39f64)
impls=(); for n in "${v[@]}"; do impls+=(--impl $n=.devcarry/d108/$n.so); done
timeout 200 $ca --impl v31=.devcarry/d93/v31.so "${impls[@]}" --same-as v31 --no-timing \
  scenarios/attention_edge.json scenarios/attention_fa3_grid.json scenarios/attention_production.json > $r/check.txt 2>&1
say "check exit $?: $(tail -1 $r/check.txt); FAIL lines $(grep -c FAIL $r/check.txt); not bit-identical $(grep -E " v39(f256|f64)? " $r/check.txt | grep -vc bit-identical)"
mkdir -p $r/trial0
CHECK=" " CHECK_ATTENTION=$ca TIMING="--hold-flag --timing-trial 0" timeout 300 kernels/attention/tools/ab_variants.sh \
  $r/trial0 v31=.devcarry/d93/v31.so v36c=.devcarry/d105/v36c.so v39=.devcarry/d108/v39.so \
  v39f256=.devcarry/d108/v39f256.so v39f64=.devcarry/d108/v39f64.so >> $r/summary.txt 2>&1
say "ab_variants trial 0 exit $?"
tar czf $OUT/d108.tgz --exclude=build -C /tmp d108
