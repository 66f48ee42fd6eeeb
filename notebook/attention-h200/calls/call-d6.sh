#!/usr/bin/env bash
# Device call D6 (2026-11-29, session 3): the plateau at short sequences. The bank asked
# `gap.reference-bytes` (DRAM bytes of cuDNN against ours); the step planned at the end of session 2
# asked which pipe the d64 softmax saturates. This call answers both with Nsight Compute on
# s512_d64_b32_h32 (v4, the candidate v5, cuDNN), checks v5 on the three scenario sets, and times
# v4 against v5 and its variants (one -D each) with check_attention on the FA3 grid.
# Run from the repository root on the GPU machine; one tarball in $OUT.
set -u
root=$PWD r=/tmp/d6 B=/tmp/v6 V=docs/campaigns/attention-h200/versions; mkdir -p $r $B
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
pack() { tar czf $OUT/d6.tgz -C /tmp d6; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >> $r/summary.txt 2>&1
NV="nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels/attention"
so() { local name=$1 src=$2; shift 2; $NV -shared -Xcompiler -fPIC -Xcompiler -fno-gnu-unique "$@" $src -o $B/$name.so; }
so v4 $V/v4-hopper.cu &
so v5 kernels/attention/hopper.cu &
so e0 kernels/attention/hopper.cu -DHOPPER_D64_EXP_EMU=0 &
so e3 kernels/attention/hopper.cu -DHOPPER_D64_EXP_EMU=3 &
so e4 kernels/attention/hopper.cu -DHOPPER_D64_EXP_EMU=4 &
so w3 kernels/attention/hopper.cu -DHOPPER_D64_PERSISTENT_WGS=3 &
so c1 kernels/attention/hopper.cu -DHOPPER_D128_EXP_EMU=1 &
so c2 kernels/attention/hopper.cu -DHOPPER_D128_EXP_EMU=2 &
$NV -I kernels/harness kernels/attention/tools/check_attention.cu kernels/attention/problem.cu \
  kernels/attention/reference.cu -o $B/check_attention -ldl &
wait; say "built: $(ls $B | tr '\n' ' ')"
CA=$B/check_attention G=scenarios/attention_fa3_grid.json
ids() { python3 -c "import json,sys;print(','.join(s['id'] for s in json.load(open('$G'))['scenarios'] if sys.argv[1] in s['id']))" "$1"; }
d64=$(ids _d64_) d128=$(ids _d128_)

for v in v5 e4 w3 c2; do
  timeout 120 $CA --impl $v=$B/$v.so --no-timing scenarios/attention_edge.json $G scenarios/attention_production.json \
    > $r/check_$v.txt 2>&1; say "check $v exit $? $(tail -1 $r/check_$v.txt)"
done; pack

# Timing: every implementation on the same scenario back to back; two passes in opposite order.
timeout 200 $CA --impl v4=$B/v4.so --impl v5=$B/v5.so --impl e0=$B/e0.so --impl e3=$B/e3.so --impl e4=$B/e4.so \
  --impl w3=$B/w3.so --only $d64 --jsonl $r/d64_a.jsonl $G > $r/d64_a.txt 2>&1; say "d64 pass a exit $?"
timeout 200 $CA --impl w3=$B/w3.so --impl e4=$B/e4.so --impl e3=$B/e3.so --impl e0=$B/e0.so --impl v5=$B/v5.so \
  --impl v4=$B/v4.so --only $d64 --jsonl $r/d64_b.jsonl $G > $r/d64_b.txt 2>&1; say "d64 pass b exit $?"; pack
timeout 200 $CA --impl v4=$B/v4.so --impl v5=$B/v5.so --impl c1=$B/c1.so --impl c2=$B/c2.so \
  --only $d128 --jsonl $r/d128_a.jsonl $G > $r/d128_a.txt 2>&1; say "d128 pass a exit $?"
timeout 200 $CA --impl c2=$B/c2.so --impl c1=$B/c1.so --impl v5=$B/v5.so --impl v4=$B/v4.so \
  --only $d128 --jsonl $r/d128_b.jsonl $G > $r/d128_b.txt 2>&1; say "d128 pass b exit $?"
timeout 200 $CA --impl v4=$B/v4.so --impl v5=$B/v5.so --jsonl $r/grid_a.jsonl $G > $r/grid_a.txt 2>&1; say "grid a exit $?"
timeout 200 $CA --impl v5=$B/v5.so --impl v4=$B/v4.so --jsonl $r/grid_b.jsonl $G > $r/grid_b.txt 2>&1; say "grid b exit $?"; pack

# Nsight Compute on s512_d64_b32_h32: DRAM bytes (gap.reference-bytes) and pipe utilisation.
metrics="dram__bytes_read.sum,dram__bytes_write.sum,sm__cycles_elapsed.max,smsp__inst_executed.sum"
metrics+=",sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"
metrics+=",sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active"
metrics+=",sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active"
metrics+=",regex:smsp__average_warps_issue_stalled_(wait|mio_throttle|barrier|long_scoreboard|short_scoreboard|math_pipe_throttle|dispatch_stall)_per_issue_active\\.ratio"
for v in v4 v5 e4; do
  timeout 120 ncu --metrics "$metrics" --csv --page details -k regex:attention_fwd --launch-count 1 \
    $CA --impl $v=$B/$v.so --no-timing --only s512_d64_b32_h32 $G > $r/ncu_$v.csv 2> $r/ncu_$v.err
  say "ncu $v exit $?"
done
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
timeout 200 ncu --metrics "$metrics" --csv --page details --nvtx --nvtx-include "sdpa/" \
  python3 $r/sdpa_one.py > $r/ncu_cudnn.csv 2> $r/ncu_cudnn.err; say "ncu cudnn exit $?"
cuobjdump -sass $B/v5.so > $r/v5.sass 2>/dev/null; gzip $r/v5.sass
say done; pack
