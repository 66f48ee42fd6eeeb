#!/usr/bin/env bash
# Device call D57 (session 8): a third more query rows per K/V load at d128. D56: with no K/V
# traffic from L2 (timing-only kvonce) d128 ran 19% faster alone (1610 -> 1890 MHz under the
# 700 W cap) and 1.5-7% faster in turns. Variants (built here, .devcarry/d57; -DHOPPER_D128_WGS=3):
# d128's persistent launches on 192-row tiles, three consumer warpgroups at 160 registers, with
# 64- or 80-key tiles (96 spills) and 2 or 3 stages: n64s2, n80s2, n64s3, n80s3. Each checked on
# the three sets; timed against v24 on the grid's 12 d128 shapes in turns (two passes, held until
# enqueued), then v24 and n80s3 alone on s16384 d128 with nvidia-smi every 20 ms. One tarball in $OUT.
set -u
r=/tmp/d57; mkdir -p $r
d=.devcarry/d57 ca=.devcarry/check_attention
ONLY=s512_d128_b32_h16,s1024_d128_b16_h16,s2048_d128_b8_h16,s4096_d128_b4_h16,s8192_d128_b2_h16,s16384_d128_b1_h16,s512_d128_b32_h16_causal,s1024_d128_b16_h16_causal,s2048_d128_b8_h16_causal,s4096_d128_b4_h16_causal,s8192_d128_b2_h16_causal,s16384_d128_b1_h16_causal \
CHECK_ATTENTION=$ca TIMING=--hold-flag timeout 420 kernels/attention/tools/ab_variants.sh $r v24=.devcarry/v24.so \
  n64s2=$d/n64s2.so n80s2=$d/n80s2.so n64s3=$d/n64s3.so n80s3=$d/n80s3.so > $r/summary.txt 2>&1
echo "ab_variants exit $?" >> $r/summary.txt
q=timestamp,power.draw,clocks.sm,temperature.gpu,clocks_throttle_reasons.active
nvidia-smi --query-gpu=$q --format=csv -lms 20 > $r/smi.csv 2>&1 &
smi=$!
phase() { date -u +"%Y/%m/%d %T.%N $1" >> $r/phases.txt; }
for v in v24:.devcarry/v24.so n80s3:$d/n80s3.so v24b:.devcarry/v24.so; do
  name=${v%%:*} so=${v#*:}
  phase "start s16384_d128_b1_h16 $name"
  timeout 60 $ca --impl $name=$so --only s16384_d128_b1_h16 --trial-list 0 --reps 300 --hold-flag \
    scenarios/attention_fa3_grid.json > $r/alone.$name.txt 2>&1
  phase "end s16384_d128_b1_h16 $name"
  sleep 1
done
kill $smi
tar czf $OUT/d57.tgz --exclude=build -C /tmp d57
