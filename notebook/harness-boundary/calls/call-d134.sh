#!/usr/bin/env bash
# Device call: the judge/worker boundary, third pass (a kernel of its own before the start event).
set -u
cd "$(dirname "$0")/../.."
D=.devcarry/d134; C=/tmp/d134/cuda
mkdir -p /tmp/d134 && tar -xJf $D/cuda.tar.xz -C /tmp/d134
export SOCRATIC_SOURCE_DIR=$PWD SOCRATIC_CUDA_BUILD_DIR=$C SOCRATIC_GPU_LOG_DIR=$OUT/gpu
S=$OUT/summary.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; } > $S
t0=$(date +%s)
timeout 330 $D/gpu_runner_tests --durations yes > $OUT/gpu_tests.log 2>&1; echo "gpu_runner_tests exit $? ($(( $(date +%s) - t0 )) s)" >> $S
grep -E "^(test cases|assertions)|FAILED|passed" $OUT/gpu_tests.log | tail -6 >> $S
mkdir -p $OUT/grid
G=scenarios/attention_fa3_grid.json
run_grid() {  # old|new hopper|baseline round
  R=$D/old-runner-attention; [ $1 = new ] && R=$C/socratic-runner-attention
  so=$D/hopper.so; [ $2 = baseline ] && so=$D/attention_baseline.so
  s1=$(date +%s.%N)
  timeout 120 $R --baseline $D/attention_baseline.so --candidate $so --scenarios $G > $OUT/grid/$1_$2_$3.jsonl 2> $OUT/grid/$1_$2_$3.err
  rc=$?; s2=$(date +%s.%N)
  echo "grid $1 $2 round $3: exit $rc, $(python3 -c "print(f'{$s2-$s1:.2f}')") s" >> $S
}
run_grid old hopper 1; run_grid new hopper 1; run_grid old baseline 1; run_grid new baseline 1
run_grid new hopper 2; run_grid new baseline 2; run_grid old hopper 2; run_grid old baseline 2
python3 $D/summarize.py $OUT/grid/*.jsonl >> $S 2>&1
cd $OUT && tar -czf logs.tar.gz gpu grid gpu_tests.log 2>/dev/null; rm -rf gpu grid
cat $S
