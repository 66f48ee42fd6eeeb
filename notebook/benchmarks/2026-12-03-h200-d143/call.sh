#!/usr/bin/env bash
# D143 (2026-12-03, one H200): the judge after D142 (the two output allocations' roles drawn per
# placement; the same judge work after either side's timed call): the corpus, and the baseline
# against itself on RMSNorm, five runs, against the judge before this issue (a0713d4),
# interleaved. Carried: .devcarry/d143/ (runners, baseline, corpus .so, gpu_runner_tests).
#   device: bash notebook/benchmarks/2026-12-03-h200-d143/call.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
D=.devcarry/d143
out=${OUT:?}
logs=$out/d143
mkdir -p "$logs"
t0=$(date +%s)
stamp() { echo "[$(($(date +%s) - t0)) s] $*"; }
secs() { python3 -c "import time; print(f'{time.time()-$1:.2f}')"; }
{
  stamp "start $(date -u +%FT%TZ)"
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  if [[ -z ${VARIANTS:-} ]]; then
    SOCRATIC_SOURCE_DIR=$PWD SOCRATIC_CUDA_BUILD_DIR=$PWD/$D/new SOCRATIC_GPU_LOG_DIR=$logs/gpu \
      timeout 400 $D/new/bin/gpu_runner_tests --durations yes >"$logs/gpu_runner.txt" 2>&1
    stamp "gpu_runner_tests (corpus of $(ls tests/adversarial/*.cu | wc -l)) exit $?"
    grep -E "passed|failed" "$logs/gpu_runner.txt" | tail -3
  fi
  cp $D/new/rmsnorm_baseline.so $D/old/
  for i in 1 2 3 4 5; do  # (the first run of this call had held/../ in the path: its held runs exit 2; rerun as "held" alone)
    for v in ${VARIANTS:-old held}; do
      s1=$(date +%s.%N)
      args=(--baseline $D/new/rmsnorm_baseline.so --candidate $D/new/rmsnorm_baseline.so --scenarios scenarios/rmsnorm.json)
      if [[ $v == old ]]; then timeout 300 $D/old/socratic-runner-rmsnorm "${args[@]}"
      else printf '%s\n' "${args[@]}" | timeout 300 $D/new/socratic-runner-rmsnorm --options-stdin; fi \
        >"$logs/rmsnorm_${v}_$i.jsonl" 2>/dev/null
      stamp "rmsnorm $v run $i: exit $?, $(secs $s1) s"
    done
  done
  python3 "$here/../2026-12-03-h200-d141/selfstats.py" "$logs" rmsnorm
  stamp "end"
} 2>&1 | tee "$logs/summary.txt"
tar cJf "$out/d143.tar.xz" -C "$out" d143 && rm -rf "$logs"
# Second command of D143 (the held runs again, with the path fixed):
#   VARIANTS=held bash notebook/benchmarks/2026-12-03-h200-d143/call.sh
