#!/usr/bin/env bash
# Device call: (1) the split Hopper kernel (kernels/hopper/) against v45, bit for bit and in speed
# (the device side of tools/research/attention/compare_kernels.sh, as confirm_same_kernel.sh does
# it, with the builds made beforehand); (2) repeatability of the baseline against itself through
# the runner before and after the worker boundary, five runs each, interleaved.
set -u
cd "$(dirname "$0")/../.."
D=.devcarry/d135
S=$OUT/summary.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; } > $S
ca=$D/check_attention
sets="scenarios/attention_fa3_grid.json scenarios/attention_production.json scenarios/attention_edge.json"
timeout 200 $ca --hold-flag --no-timing --impl old=$D/old.so --impl new=$D/new.so --same-as old \
  --jsonl $OUT/check.jsonl $sets > $OUT/check.txt 2>&1
echo "check: exit $?, $(tail -1 $OUT/check.txt)" >> $S
echo "new against old: bit-identical on $(grep -c 'bit-identical to old' $OUT/check.txt) scenario lines, bits differ on $(grep -c 'bits differ from old' $OUT/check.txt)" >> $S
grid=scenarios/attention_fa3_grid.json
timeout 200 $ca --hold-flag --impl old=$D/old.so --impl new=$D/new.so --jsonl $OUT/grid_a.jsonl $grid > $OUT/grid_a.txt 2>&1
echo "timing pass a: exit $?" >> $S
timeout 200 $ca --hold-flag --impl new=$D/new.so --impl old=$D/old.so --jsonl $OUT/grid_b.jsonl $grid > $OUT/grid_b.txt 2>&1
echo "timing pass b: exit $?" >> $S
python3 tools/research/bench/ab_tflops.py $OUT/grid_a.jsonl $OUT/grid_b.jsonl > $OUT/grid_tflops.txt 2>&1
tail -4 $OUT/grid_tflops.txt >> $S
mkdir -p $OUT/rep
for i in 1 2 3 4 5; do
  for r in old new; do
    R=$D/old-runner-attention; [ $r = new ] && R=$D/socratic-runner-attention
    s1=$(date +%s.%N)
    timeout 100 $R --baseline $D/attention_baseline.so --candidate $D/attention_baseline.so --scenarios $grid > $OUT/rep/${r}_$i.jsonl 2>/dev/null
    echo "rep $r $i: exit $?, $(python3 -c "import time; print(f'{time.time()-$s1:.2f}')") s" >> $S
  done
done
python3 $D/summarize.py $OUT/rep/*.jsonl > $OUT/rep_summary.txt 2>&1
python3 tools/research/bench/repeatability.py $OUT/rep/old_*.jsonl > $OUT/rep_old.txt 2>&1
python3 tools/research/bench/repeatability.py $OUT/rep/new_*.jsonl > $OUT/rep_new.txt 2>&1
python3 - $OUT/rep >> $S <<'PY'
import json, math, sys, glob, statistics
for side in ("old", "new"):
    geos = []
    per = {}
    for p in sorted(glob.glob(f"{sys.argv[1]}/{side}_*.jsonl")):
        sp = []
        for line in open(p):
            try: e = json.loads(line)
            except Exception: continue
            if e.get("event") == "scenario_end" and e["result"].get("speedup"):
                sp.append(e["result"]["speedup"]); per.setdefault(e["result"]["id"], []).append(e["result"]["speedup"])
        geos.append(math.exp(sum(map(math.log, sp)) / len(sp)))
    rng = [max(v) - min(v) for v in per.values()]
    print(f"{side}: baseline vs itself geomean over 5 runs {min(geos):.4f}-{max(geos):.4f} (spread {100*(max(geos)-min(geos)):.2f}%), per-scenario speedup range median {100*statistics.median(rng):.2f}% max {100*max(rng):.2f}%")
PY
cat $OUT/rep_old.txt $OUT/rep_new.txt >> $S
cd $OUT && tar -czf logs.tar.gz check.jsonl check.txt grid_a.jsonl grid_b.jsonl grid_a.txt grid_b.txt grid_tflops.txt rep rep_summary.txt 2>/dev/null
rm -rf rep check.jsonl grid_a.jsonl grid_b.jsonl
cat $S
