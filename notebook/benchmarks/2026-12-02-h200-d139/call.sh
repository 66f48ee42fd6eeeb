#!/usr/bin/env bash
# D139 (2026-12-02, one H200): both workers on one CPU (kernels/harness/worker_link.hpp,
# worker_cpus) against the runner before, on the same host, interleaved: "the baseline against
# itself" six times each, then gpu_runner_tests whole (the adversarial corpus) with the new runner.
# Carried: .devcarry/d138 (the runner before: cuda.tar.xz, bin/gpu_runner_tests) and .devcarry/d139
# (the same with the change), built on the development machine in /work/main/build-m.
#   device: bash notebook/benchmarks/2026-12-02-h200-d139/call.sh
set -uo pipefail
out=${OUT:?}
logs=$out/d139
mkdir -p "$logs"
t0=$(date +%s)
stamp() { echo "[$(($(date +%s) - t0)) s] $*"; }
mkdir -p /work
[[ -e /work/main ]] || ln -s "$PWD" /work/main
cd /work/main
export PATH=/usr/local/cuda/bin:$PATH
# gpu_runner_tests finds the harness in /work/main/build-m/cuda: each variant is unpacked there in turn.
use() {
  rm -rf build-m/cuda && mkdir -p build-m/bin
  tar xJf ".devcarry/$1/cuda.tar.xz" -C build-m
  cp ".devcarry/$1/bin/gpu_runner_tests" build-m/bin/
}
{
  stamp "start $(date -u +%FT%TZ)"
  nvidia-smi -L
  nproc
  for i in 1 2 3 4 5 6; do
    for v in d138 d139; do
      use $v
      timeout 60 build-m/bin/gpu_runner_tests "the baseline against itself*" >"$logs/self-$v-$i.txt" 2>&1
      stamp "$v run $i: exit $? ($(grep -oE 'speedup=[0-9.]+' "$logs/self-$v-$i.txt" | sort -u | sed 's/speedup=//' | tr '\n' ' '))"
    done
  done
  use d139
  timeout 150 build-m/bin/gpu_runner_tests --durations yes >"$logs/gpu_runner_d139.txt" 2>&1
  stamp "gpu_runner_tests whole (d139) exit $?"
  tail -n 4 "$logs/gpu_runner_d139.txt"
  stamp "end"
} 2>&1 | tee "$logs/summary.txt"
tar cJf "$out/d139-logs.tar.xz" -C "$out" d139 && rm -rf "$logs"
