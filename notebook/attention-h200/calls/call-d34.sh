#!/usr/bin/env bash
# Device call D34 (2026-11-29, session 5): v20 = v19 with each GEMM's shared-memory descriptors
# built once per tile and advanced by one add per wgmma (D33: 4-5 dependent uniform instructions
# ahead of every HGMMA). A/B first (ab_variants.sh: v19 = the trace's candidates/50cf9ea9...cu,
# v20 = this tree's kernels/attention/hopper.cu; v20 checked on the three sets, both timed on the
# grid in two passes). Rule fixed before the run: only if v20 is correct everywhere and its geomean
# over v19 is at least 1.003, the same measurement as D30 follows for v20 (socratic eval of v20 and
# of the baseline, scan, SDPA anchors in the same run, v20 against v19 in one runner); otherwise
# the call ends after the A/B. Run from the repository root with prebuilt/ and .devcarry/ carried.
set -u
root=$PWD r=/tmp/d34; mkdir -p $r
export SOCRATIC_DATA_DIR=$root SOCRATIC_CACHE_DIR=/tmp/sc PYTHONUNBUFFERED=1
S=$root/prebuilt/bin/socratic H=kernels/attention/hopper.cu
v19=docs/campaigns/attention-h200/candidates/50cf9ea9d85f20813edb52caa7f6fb8d6c15112664ee763f0973ea201af130e2.cu
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
pack() { tar czf $OUT/d34.tgz --exclude=build -C /tmp d34; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >> $r/summary.txt 2>&1
CHECK="v20" timeout 200 kernels/attention/tools/ab_variants.sh $r/ab v19=$v19 v20=$H >> $r/summary.txt 2>&1
say "A/B done"; pack
ratio=$(awk '/^ratio to v19/ {print $NF}' $r/ab/grid_tflops.txt)
correct=$(grep -c "failures: 0" $r/ab/check_v20.txt)
if [[ -z $ratio || $correct -lt 1 ]] || ! python3 -c "import sys; sys.exit(0 if float('$ratio') >= 1.003 else 1)"; then
  say "rule: v20/v19 = ${ratio:-?}, v20 correct: $correct -> not shipped, no measurement"; pack; exit 0
fi
say "rule: v20/v19 = $ratio, v20 correct on the three sets -> measured"
ev() { local n=$1 c=$2 s=$3; shift 3; local st=$(date +%s); timeout 200 $S eval $c --problem attention --scenarios $s --quiet --json $r/$n.json "$@" > $r/$n.txt 2> $r/$n.err; say "eval $n exit $? $(( $(date +%s) - st )) s: $(tail -2 $r/$n.txt | head -1)"; }
ev hopper_grid $H attention_fa3_grid
ev hopper_production $H attention_production
ev hopper_edge $H attention_edge
ev baseline_grid kernels/attention/baseline.cu attention_fa3_grid
ev baseline_production kernels/attention/baseline.cu attention_production
$S scan --json $(find /tmp/sc -name "*.so") > $r/scan.json 2>&1; say "scan of every built .so exit $?"; pack
timeout 150 python3 scripts/bench/sdpa_anchors.py scenarios/attention_fa3_grid.json \
  scenarios/attention_production.json > $r/anchors.json 2> $r/anchors.log; say "anchors exit $?"; pack
ev v20_vs_v19_grid $H attention_fa3_grid --baseline $v19
say done; pack
