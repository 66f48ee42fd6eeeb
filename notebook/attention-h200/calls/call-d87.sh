#!/usr/bin/env bash
# Device call D87 (session 10): D86's A/B again with the timing on unit-normal inputs
# (check_attention --trial-list 0: the timed inputs are the last trial's, which D86 left at the
# outlier regime, trial 3, where rows grow often and v27 takes S again), as the evaluator's runner
# and sdpa_anchors.py time. The 12 d128 grid shapes, v26 against v27 and v27b.
set -u
r=/tmp/d87; mkdir -p $r
ca=.devcarry/check_attention
only=$(python3 -c "import json; print(','.join(s['id'] for s in json.load(open('scenarios/attention_fa3_grid.json'))['scenarios'] if '_d128_' in s['id']))")
ONLY=$only CHECK=" " CHECK_ATTENTION=$ca TIMING="--hold-flag --trial-list 0" timeout 300 kernels/attention/tools/ab_variants.sh $r \
  v26=.devcarry/d82/v26.so v27=.devcarry/d86/v27.so v27b=.devcarry/d86/v27b.so > $r/summary.txt 2>&1
echo "ab_variants exit $?" >> $r/summary.txt
tar czf $OUT/d87.tgz --exclude=build -C /tmp d87
