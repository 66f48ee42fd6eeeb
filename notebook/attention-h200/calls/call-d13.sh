#!/usr/bin/env bash
# Device call D13 (2026-11-29, session 3): v10 = v8 + the persistent kernel pipelined across tiles:
# a tile's last P V is issued in one turn with the next tile's first S GEMM (the new tile's first
# softmax overlaps it; a tile boundary no longer costs a turn of its own), with D12's two Q buffers
# (the next tile's Q must be there one key tile earlier than in v8); v10q1 = the same with one Q
# buffer. Checked on the three sets, timed against v8 on the grid; if v10 is correct and faster on
# the geomean, the measurements for the shipped kernel follow in the same session: v10 and the
# baseline through `socratic eval`, the scan, the SDPA anchors. One tarball in $OUT.
set -u
root=$PWD r=/tmp/d13; mkdir -p $r
export SOCRATIC_DATA_DIR=$root SOCRATIC_CACHE_DIR=/tmp/sc PYTHONUNBUFFERED=1
S=$root/prebuilt/bin/socratic H=kernels/attention/hopper.cu
v8=docs/campaigns/attention-h200/candidates/06da90d29e253f9f6cfc413e9d1b24bc849f045a4734e73478ffdd16053fad20.cu
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
pack() { tar czf $OUT/d13.tgz --exclude=build -C /tmp d13; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >> $r/summary.txt 2>&1
CHECK="v10q1 v10" timeout 240 kernels/attention/tools/ab_variants.sh $r v8=$v8 v10q1=$H:-DHOPPER_Q_BUFFERS=1 v10=$H >> $r/summary.txt 2>&1
say "A/B done: $(tail -1 $r/grid_tflops.txt)"; pack
ratio=$(tail -1 $r/grid_tflops.txt | awk '{print $NF}')
if ! grep -q "failures: 0" $r/check_v10.txt || ! awk -v x="$ratio" 'BEGIN { exit !(x > 1.003) }'; then
  say "v10 not shipped (ratio $ratio)"; pack; exit 0
fi
ev() { local n=$1 c=$2 s=$3; shift 3; local st=$(date +%s); timeout 150 $S eval $c --problem attention --scenarios $s --quiet --json $r/$n.json "$@" > $r/$n.txt 2> $r/$n.err; say "eval $n exit $? $(( $(date +%s) - st )) s: $(tail -2 $r/$n.txt | head -1)"; }
ev hopper_grid $H attention_fa3_grid
ev hopper_production $H attention_production
ev hopper_edge $H attention_edge
ev baseline_grid kernels/attention/baseline.cu attention_fa3_grid
ev baseline_production kernels/attention/baseline.cu attention_production
$S scan --json $(find /tmp/sc -name "*.so") > $r/scan.json 2>&1; say "scan of every built .so exit $?"; pack
timeout 150 python3 scripts/bench/sdpa_anchors.py scenarios/attention_fa3_grid.json \
  scenarios/attention_production.json > $r/anchors.json 2> $r/anchors.log; say "anchors exit $?"
say done; pack
