#!/usr/bin/env bash
# Device call D105 (session 12): v36, the d128 loop's softmax with P converted row by row as soon as
# a row's exponentials are done (softmax_convert: the first row's conversion beside the second row's
# max and exponentials), and, in instances of their own for non-causal problems, the row max's leaf
# pairs on the FP32 pipe (max_on_fma). v36c: the conversion alone (HOPPER_MAX_ON_FMA=0), v36m: the
# max alone (HOPPER_EARLY_CONVERT=0). Checked against v31 on the three sets, then against v31 on the
# 12 d128 grid shapes, in turns, on unit normals. Libraries: calls/build-session12.sh.
set -u
r=/tmp/d105; mkdir -p $r
ca=.devcarry/check_attention
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
v=(v36 v36c v36m)
impls=(); ab=(); for n in "${v[@]}"; do impls+=(--impl $n=.devcarry/d105/$n.so); ab+=($n=.devcarry/d105/$n.so); done
timeout 200 $ca --impl v31=.devcarry/d93/v31.so "${impls[@]}" --same-as v31 --no-timing \
  scenarios/attention_edge.json scenarios/attention_fa3_grid.json scenarios/attention_production.json > $r/check.txt 2>&1
say "check exit $?: $(tail -1 $r/check.txt); FAIL lines $(grep -c FAIL $r/check.txt)"
only=$(python3 -c "import json; print(','.join(s['id'] for s in json.load(open('scenarios/attention_fa3_grid.json'))['scenarios'] if '_d128_' in s['id']))")
mkdir -p $r/trial0
ONLY=$only CHECK=" " CHECK_ATTENTION=$ca TIMING="--hold-flag --timing-trial 0" timeout 200 kernels/attention/tools/ab_variants.sh \
  $r/trial0 v31=.devcarry/d93/v31.so "${ab[@]}" >> $r/summary.txt 2>&1
say "ab_variants trial 0 exit $?"
tar czf $OUT/d105.tgz --exclude=build -C /tmp d105
