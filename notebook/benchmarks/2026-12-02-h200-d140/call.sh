#!/usr/bin/env bash
# D140 (2026-12-02, one H200): the worker's sandbox refuses sched_setaffinity (the judge puts both
# workers on one CPU) and the corpus has the cheat that tries it (tests/adversarial/own_cpu.cu):
# gpu_runner_tests whole (the corpus, the baseline against itself), three more self-comparisons,
# and eval_gpu_tests (the evaluator end to end: it builds the runner here from this tree).
# Carried: .devcarry/d140 (bin/: gpu_runner_tests, eval_gpu_tests; cuda.tar.xz: the harness and the
# corpus), built on the development machine in /work/main/build-m.
#   device: bash notebook/benchmarks/2026-12-02-h200-d140/call.sh
set -uo pipefail
out=${OUT:?}
logs=$out/d140
mkdir -p "$logs"
t0=$(date +%s)
stamp() { echo "[$(($(date +%s) - t0)) s] $*"; }
mkdir -p /work
[[ -e /work/main ]] || ln -s "$PWD" /work/main
cd /work/main
export PATH=/usr/local/cuda/bin:$PATH
{
  stamp "start $(date -u +%FT%TZ)"
  nvidia-smi -L
  rm -rf build-m/cuda && mkdir -p build-m/bin
  tar xJf .devcarry/d140/cuda.tar.xz -C build-m
  cp .devcarry/d140/bin/* build-m/bin/
  timeout 150 build-m/bin/gpu_runner_tests --durations yes >"$logs/gpu_runner.txt" 2>&1
  stamp "gpu_runner_tests exit $?"
  grep -A3 "own_cpu" "$logs/gpu_runner.txt" | head -8
  tail -n 3 "$logs/gpu_runner.txt"
  for i in 1 2 3; do
    timeout 60 build-m/bin/gpu_runner_tests "the baseline against itself*" >"$logs/self-$i.txt" 2>&1
    stamp "self run $i: exit $? ($(grep -oE 'speedup=[0-9.]+' "$logs/self-$i.txt" | sort -u | sed 's/speedup=//' | tr '\n' ' '))"
  done
  timeout 250 build-m/bin/eval_gpu_tests --durations yes >"$logs/eval_gpu.txt" 2>&1
  stamp "eval_gpu_tests exit $?"
  tail -n 3 "$logs/eval_gpu.txt"
  grep -c "sandbox_violation" "$logs/eval_gpu.txt"
  stamp "end"
} 2>&1 | tee "$logs/summary.txt"
tar cJf "$out/d140-logs.tar.xz" -C "$out" d140 && rm -rf "$logs"
