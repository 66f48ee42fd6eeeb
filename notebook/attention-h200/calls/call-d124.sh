#!/usr/bin/env bash
# Device call D124 (session 13): v45 as stop 14 of the recorded campaign, continuing D117's
# workspace (record.sh's WORKDIR holds the campaign between calls; D117's copy, its build cache
# left out, is carried as .devcarry/d124/acw) under `socratic hook stop` with the real evaluator;
# then v45 twice on the same inputs, bit for bit. The working tree's kernels/attention/hopper.cu
# is v42 during this call, as the workspace's integrity record has it; v45 is carried as
# .devcarry/d124/v45.cu. Run from the repository root with prebuilt/ carried. One tarball in $OUT.
set -u
root=$PWD r=/tmp/d124; mkdir -p $r
export SOCRATIC_DATA_DIR=$root SOCRATIC_CACHE_DIR=/tmp/sc PYTHONUNBUFFERED=1
C=docs/campaigns/attention-h200
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
pack() { tar czf $OUT/d124.tgz -C /tmp d124; }
rm -rf /tmp/acw && cp -r .devcarry/d124/acw /tmp/acw
timeout 300 $C/record.sh $root/prebuilt/bin/socratic /tmp/acw $r/recording .devcarry/d124/v45.cu $C/stops/14-v45.txt \
  > $r/record.log 2>&1
say "record exit $? $(grep '^stop' $r/record.log | cut -c1-200)"; pack
timeout 120 .devcarry/check_attention --impl v45=.devcarry/d123/v45.so --impl again=.devcarry/d123/v45.so --same-as v45 \
  --no-timing scenarios/attention_edge.json scenarios/attention_fa3_grid.json scenarios/attention_production.json \
  > $r/twice.txt 2>&1
say "twice exit $?: bit-identical $(grep -c " again .*bit-identical" $r/twice.txt), differing $(grep -c " again .*bits differ" $r/twice.txt)"
say done; pack
