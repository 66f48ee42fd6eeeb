#!/usr/bin/env bash
# Device call D69 (session 9): the softmax's form at d128 and d256. D68 (step marks): a d128
# warpgroup's softmax takes ~2000 cycles of its ~3980-cycle key-tile period and is its critical
# path; the SASS shows row 0's max as one 24-deep chain, then row 0's exponentials one FADD chain
# beside them, then row 1's. Forms 1-3 (versions/v26-session9-variants.patch, HOPPER_SOFTMAX_FORM):
# both rows at once (max chains interleaved, one shuffle round, the two rows' exponentials
# alternating), sums in 1, 2 or 4 chains a row (form 3: added after the exponentials). Step marks
# of each, then checks on the three sets and the 24 d128/d256 shapes timed in turns against v25.
set -u
r=/tmp/d69; mkdir -p $r
ca=.devcarry/check_attention
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
for f in 0 1 2 3; do
  timeout 60 .devcarry/d69/steps_f$f 1,16384,16384,16,128,0 4,4096,4096,16,128,0 1,16384,16384,8,256,0 > $r/steps_f$f.txt 2>&1
  say "steps form $f exit $?"; cat $r/steps_f$f.txt >> $r/summary.txt
done
timeout 20 $ca --impl f1=.devcarry/d69/f1.so --no-timing \
  --only s512_d128_b32_h16,s4096_d128_b4_h16_causal,s1024_d256_b16_h8_causal,s16384_d256_b1_h8 \
  scenarios/attention_fa3_grid.json > $r/smoke.txt 2>&1
rc=$?; say "smoke exit $rc: $(tail -1 $r/smoke.txt)"
if ((rc == 0)); then
  only=$(python3 -c "import json; print(','.join(s['id'] for s in json.load(open('scenarios/attention_fa3_grid.json'))['scenarios'] if '_d64_' not in s['id']))")
  ONLY=$only CHECK="f1 f2 f3" CHECK_ATTENTION=$ca TIMING=--hold-flag timeout 420 kernels/attention/tools/ab_variants.sh $r \
    v25=.devcarry/d61/v25.so f1=.devcarry/d69/f1.so f2=.devcarry/d69/f2.so f3=.devcarry/d69/f3.so >> $r/summary.txt 2>&1
  say "ab_variants exit $?"
fi
tar czf $OUT/d69.tgz --exclude=build -C /tmp d69
