#!/usr/bin/env bash
# D137 (2026-12-02, one H200): the gate's admission rates with pooled runs in the gray zone, and
# the local pool against one-at-a-time evaluation of 16 attention versions. Run from the
# repository root on the device, with build/bin (socratic, store_gate_gpu, eval_gpu_tests, built
# on the development machine from the same tree, in /work/main/build) and .devcarry/pvs (the 16
# candidates of `tools/research/bench/pool_vs_serial.sh prepare .devcarry/pvs 16`) carried.
#   device: bash notebook/benchmarks/2026-12-02-h200-d137/call.sh gate|pool|serial FROM TO|finish
# The last phase, gpu-tests, ran the [gpu] tests of the session's final tree: .devcarry/final
# carried (bin/: eval_gpu_tests, gpu_runner_tests, store_gate_gpu, stripped; cuda.tar.xz: the
# harness and the adversarial corpus that nvcc built here, in /work/main/build-sep).
set -uo pipefail
out=${OUT:?}
phase=${1:?gate, pool, serial FROM TO or finish}
logs=$out/d137-$phase${2:+-$2}
mkdir -p "$logs"
t0=$(date +%s)
stamp() { echo "[$(($(date +%s) - t0)) s] $*"; }
# The binaries know their tree as /work/main (SOCRATIC_SOURCE_DIR) and their build as /work/main/build.
mkdir -p /work
[[ -e /work/main ]] || ln -s "$PWD" /work/main
cd /work/main
export PATH=/usr/local/cuda/bin:$PATH SOCRATIC_DATA_DIR=/work/main SOCRATIC=/work/main/build/bin/socratic
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
pvs=/work/main/.devcarry/pvs
{
  stamp "start $(date -u +%FT%TZ) phase $phase"
  nvidia-smi -L
  case $phase in
    gate)
      nvcc --version | tail -n 2
      # The four short edge shapes of D136 (noise 3.5-7.4 %), the incumbent slowed by 6 %.
      timeout 260 build/bin/store_gate_gpu --trials 20 --out "$logs/gate-edge-6pct.json" >"$logs/gate-edge-6pct.txt" 2>&1
      stamp "store_gate_gpu edge 6 % exit $?"
      tail -n 3 "$logs/gate-edge-6pct.txt"
      # Four FA3-grid shapes (1-5 ms each), the incumbent slowed by 5 %.
      timeout 280 build/bin/store_gate_gpu --trials 20 --slowdown 0.05 --scenarios attention_fa3_grid \
        --only s2048_d128_b8_h16,s4096_d64_b4_h32_causal,s8192_d128_b2_h16_causal,s1024_d256_b16_h8 \
        --out "$logs/gate-grid-5pct.json" >"$logs/gate-grid-5pct.txt" 2>&1
      stamp "store_gate_gpu grid 5 % exit $?"
      tail -n 3 "$logs/gate-grid-5pct.txt"
      ;;
    pool)
      tools/research/bench/pool_vs_serial.sh pool "$pvs"
      stamp "pool done"
      ;;
    serial)
      tools/research/bench/pool_vs_serial.sh serial "$pvs" "$2" "$3"
      stamp "serial $2-$3 done"
      ;;
    gpu-tests)
      mkdir -p /work/main/build-sep/bin
      cp .devcarry/final/bin/* /work/main/build-sep/bin/
      tar xJf .devcarry/final/cuda.tar.xz -C /work/main/build-sep
      timeout 120 build-sep/bin/gpu_runner_tests --durations yes >"$logs/gpu_runner.txt" 2>&1
      stamp "gpu_runner_tests exit $?"
      tail -n 3 "$logs/gpu_runner.txt"
      timeout 200 build-sep/bin/eval_gpu_tests --durations yes >"$logs/eval_gpu.txt" 2>&1
      stamp "eval_gpu_tests exit $?"
      tail -n 3 "$logs/eval_gpu.txt"
      [[ -x build-sep/bin/store_gate_gpu ]] && timeout 150 build-sep/bin/store_gate_gpu --trials 6 --out "$logs/gate-edge-6pct-final.json" >"$logs/gate-edge-6pct-final.txt" 2>&1
      stamp "store_gate_gpu exit $?"
      tail -n 3 "$logs/gate-edge-6pct-final.txt"
      ;;
    finish)
      tools/research/bench/pool_vs_serial.sh summary "$pvs" >"$logs/summary.txt" 2>&1
      cat "$logs/summary.txt"
      timeout 200 build/bin/eval_gpu_tests --durations yes >"$logs/eval_gpu.txt" 2>&1
      stamp "eval_gpu_tests exit $?"
      tail -n 4 "$logs/eval_gpu.txt"
      ;;
  esac
  stamp end
} 2>&1 | tee "$logs/summary-$phase.txt"
# What pool_vs_serial wrote (times, reports, journal), small: packed with the logs.
[[ -d $pvs ]] && tar czf "$logs/pvs.tar.gz" --exclude='cache-*' --exclude='candidates' -C "$pvs" . 2>/dev/null
tar czf "$out/d137-$phase${2:+-$2}.tar.gz" -C "$out" "$(basename "$logs")"
