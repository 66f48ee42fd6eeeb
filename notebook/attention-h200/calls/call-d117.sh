#!/usr/bin/env bash
# Device call D117 (session 13): the whole campaign recorded again under `socratic hook stop` in a
# fresh workspace, with v42 as stop 13 (v1, v2, v3, v4, v8, v15, v19, v24, v25, v26, v31, v37, v42), as D111
# did for v37; then whether v42 gives the same bits twice on the same inputs (as D111 asked of v37)
# (13 stops take ~440 s, so the [gpu] tests run in a call of their own: call-d118.sh). Run from the
# repository root with prebuilt/ carried. One tarball in $OUT.
set -u
root=$PWD r=/tmp/d117; mkdir -p $r
export SOCRATIC_DATA_DIR=$root SOCRATIC_CACHE_DIR=/tmp/sc PYTHONUNBUFFERED=1
S=$root/prebuilt/bin/socratic C=docs/campaigns/attention-h200 H=kernels/attention/hopper.cu
V=$C/versions v8=$C/candidates/06da90d29e253f9f6cfc413e9d1b24bc849f045a4734e73478ffdd16053fad20.cu
v15=$C/candidates/bf715b7420e3a37362849af86c3bb57525e6cce24df15c530432b33246416015.cu
v19=$C/candidates/50cf9ea9d85f20813edb52caa7f6fb8d6c15112664ee763f0973ea201af130e2.cu
v24=$C/candidates/47ac2c23ba581265b3c87f29480c07306a9f00a9df31af92f7bf52a0aabd6f62.cu
v25=$C/candidates/d2a9329daf15a4bc6001ab7a0c2cde05b92dacf6a32d3dd6c9b75fd995f43661.cu
v26=$C/candidates/94c2cd627f6cb68b759942b19d3f84e8e5bac2e7a7b86a6dbc4da477de89b812.cu
v31=$C/candidates/17d2d7d44b217cba3ecb82168487cbc9ef912c9b234635bc1b6bcd3657421d14.cu
v37=$C/candidates/a83f02666c13b88c646f0c9dbf5f057c3a7f033ec034e3e43af2ae8c4b8297b7.cu
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
pack() { tar czf $OUT/d117.tgz -C /tmp d117; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >> $r/summary.txt 2>&1
timeout 580 $C/record.sh $S /tmp/acw $r/recording \
  $V/v1-hopper.cu $C/stops/01-v1.txt $V/v2-persistent-hopper.cu $C/stops/02-v2.txt \
  $V/v3-dynamic-hopper.cu $C/stops/03-v3.txt $V/v4-hopper.cu $C/stops/04-v4.txt \
  $v8 $C/stops/05-v8.txt $v15 $C/stops/06-v15.txt $v19 $C/stops/07-v19.txt $v24 $C/stops/08-v24.txt \
  $v25 $C/stops/09-v25.txt $v26 $C/stops/10-v26.txt $v31 $C/stops/11-v31.txt $v37 $C/stops/12-v37.txt $H $C/stops/13-v42.txt > $r/record.log 2>&1
say "record exit $? $(grep '^stop' $r/record.log | cut -c1-200)"; cp -r /tmp/acw $r/acw; rm -rf $r/acw/ws/.socratic/build-cache; pack

# The suspicious-gain question: the same inputs twice, bit for bit (every trial, outliers included,
# so the rare paths run too).
timeout 120 .devcarry/check_attention --impl v42=.devcarry/d116/v42.so --impl again=.devcarry/d116/v42.so --same-as v42 \
  --no-timing scenarios/attention_edge.json scenarios/attention_fa3_grid.json scenarios/attention_production.json \
  > $r/twice.txt 2>&1
say "twice exit $?: bit-identical $(grep -c " again .*bit-identical" $r/twice.txt), differing $(grep -c " again .*bits differ" $r/twice.txt)"; pack

say done; pack
