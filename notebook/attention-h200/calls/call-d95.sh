#!/usr/bin/env bash
# Device call D95 (session 11): v31 against v26 on the grid's non-causal d64 shapes, timed on the two
# input regimes D92 did not time: peaked_large (trial 1, score std ~6: rows grow more often) and
# flat_small (trial 2). In turns, two passes, each launch held until enqueued.
set -u
r=/tmp/d95; mkdir -p $r
ca=.devcarry/check_attention
only=$(python3 -c "import json; print(','.join(s['id'] for s in json.load(open('scenarios/attention_fa3_grid.json'))['scenarios'] if '_d64_' in s['id'] and 'causal' not in s['id']))")
for trial in 1 2; do
  mkdir -p $r/trial$trial
  ONLY=$only CHECK=" " CHECK_ATTENTION=$ca TIMING="--hold-flag --timing-trial $trial" timeout 200 kernels/attention/tools/ab_variants.sh \
    $r/trial$trial v26=.devcarry/d82/v26.so v31=.devcarry/d93/v31.so >> $r/summary.txt 2>&1
  echo "ab_variants trial $trial exit $?" >> $r/summary.txt
done
tar czf $OUT/d95.tgz --exclude=build -C /tmp d95
