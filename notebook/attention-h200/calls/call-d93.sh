#!/usr/bin/env bash
# Device call D93 (session 11): v31 measured like for like, as D82 measured v26. sdpa_anchors.py
# times v31, v26, cuDNN and FlashAttention-2 in turns in one program (the same 4x-L2 flush, each
# launch held until enqueued), twice, on the FA3 grid and the production set; check_attention
# checks the baseline and v31 on all three sets against the fp32 reference and times them (same
# hold); nvidia-smi samples every 100 ms. Libraries built here (calls/build-session8.sh and
# build-session10.sh, build-session11.sh): .devcarry/d61/baseline.so, .devcarry/d82/v26.so, .devcarry/d93/v31.so, .devcarry/blocking_hold.so,
# .devcarry/check_attention. One tarball in $OUT, packed after every step.
set -u
r=/tmp/d93; mkdir -p $r
d=.devcarry
pack() { tar czf $OUT/d93.tgz -C /tmp d93; }
q=timestamp,power.draw,clocks.sm,temperature.gpu,clocks_throttle_reasons.active
nvidia-smi --query-gpu=uuid,serial,power.limit --format=csv > $r/gpu.csv 2>&1
nvidia-smi --query-gpu=$q --format=csv -lms 100 > $r/smi.csv 2>&1 &
smi=$!
sets=(scenarios/attention_fa3_grid.json scenarios/attention_production.json)
phase() { date -u +"%F %T.%N $1 $2" >> $r/phases.txt; }
an() {  # name
  phase $1 start
  timeout 200 python3 scripts/bench/sdpa_anchors.py --hold-flag $d/blocking_hold.so \
    --impl v31=$d/d93/v31.so --impl v26=$d/d82/v26.so "${sets[@]}" > $r/$1.json 2> $r/$1.log
  echo "$1 exit $?" >> $r/summary.txt; phase $1 end; pack
}
an turns_flag_a
phase check start
timeout 150 $d/check_attention --hold-flag --impl baseline=$d/d61/baseline.so --impl v31=$d/d93/v31.so \
  --jsonl $r/check.jsonl "${sets[@]}" scenarios/attention_edge.json > $r/check.txt 2>&1
echo "check exit $?" >> $r/summary.txt; phase check end; pack
if [ $SECONDS -lt 330 ]; then an turns_flag_b; else echo "turns_flag_b skipped at ${SECONDS}s" >> $r/summary.txt; fi
kill $smi
pack
