#!/usr/bin/env bash
# Device call D54 (session 8): is it power? In D52 every extra FP32-pipe instruction cost speed
# even at d256 (p2: -7..-11%), where a warpgroup's softmax, extra instructions included, is far
# shorter than the other warpgroup's GEMMs it hides under; D53's row sums by an n8 wgmma lost
# 2-6% at d128/d256. Here each variant runs alone, back to back, long enough for nvidia-smi
# (every 20 ms) to see the SM clock and the power it settles at: check_attention --reps 300 on one
# scenario per head dim (s16384, non-causal), v24, p2 (every 2nd exponential by polynomial),
# r (row sums by wgmma), v24 again. Phase marks in phases.txt; one tarball in $OUT.
set -u
r=/tmp/d54; mkdir -p $r
d=.devcarry/d54
q=timestamp,power.draw,clocks.sm,temperature.gpu,clocks_throttle_reasons.active
nvidia-smi --query-gpu=uuid,serial,power.limit --format=csv > $r/gpu.csv 2>&1
nvidia-smi --query-gpu=$q --format=csv -lms 20 > $r/smi.csv 2>&1 &
smi=$!
phase() { date -u +"%Y/%m/%d %T.%N $1" >> $r/phases.txt; }
for s in s16384_d256_b1_h8 s16384_d128_b1_h16 s16384_d64_b1_h32; do
  for v in v24:.devcarry/v24.so p2:$d/p2.so r:$d/r.so v24b:.devcarry/v24.so; do
    name=${v%%:*} so=${v#*:}
    phase "start $s $name"
    timeout 60 .devcarry/check_attention --impl $name=$so --only $s --trial-list 0 --reps 300 --hold-flag \
      --jsonl $r/$s.$name.jsonl scenarios/attention_fa3_grid.json > $r/$s.$name.txt 2>&1
    phase "end $s $name"
    sleep 1
  done
done
kill $smi
tar czf $OUT/d54.tgz -C /tmp d54
