#!/usr/bin/env bash
# D136 (2026-12-02, one H200): the [gpu] tests of what changed in this phase and the gate's
# false-admission rate. Run from the repository root on the device, with .devcarry/ carried:
# bin/ (store_gate_gpu, eval_gpu_tests, agents_tests, socratic built on the development machine
# from the same tree, build folder /work/build-main, source /work/main) and bwrap/ (bubblewrap and
# its libraries: the device image has none).
#   device: bash notebook/benchmarks/2026-12-02-h200-d136/call.sh
set -uo pipefail
out=${OUT:?}
logs=$out/d136
mkdir -p "$logs"
t0=$(date +%s)
stamp() { echo "[$(($(date +%s) - t0)) s] $*"; }
{
  stamp "start $(date -u +%FT%TZ) at $(git rev-parse --short HEAD 2>/dev/null)"
  nvidia-smi -L
  nvcc --version | tail -n 2
  # The binaries know their tree as /work/main and their build folder as /work/build-main.
  mkdir -p /work /work/build-main/bin
  [[ -e /work/main ]] || ln -s "$PWD" /work/main
  cp .devcarry/bin/* /work/build-main/bin/
  export PATH=$PWD/.devcarry/bwrap:/usr/local/cuda/bin:$PATH
  export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
  cd /work/main
  timeout 250 /work/build-main/bin/store_gate_gpu --trials 20 --out "$logs/gate.json" >"$logs/gate.txt" 2>&1
  stamp "store_gate_gpu exit $?"
  tail -n 12 "$logs/gate.txt"
  timeout 130 /work/build-main/bin/eval_gpu_tests --durations yes >"$logs/eval_gpu.txt" 2>&1
  stamp "eval_gpu_tests exit $?"
  tail -n 4 "$logs/eval_gpu.txt"
  timeout 40 /work/build-main/bin/agents_tests "[gpu]" >"$logs/agents_gpu.txt" 2>&1
  stamp "agents_tests [gpu] exit $?"
  tail -n 12 "$logs/agents_gpu.txt"
  stamp end
} 2>&1 | tee "$logs/summary.txt"
tar czf "$out/d136-logs.tar.gz" -C "$out" d136
