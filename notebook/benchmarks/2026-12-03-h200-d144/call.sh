#!/usr/bin/env bash
# D144 (2026-12-03, one H200): the judge's time after the attention reference's 128-wide tiles
# and the scratch shared by a scenario's placements: the new reference against a0713d4's, bit for
# bit and in time (compare_reference, built here); the corpus; the baseline against itself on
# the FA3 grid and RMSNorm (two runs each), to set beside D142's figures.
# Carried: .devcarry/d144/ (runners, baselines, corpus .so, gpu_runner_tests, compare_reference).
#   device: bash notebook/benchmarks/2026-12-03-h200-d144/call.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
D=.devcarry/d144
out=${OUT:?}
logs=$out/d144
mkdir -p "$logs"
t0=$(date +%s)
stamp() { echo "[$(($(date +%s) - t0)) s] $*"; }
secs() { python3 -c "import time; print(f'{time.time()-$1:.2f}')"; }
{
  stamp "start $(date -u +%FT%TZ)"
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  timeout 150 $D/compare_reference >"$logs/compare_reference.txt" 2>&1
  stamp "compare_reference exit $?"
  tail -1 "$logs/compare_reference.txt"
  SOCRATIC_SOURCE_DIR=$PWD SOCRATIC_CUDA_BUILD_DIR=$PWD/$D/new SOCRATIC_GPU_LOG_DIR=$logs/gpu \
    timeout 300 $D/new/bin/gpu_runner_tests --durations yes >"$logs/gpu_runner.txt" 2>&1
  stamp "gpu_runner_tests (corpus of $(ls tests/adversarial/*.cu | wc -l)) exit $?"
  grep -E "passed|failed" "$logs/gpu_runner.txt" | tail -3
  for set in attention rmsnorm; do
    sc=scenarios/rmsnorm.json; [[ $set == attention ]] && sc=scenarios/attention_fa3_grid.json
    for i in 1 2; do
      s1=$(date +%s.%N)
      printf '%s\n' --baseline $D/new/${set}_baseline.so --candidate $D/new/${set}_baseline.so --scenarios $sc |
        timeout 120 $D/new/socratic-runner-$set --options-stdin >"$logs/${set}_held_$i.jsonl" 2>/dev/null
      stamp "$set run $i: exit $?, $(secs $s1) s"
    done
    python3 "$here/../2026-12-03-h200-d141/selfstats.py" "$logs" "$set" | grep -v "^   s[0-9]"
  done
  stamp "end"
} 2>&1 | tee "$logs/summary.txt"
tar cJf "$out/d144.tar.xz" -C "$out" d144 && rm -rf "$logs"
