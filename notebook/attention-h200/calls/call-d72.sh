#!/usr/bin/env bash
# Device call D72 (session 9): the next turn's waits moved up. D68's step marks: 230-300 cycles
# (d256: 340-420) pass between a warpgroup's P being converted and its next turn starting, most of
# them the two mbarrier waits for the next K and V tiles, whose data has long landed. ew
# (versions/v26-session9-variants.patch, HOPPER_EARLY_WAITS=1, every head dim): those waits right
# after the softmax, before P's conversion. Step marks, checks on the three sets, the whole grid in
# turns against v25.
set -u
r=/tmp/d72; mkdir -p $r
ca=.devcarry/check_attention
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
for v in d69/steps_f0 d72/steps_ew; do
  timeout 60 .devcarry/$v 1,16384,16384,16,128,0 4,4096,4096,16,128,0 1,16384,16384,8,256,0 > $r/$(basename $v).txt 2>&1
  say "$v exit $?"; cat $r/$(basename $v).txt >> $r/summary.txt
done
timeout 20 $ca --impl ew=.devcarry/d72/ew.so --no-timing \
  --only s512_d64_b32_h32_causal,s512_d128_b32_h16,s4096_d128_b4_h16_causal,s1024_d256_b16_h8_causal,s16384_d256_b1_h8 \
  scenarios/attention_fa3_grid.json > $r/smoke.txt 2>&1
rc=$?; say "smoke exit $rc: $(tail -1 $r/smoke.txt)"
if ((rc == 0)); then
  CHECK="ew" CHECK_ATTENTION=$ca TIMING=--hold-flag timeout 480 kernels/attention/tools/ab_variants.sh $r \
    v25=.devcarry/d61/v25.so ew=.devcarry/d72/ew.so >> $r/summary.txt 2>&1
  say "ab_variants exit $?"
fi
tar czf $OUT/d72.tgz --exclude=build -C /tmp d72
