#!/usr/bin/env bash
# Device call D12 (2026-11-29, session 3): v9 = v8 + two Q buffers in the persistent kernel (the next
# tile's Q loads while this tile runs; v8 reloads Q only after a tile's last S GEMM, about one key
# tile before the next tile needs it). v9 checked on the three sets, then timed against v8 (the
# trace's copy) on the grid; if it is correct and faster on the geomean, the D10 measurements for
# the shipped kernel follow in the same session: v9 and the baseline through `socratic eval`, the
# scan, the SDPA anchors. One tarball in $OUT.
set -u
root=$PWD r=/tmp/d12; mkdir -p $r
export SOCRATIC_DATA_DIR=$root SOCRATIC_CACHE_DIR=/tmp/sc PYTHONUNBUFFERED=1
S=$root/prebuilt/bin/socratic H=kernels/attention/hopper.cu
v8=docs/campaigns/attention-h200/candidates/06da90d29e253f9f6cfc413e9d1b24bc849f045a4734e73478ffdd16053fad20.cu
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
pack() { tar czf $OUT/d12.tgz --exclude=build -C /tmp d12; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >> $r/summary.txt 2>&1
CHECK="v9" timeout 200 kernels/attention/tools/ab_variants.sh $r v8=$v8 v9=$H >> $r/summary.txt 2>&1
say "A/B done: $(tail -1 $r/grid_tflops.txt)"; pack
ratio=$(tail -1 $r/grid_tflops.txt | awk '{print $NF}')
if ! grep -q "failures: 0" $r/check_v9.txt || ! awk -v x="$ratio" 'BEGIN { exit !(x > 1.003) }'; then
  say "v9 not shipped (ratio $ratio)"; pack; exit 0
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
