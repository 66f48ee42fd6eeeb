#!/usr/bin/env bash
# Device call D103 (session 12): v35, non-causal d128 on three consumer warpgroups (a 192-row
# query tile, as d64's) with narrower key tiles: 80 or 64 keys (the registers of 160 a consumer
# thread hold O, S and P there; 96 keys spill and serialise the wgmma), two or three K/V stages.
# Each checked against the fp32 reference on the three sets (with v31), then against v31 on the 6
# non-causal d128 grid shapes, in turns, on unit normals. Libraries: calls/build-session12.sh.
set -u
r=/tmp/d103; mkdir -p $r
ca=.devcarry/check_attention
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
v=(w3n80 w3n64 w3n80s3 w3n64s3)
impls=(); for n in "${v[@]}"; do impls+=(--impl $n=.devcarry/d103/$n.so); done
timeout 200 $ca --impl v31=.devcarry/d93/v31.so "${impls[@]}" --no-timing \
  scenarios/attention_edge.json scenarios/attention_fa3_grid.json scenarios/attention_production.json > $r/check.txt 2>&1
say "check exit $?: $(tail -1 $r/check.txt); FAIL lines $(grep -c FAIL $r/check.txt)"
only=$(python3 -c "import json; print(','.join(s['id'] for s in json.load(open('scenarios/attention_fa3_grid.json'))['scenarios'] if '_d128_' in s['id'] and 'causal' not in s['id']))")
ab=(); for n in "${v[@]}"; do ab+=($n=.devcarry/d103/$n.so); done
mkdir -p $r/trial0
ONLY=$only CHECK=" " CHECK_ATTENTION=$ca TIMING="--hold-flag --timing-trial 0" timeout 200 kernels/attention/tools/ab_variants.sh \
  $r/trial0 v31=.devcarry/d93/v31.so "${ab[@]}" >> $r/summary.txt 2>&1
say "ab_variants trial 0 exit $?"
tar czf $OUT/d103.tgz --exclude=build -C /tmp d103
