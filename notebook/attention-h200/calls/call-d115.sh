#!/usr/bin/env bash
# Device call D115 (session 13): the dispatch's choices asked again of v37. Most thresholds date from
# sessions 3-5 (v8-v19); the kernels have changed since (the causal skip, the live half, the token,
# the stale max at d64, v37's conversion). v37 against seven builds that each move one choice
# (calls/build-session13.sh), in turns on the 36 grid shapes, unit normals, each launch held until
# enqueued. Prediction: most shapes level; a dispatch change is worth making where a build gains
# more than 1% in both passes.
set -u
r=/tmp/d115; mkdir -p $r
ca=.devcarry/check_attention d=.devcarry/d115
CHECK=" " CHECK_ATTENTION=$ca TIMING="--hold-flag --timing-trial 0" timeout 400 kernels/attention/tools/ab_variants.sh \
  $r/trial0 v37=.devcarry/d110/v37.so s1=$d/s1.so s2=$d/s2.so w2=$d/w2.so cw2=$d/cw2.so st2=$d/st2.so st4=$d/st4.so \
  cw2048=$d/cw2048.so >> $r/summary.txt 2>&1
echo "ab_variants exit $?" >> $r/summary.txt
tar czf $OUT/d115.tgz --exclude=build -C /tmp d115
