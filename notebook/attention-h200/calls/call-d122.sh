#!/usr/bin/env bash
# Device call D122 (session 13): the causal tile order's L2 sections asked again. The persistent
# kernel hands causal tiles out longest first within sections of (batch, head) pairs whose K and V
# fit HOPPER_L2_SECTION_BYTES (16 MB since v3); v42 now runs causal d64 persistent at s16384 too.
# v42 against 8 MB, 32 MB and one section for the whole launch, in turns on the 18 causal grid
# shapes (unit normals, each launch held until enqueued). Prediction: level within 1%; the
# sections matter where K and V of the heads in flight outgrow L2 (long causal d64). Libraries:
# calls/build-session13.sh.
set -u
r=/tmp/d122; mkdir -p $r
d=.devcarry
only=$(python3 -c "import json; print(','.join(s['id'] for s in json.load(open('scenarios/attention_fa3_grid.json'))['scenarios'] if s.get('causal')))")
ONLY=$only CHECK=" " CHECK_ATTENTION=$d/check_attention TIMING="--hold-flag --timing-trial 0" timeout 300 \
  kernels/attention/tools/ab_variants.sh $r/trial0 v42=$d/d116/v42.so l2s8=$d/d122/l2s8.so l2s32=$d/d122/l2s32.so \
  l2s0=$d/d122/l2s0.so > $r/summary.txt 2>&1
echo "ab_variants exit $?" >> $r/summary.txt
tar czf $OUT/d122.tgz --exclude=build -C /tmp d122
