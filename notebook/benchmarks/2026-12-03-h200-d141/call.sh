#!/usr/bin/env bash
# D141 (2026-12-03, one H200): the judge at suite scale (issue 36), before (a0713d4) and after in
# one call. Carried: .devcarry/d141/{new,old}/ (runners, baselines, corpus .so, built here with
# nvcc for sm_90a) and new/bin/gpu_runner_tests.
#   device: bash notebook/benchmarks/2026-12-03-h200-d141/call.sh PHASE
# PHASE corpus: the adversarial corpus (gpu_runner_tests), and the old judge on the new attacks.
# PHASE self: the baseline against itself, five runs each, old / new held / new unheld, on
#   RMSNorm and on the FA3 grid, interleaved; the judge's time per run.
set -uo pipefail
phase=${1:?corpus or self}
cd "$(dirname "$0")/../../.."
D=.devcarry/d141
out=${OUT:?}
logs=$out/d141-$phase
mkdir -p "$logs"
t0=$(date +%s)
stamp() { echo "[$(($(date +%s) - t0)) s] $*"; }
# The runner with the options on its standard input (new) or its command line (old).
run_new() { local R=$1; shift; printf '%s\n' "$@" | timeout 300 "$R" --options-stdin; }
run_old() { local R=$1; shift; timeout 300 "$R" "$@"; }
{
  stamp "start $(date -u +%FT%TZ) phase $phase"
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader
  if [[ $phase == corpus ]]; then
    SOCRATIC_SOURCE_DIR=$PWD SOCRATIC_CUDA_BUILD_DIR=$PWD/$D/new SOCRATIC_GPU_LOG_DIR=$logs/gpu timeout 400 $D/new/bin/gpu_runner_tests --durations yes >"$logs/gpu_runner.txt" 2>&1
    stamp "gpu_runner_tests (new judge, corpus of $(ls tests/adversarial/*.cu | wc -l)) exit $?"
    grep -E "^(test cases|assertions)|FAILED|passed|failed" "$logs/gpu_runner.txt" | tail -8
    for a in skips_unchecked_calls predicts_inputs reads_judge_options honest_control; do
      run_old $D/old/socratic-runner-rmsnorm --baseline $D/old/rmsnorm_baseline.so \
        --candidate $D/new/adversarial/$a.so --scenarios scenarios/rmsnorm.json \
        --max-ms-per-scenario 400 --max-samples 40 --min-samples 10 >"$logs/old_$a.jsonl" 2>"$logs/old_$a.err"
      stamp "old judge, $a: exit $?"
      python3 $D/summarize.py "$logs/old_$a.jsonl"
      run_new $D/new/socratic-runner-rmsnorm --baseline $D/new/rmsnorm_baseline.so \
        --candidate $D/new/adversarial/$a.so --scenarios scenarios/rmsnorm.json \
        --max-ms-per-scenario 400 --max-samples 40 --min-samples 10 >"$logs/new_$a.jsonl" 2>"$logs/new_$a.err"
      stamp "new judge, $a: exit $?"
      python3 $D/summarize.py "$logs/new_$a.jsonl"
    done
    grep -h "reads_judge_options" "$logs"/*_reads_judge_options.err | sort | uniq -c | head
  else
    for set in rmsnorm attention; do
      if [[ $set == rmsnorm ]]; then sc=scenarios/rmsnorm.json; else sc=scenarios/attention_fa3_grid.json; fi
      for i in 1 2 3 4 5; do
        for v in old held unheld; do
          s1=$(date +%s.%N)
          case $v in
            old) run_old $D/old/socratic-runner-$set --baseline $D/old/${set}_baseline.so \
                   --candidate $D/old/${set}_baseline.so --scenarios $sc >"$logs/${set}_${v}_$i.jsonl" 2>/dev/null ;;
            held) run_new $D/new/socratic-runner-$set --baseline $D/new/${set}_baseline.so \
                   --candidate $D/new/${set}_baseline.so --scenarios $sc >"$logs/${set}_${v}_$i.jsonl" 2>/dev/null ;;
            unheld) run_new $D/new/socratic-runner-$set --baseline $D/new/${set}_baseline.so \
                   --candidate $D/new/${set}_baseline.so --scenarios $sc --no-launch-hold >"$logs/${set}_${v}_$i.jsonl" 2>/dev/null ;;
          esac
          stamp "$set $v run $i: exit $?, $(python3 -c "import time; print(f'{time.time()-$s1:.2f}')") s"
        done
      done
      python3 $D/selfstats.py "$logs" "$set"
    done
  fi
  stamp "end"
} 2>&1 | tee "$logs/summary.txt"
tar cJf "$out/d141-$phase.tar.xz" -C "$out" "d141-$phase" && rm -rf "$logs"
