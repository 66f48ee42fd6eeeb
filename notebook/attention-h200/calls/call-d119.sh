#!/usr/bin/env bash
# Device call D119 (session 13): v43, warpgroup 0 one GEMM turn ahead of warpgroup 1 in the 128-key
# d128 persistent kernel (three K/V stages, Q in per-warpgroup halves, O from registers), against
# v42 and s3 (three stages and O from registers, the warpgroups in step: what the lag costs or
# gains apart from its ring). A smoke test first (a turn-barrier mistake hangs: 30 s), then the
# three sets against the fp32 reference with v43 and s3 compared bit for bit with v42, then the 12
# d128 grid shapes in turns (unit normals, each launch held until enqueued). Prediction: s512/s1024
# d128 and causal d128 s512-s2048 +3-8% (D114: the tensor pipe idles 29-38% there, both
# warpgroups at a tile boundary at once), s3 level or below (O from registers), the 192-key shapes
# level. Libraries: calls/build-session13.sh.
set -u
r=/tmp/d119; mkdir -p $r
ca=.devcarry/check_attention d=.devcarry
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
pack() { tar czf $OUT/d119.tgz --exclude=build -C /tmp d119; }
timeout 30 $ca --impl v43=$d/d119/v43.so --no-timing --trial-list 0 \
  --only s512_d128_b32_h16,s1024_d128_b16_h16_causal scenarios/attention_fa3_grid.json > $r/smoke.txt 2>&1
rc=$?; say "smoke exit $rc: $(tail -1 $r/smoke.txt)"
if [ $rc -ne 0 ]; then pack; exit 0; fi
timeout 150 $ca --impl v42=$d/d116/v42.so --impl v43=$d/d119/v43.so --impl s3=$d/d119/s3.so --same-as v42 --no-timing \
  scenarios/attention_edge.json scenarios/attention_fa3_grid.json scenarios/attention_production.json > $r/check.txt 2>&1
say "check exit $?: $(tail -1 $r/check.txt); FAIL lines $(grep -c FAIL $r/check.txt); v43 not bit-identical $(grep -E ' v43 ' $r/check.txt | grep -vc bit-identical); s3 not bit-identical $(grep -E ' s3 ' $r/check.txt | grep -vc bit-identical)"
pack
only=$(python3 -c "import json; print(','.join(s['id'] for s in json.load(open('scenarios/attention_fa3_grid.json'))['scenarios'] if '_d128_' in s['id']))")
ONLY=$only CHECK=" " CHECK_ATTENTION=$ca TIMING="--hold-flag --timing-trial 0" timeout 300 kernels/attention/tools/ab_variants.sh \
  $r/trial0 v42=$d/d116/v42.so v43=$d/d119/v43.so s3=$d/d119/s3.so >> $r/summary.txt 2>&1
say "ab_variants exit $?"
pack
