#!/usr/bin/env bash
# Device call D5 (2026-11-29, session 2): the bank's unanswered question `gap.reference-stalls`
# ("Which stall reason dominates in your kernel but not in the reference implementation?"), on the
# scenario where v4 trails cuDNN most (s512_d64_b32_h32): Nsight Compute's warp-state statistics of
# v4's kernel and of cuDNN's (PyTorch SDPA, cuDNN backend) on the same shape. One tarball in $OUT.
set -u
root=$PWD r=/tmp/d5 B=/tmp/v5; mkdir -p $r $B
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
pack() { tar czf $OUT/d5.tgz -C /tmp d5; }
ncu --version >> $r/summary.txt 2>&1
NV="nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels/attention"
$NV -shared -Xcompiler -fPIC -Xcompiler -fno-gnu-unique kernels/attention/hopper.cu -o $B/v4.so &
$NV -I kernels/harness kernels/attention/tools/check_attention.cu kernels/attention/problem.cu \
  kernels/attention/reference.cu -o $B/check_attention -ldl &
wait; say "built"
sections="--section SpeedOfLight --section WarpStateStats --section ComputeWorkloadAnalysis --section Occupancy"
# The warp-state section summarises; the per-reason stall ratios are raw metrics.
[ "${STALLS:-0}" = 1 ] && sections="--metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\\.ratio,smsp__inst_executed.sum,sm__cycles_elapsed.max"
timeout 150 ncu $sections --csv --page details -k regex:attention_fwd --launch-count 1 \
  $B/check_attention --impl v4=$B/v4.so --no-timing --only s512_d64_b32_h32 scenarios/attention_fa3_grid.json \
  > $r/ncu_v4${STALLS:+_stalls}.csv 2> $r/ncu_v4.err; say "ncu v4 exit $?"; pack
cat > $r/sdpa_one.py <<'PY'
import torch, torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
q, k, v = (torch.randn(32, 32, 512, 64, device="cuda", dtype=torch.bfloat16) for _ in range(3))
with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
    for _ in range(3):
        F.scaled_dot_product_attention(q, k, v)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push("sdpa")
    F.scaled_dot_product_attention(q, k, v)
    torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()
PY
timeout 200 ncu $sections --csv --page details --nvtx --nvtx-include "sdpa/" \
  python3 $r/sdpa_one.py > $r/ncu_cudnn${STALLS:+_stalls}.csv 2> $r/ncu_cudnn.err; say "ncu cudnn exit $?"
say done; pack
