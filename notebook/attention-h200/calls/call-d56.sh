#!/usr/bin/env bash
# Device call D56 (session 8): what the K/V traffic from L2 costs. D54: under sustained load v24
# runs power-capped at 1582-1611 MHz at d256/d128 (88% and 75% of the tensor cores' rate at that
# clock) and 1797 MHz at d64. Timing-only diagnostic kvonce (-DHOPPER_DIAG_KV_ONCE=1, built here:
# .devcarry/d56/kvonce.so; wrong results on purpose): every K/V stage is loaded once per CTA and
# then reused, so no K/V bytes cross from L2 after a CTA's first key tiles. Its gain over v24 bounds
# what sharing K/V loads between CTAs (TMA multicast in a cluster: half the L2 reads) could buy.
# In turns on six long shapes (--time-failing), then each alone with nvidia-smi every 20 ms on
# s16384 d128 and d256 (clock and power). One tarball in $OUT.
set -u
r=/tmp/d56; mkdir -p $r
ca=.devcarry/check_attention
q=timestamp,power.draw,clocks.sm,temperature.gpu,clocks_throttle_reasons.active
ONLY=s4096_d64_b4_h32,s16384_d64_b1_h32,s4096_d128_b4_h16,s16384_d128_b1_h16,s4096_d256_b4_h8,s16384_d256_b1_h8
timeout 200 $ca --impl v24=.devcarry/v24.so --impl kvonce=.devcarry/d56/kvonce.so --time-failing kvonce \
  --only $ONLY --trial-list 0 --hold-flag --jsonl $r/turns.jsonl scenarios/attention_fa3_grid.json > $r/turns.txt 2>&1
echo "turns exit $?" >> $r/summary.txt
nvidia-smi --query-gpu=$q --format=csv -lms 20 > $r/smi.csv 2>&1 &
smi=$!
phase() { date -u +"%Y/%m/%d %T.%N $1" >> $r/phases.txt; }
for s in s16384_d256_b1_h8 s16384_d128_b1_h16; do
  for v in v24:.devcarry/v24.so kvonce:.devcarry/d56/kvonce.so v24b:.devcarry/v24.so; do
    name=${v%%:*} so=${v#*:}
    phase "start $s $name"
    timeout 60 $ca --impl $name=$so --time-failing $name --only $s --trial-list 0 --reps 300 --hold-flag \
      --jsonl $r/$s.$name.jsonl scenarios/attention_fa3_grid.json > $r/$s.$name.txt 2>&1
    phase "end $s $name"
    sleep 1
  done
done
kill $smi
tar czf $OUT/d56.tgz -C /tmp d56
