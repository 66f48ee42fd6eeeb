#!/usr/bin/env bash
# Device call D71 (session 9): P's row sums off the critical path. D70 (softmax_bench): a d128
# softmax_step takes 1244 cycles alone and ~1710 beside a warpgroup's GEMMs, and D68 puts it on
# the warpgroup's critical path (S ready -> next issue) while the warpgroup idles ~1000 cycles
# waiting for its next S. ds (versions/v26-session9-variants.patch, HOPPER_DEFER_SUMS=1, d128 and
# d256): the softmax leaves out the 96 (d256: 40) additions; the row sums are taken from P's 16-bit
# pairs after the next GEMMs are issued. Step marks, then checks on the three sets and the 24
# d128/d256 shapes timed in turns against v25.
set -u
r=/tmp/d71; mkdir -p $r
ca=.devcarry/check_attention
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
for v in d69/steps_f0 d71/steps_ds; do
  timeout 60 .devcarry/$v 1,16384,16384,16,128,0 4,4096,4096,16,128,0 1,16384,16384,8,256,0 > $r/$(basename $v).txt 2>&1
  say "$v exit $?"; cat $r/$(basename $v).txt >> $r/summary.txt
done
timeout 20 $ca --impl ds=.devcarry/d71/ds.so --no-timing \
  --only s512_d128_b32_h16,s4096_d128_b4_h16_causal,s1024_d256_b16_h8_causal,s16384_d256_b1_h8 \
  scenarios/attention_fa3_grid.json > $r/smoke.txt 2>&1
rc=$?; say "smoke exit $rc: $(tail -1 $r/smoke.txt)"
if ((rc == 0)); then
  only=$(python3 -c "import json; print(','.join(s['id'] for s in json.load(open('scenarios/attention_fa3_grid.json'))['scenarios'] if '_d64_' not in s['id']))")
  ONLY=$only CHECK="ds" CHECK_ATTENTION=$ca TIMING=--hold-flag timeout 420 kernels/attention/tools/ab_variants.sh $r \
    v25=.devcarry/d61/v25.so ds=.devcarry/d71/ds.so >> $r/summary.txt 2>&1
  say "ab_variants exit $?"
fi
tar czf $OUT/d71.tgz --exclude=build -C /tmp d71
