#!/usr/bin/env bash
# Builds the CUDA harness on a GPU machine and runs its tests, keeping the logs in $OUT:
#   summary.txt  device, timings of each step, test results
#   build.log    CMake + nvcc output
#   tests.log    runner_logic_tests and gpu_runner_tests output
#   runs.jsonl   every runner run's protocol lines (one `test_run` header line per run)
#   stderr.log   every runner run's stderr
#   memcheck.log compute-sanitizer memcheck of the runner on small scenarios (if time allows)
# Usage (repository root): OUT=/some/dir tests/gpu/run-on-device.sh [ARCH]   (ARCH default 90a)
# If CMake cannot configure there, it builds the CUDA parts with nvcc directly and runs a test
# binary carried in prebuilt/gpu_runner_tests (SOCRATIC_SOURCE_DIR / SOCRATIC_CUDA_BUILD_DIR).
set -u
cd "$(dirname "$0")/../.."
root=$(pwd)
arch=${1:-90a}
out=${OUT:-/tmp/socratic-device-out}
mkdir -p "$out"
t0=$(date +%s)
say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a "$out/summary.txt"; }

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,memory.total --format=csv >> "$out/summary.txt" 2>&1
nvcc --version | tail -2 >> "$out/summary.txt" 2>&1
say "start, arch sm_$arch"

cuda_dir=$root/build-device/cuda
if cmake -S . -B build-device -DCMAKE_BUILD_TYPE=Release -DSOCRATIC_BUILD_TOOLS=OFF \
     -DSOCRATIC_BUILD_EXAMPLES=OFF -DSOCRATIC_CUDA_ARCH="$arch" > "$out/build.log" 2>&1 &&
   cmake --build build-device -j "$(nproc)" --target gpu_runner_tests >> "$out/build.log" 2>&1; then
  say "cmake build of the CUDA parts and gpu_runner_tests ok"
  gpu=build-device/bin/gpu_runner_tests
  # The CPU tests too (they also prove the Catch2 v2/v3 shim where v3 is installed).
  cmake --build build-device -j "$(nproc)" --target runner_logic_tests socratic_sdk_tests >> "$out/build.log" 2>&1
  say "cmake build of runner_logic_tests and socratic_sdk_tests exit $?"
  logic=build-device/bin/runner_logic_tests
  [ -x build-device/bin/socratic_sdk_tests ] && {
    ctest --test-dir build-device -R '^core_tests$' --output-on-failure >> "$out/tests.log" 2>&1; say "core_tests exit $?"; }
else
  say "cmake build failed (see build.log); building the CUDA parts with nvcc directly"
  mkdir -p "$cuda_dir/adversarial"
  gencode="-gencode=arch=compute_$arch,code=sm_$arch"
  nvcc -O3 -std=c++17 $gencode -I kernels/harness -I kernels/rmsnorm kernels/harness/runner.cu \
    kernels/rmsnorm/problem.cu -o "$cuda_dir/socratic-runner-rmsnorm" -ldl >> "$out/build.log" 2>&1 &
  nvcc -O3 -std=c++17 $gencode -shared -Xcompiler -fPIC -I kernels/rmsnorm kernels/rmsnorm/baseline.cu \
    -o "$cuda_dir/rmsnorm_baseline.so" >> "$out/build.log" 2>&1 &
  for f in tests/adversarial/*.cu; do
    nvcc -O3 -std=c++17 $gencode -shared -Xcompiler -fPIC -I kernels/rmsnorm "$f" \
      -o "$cuda_dir/adversarial/$(basename "$f" .cu).so" >> "$out/build.log" 2>&1 &
  done
  wait
  logic=
  gpu=prebuilt/gpu_runner_tests
  export SOCRATIC_SOURCE_DIR=$root SOCRATIC_CUDA_BUILD_DIR=$cuda_dir
fi
say "built: $(ls "$cuda_dir" "$cuda_dir/adversarial" 2>/dev/null | grep -c -E 'runner|\.so$') CUDA outputs"

if [ -n "$logic" ] && [ -x "$logic" ]; then
  "$logic" >> "$out/tests.log" 2>&1
  say "runner_logic_tests exit $?"
fi
export SOCRATIC_GPU_LOG_DIR=$out
if [ -x "$gpu" ]; then
  timeout "${GPU_TEST_TIMEOUT:-170}" "$gpu" --durations yes >> "$out/tests.log" 2>&1
  rc=$?
  say "gpu_runner_tests exit $rc"
  grep -E "^(test cases|assertions):" "$out/tests.log" | tail -2 >> "$out/summary.txt"
else
  say "no gpu test binary"
fi

# The runner's own kernels under memcheck, on small scenarios, while time remains.
if [ $(( $(date +%s) - t0 )) -lt "${MEMCHECK_BEFORE_S:-180}" ] && command -v compute-sanitizer > /dev/null; then
  timeout 40 compute-sanitizer --tool memcheck --print-limit 20 "$cuda_dir/socratic-runner-rmsnorm" \
    --baseline "$cuda_dir/rmsnorm_baseline.so" --candidate "$cuda_dir/adversarial/honest_control.so" \
    --scenarios scenarios/rmsnorm.json --only tiny,small,odd_cols_fp16 --no-timing > "$out/memcheck.log" 2>&1
  say "memcheck exit $? ($(grep -c 'ERROR SUMMARY: 0 errors' "$out/memcheck.log") clean summaries)"
fi
say "done"
