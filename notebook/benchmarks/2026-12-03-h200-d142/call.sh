#!/usr/bin/env bash
# D142 (2026-12-03, one H200): the judge after D141's findings (both workers stopped through the
# timed phase, each resumed for its own call; more placements and samples for short calls),
# against the judge before this issue (a0713d4), in one call. Carried: .devcarry/d142/d142.tar.xz
# ({new,old}/: runners, baselines, corpus .so built here for sm_90a; new/bin/: gpu_runner_tests
# and the socratic tool).
#   device: bash notebook/benchmarks/2026-12-03-h200-d142/call.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
mkdir -p /work && { [[ -e /work/main ]] || ln -s "$PWD" /work/main; }
cd /work/main
tar xJf .devcarry/d142/d142.tar.xz -C .devcarry
D=.devcarry/d142
out=${OUT:?}
logs=$out/d142
mkdir -p "$logs"
t0=$(date +%s)
stamp() { echo "[$(($(date +%s) - t0)) s] $*"; }
run_new() { local R=$1; shift; printf '%s\n' "$@" | timeout 300 "$R" --options-stdin; }
run_old() { local R=$1; shift; timeout 300 "$R" "$@"; }
secs() { python3 -c "import time; print(f'{time.time()-$1:.2f}')"; }
export PATH=/usr/local/cuda/bin:$PATH
{
  stamp "start $(date -u +%FT%TZ)"
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  # 1. The corpus on the new judge; the old and the new judge on the attacks on the schedule.
  SOCRATIC_SOURCE_DIR=$PWD SOCRATIC_CUDA_BUILD_DIR=$PWD/$D/new SOCRATIC_GPU_LOG_DIR=$logs/gpu \
    timeout 400 $D/new/bin/gpu_runner_tests --durations yes >"$logs/gpu_runner.txt" 2>&1
  stamp "gpu_runner_tests (new judge, corpus of $(ls tests/adversarial/*.cu | wc -l)) exit $?"
  grep -E "^(test cases|assertions)|passed|failed" "$logs/gpu_runner.txt" | tail -4
  for a in skips_unchecked_calls reads_judge_options predicts_inputs honest_control; do
    for v in old new; do
      R=$D/$v/socratic-runner-rmsnorm
      args=(--baseline $D/$v/rmsnorm_baseline.so --candidate $D/new/adversarial/$a.so
            --scenarios scenarios/rmsnorm.json --max-ms-per-scenario 400 --max-samples 40 --min-samples 10)
      if [[ $v == old ]]; then run_old $R "${args[@]}"; else run_new $R "${args[@]}"; fi \
        >"$logs/${v}_$a.jsonl" 2>"$logs/${v}_$a.err"
      stamp "$v judge, $a: exit $?"
      python3 $D/summarize.py "$logs/${v}_$a.jsonl" | head -4
    done
  done
  grep -h "reads_judge_options:" "$logs"/*_reads_judge_options.err | sed 's/[0-9]\+\//PID\//' | sort | uniq -c
  # 2. The baseline against itself, five runs each, old and new interleaved.
  for set in rmsnorm attention; do
    sc=scenarios/rmsnorm.json; [[ $set == attention ]] && sc=scenarios/attention_fa3_grid.json
    for i in 1 2 3 4 5; do
      for v in old held; do
        s1=$(date +%s.%N)
        if [[ $v == old ]]; then
          run_old $D/old/socratic-runner-$set --baseline $D/old/${set}_baseline.so \
            --candidate $D/old/${set}_baseline.so --scenarios $sc >"$logs/${set}_${v}_$i.jsonl" 2>/dev/null
        else
          run_new $D/new/socratic-runner-$set --baseline $D/new/${set}_baseline.so \
            --candidate $D/new/${set}_baseline.so --scenarios $sc >"$logs/${set}_${v}_$i.jsonl" 2>/dev/null
        fi
        stamp "$set $v run $i: exit $?, $(secs $s1) s"
      done
    done
    python3 $D/selfstats.py "$logs" "$set"
  done
  # 3. `socratic eval` of the shipped attention kernel on the FA3 grid: cold, then three cached.
  for i in cold 1 2 3; do
    s1=$(date +%s.%N)
    timeout 400 $D/new/bin/socratic eval kernels/hopper/attention.cu --problem attention \
      --scenarios attention_fa3_grid --cache-dir /tmp/socratic-cache -q -o "$logs/eval_$i.json" \
      >"$logs/eval_$i.txt" 2>&1
    stamp "socratic eval (hopper attention, FA3 grid) $i: exit $?, $(secs $s1) s"
    python3 - "$logs/eval_$i.json" <<'PY'
import json, math, sys
try: r = json.load(open(sys.argv[1]))
except Exception as e: print("   no report:", e); sys.exit()
sc = r.get("scenarios", [])
sp = [s["speedup"] for s in sc if s.get("speedup")]
print(f"   {sum(1 for s in sc if s.get('correct'))}/{len(sc)} correct, geomean {math.exp(sum(map(math.log, sp))/len(sp)) if sp else float('nan'):.4f}; timings {r.get('timings')}")
PY
  done
  stamp "end"
} 2>&1 | tee "$logs/summary.txt"
tar cJf "$out/d142.tar.xz" -C "$out" d142 && rm -rf "$logs"
