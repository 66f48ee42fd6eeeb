#!/usr/bin/env bash
# The agents' own experiments on the GPU between rounds: each agent's selftest program (its own
# reference and timing loop) and `socratic eval` of its candidate (the judge's verdict against the
# eager-PyTorch baseline, the MCP `evaluate` tool's answer), plus the anchors of the run: the
# device-to-device copy bandwidth and the bf16 matrix rate through PyTorch.
# Usage (device): bash notebook/suite-evidence/scripts/agent_checks.sh WORK_DIR LOG_DIR [PROBLEM...]
#   WORK_DIR holds PROBLEM/selftest.cu (the agents' folders, notebook/suite-evidence/agents) and
#   PROBLEM/candidate.cu (a copy of the candidate to check: by default the agent's latest answer).
set -uo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
work=${1:?work dir}; logs=${2:?log dir}; shift 2
problems=("$@")
[ ${#problems[@]} -gt 0 ] || problems=(rmsnorm_h4096 mse_loss_d1024 softmax_topk_v32000_k8 swiglu_mlp_h2048_i5632 fp8_gemm_blockscale_n4096_k7168 gqa_prefill_hr4_d128)
mkdir -p "$logs"
export SOCRATIC_REFERENCE_PYTHON=${SOCRATIC_REFERENCE_PYTHON:-/opt/torch/.venv/bin/python3}
export SOCRATIC_DATA_DIR="$root"
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
t0=$(date +%s); stamp() { echo "[$(($(date +%s) - t0)) s] $*"; }
stamp "anchors"
"$SOCRATIC_REFERENCE_PYTHON" - <<'PY' 2>&1 | tee "$logs/anchors.txt"
import torch
dev = torch.device("cuda")
print("gpu", torch.cuda.get_device_name(0))
x = torch.empty(2 * 1024**3 // 4, dtype=torch.float32, device=dev).normal_()
y = torch.empty_like(x)
for _ in range(3): y.copy_(x)
torch.cuda.synchronize()
s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
ms = []
for _ in range(10):
    s.record(); y.copy_(x); e.record(); torch.cuda.synchronize(); ms.append(s.elapsed_time(e))
ms.sort()
print(f"copy_bandwidth_tb_s median {2 * x.numel() * 4 / (ms[5] * 1e-3) / 1e12:.3f} (2 GiB copy, read+write, 10 runs, min {2 * x.numel() * 4 / (ms[0] * 1e-3) / 1e12:.3f})")
a = torch.randn(8192, 8192, dtype=torch.bfloat16, device=dev); b = torch.randn_like(a)
for _ in range(3): a @ b
torch.cuda.synchronize(); ms = []
for _ in range(10):
    s.record(); a @ b; e.record(); torch.cuda.synchronize(); ms.append(s.elapsed_time(e))
ms.sort()
print(f"bf16_matmul_tflops median {2 * 8192**3 / (ms[5] * 1e-3) / 1e12:.1f} (8192^3, random data)")
PY
for p in "${problems[@]}"; do
  d="$work/$p"
  if [ ! -f "$d/candidate.cu" ]; then  # the agent's latest answered turn
    latest=$(ls -d "$root"/notebook/suite-evidence/mailboxes/*/"$p"/inbox/turn-*/ 2>/dev/null | sort -V | tail -1)
    [ -n "$latest" ] && [ -f "$latest/candidate.cu" ] && cp "$latest/candidate.cu" "$d/candidate.cu"
  fi
  [ -f "$d/candidate.cu" ] || { stamp "$p: no candidate"; continue; }
  if [ -f "$d/selftest.cu" ]; then
    (cd "$d" && "$nvcc" -std=c++17 -gencode=arch=compute_90a,code=sm_90a -O3 selftest.cu -o /tmp/selftest_$p >"$logs/$p.selftest_build.txt" 2>&1 \
      && timeout 120 /tmp/selftest_$p >"$logs/$p.selftest.txt" 2>&1)
    stamp "$p selftest exit $?"; tail -15 "$logs/$p.selftest.txt" 2>/dev/null | cut -c1-200
  fi
  timeout 300 "$root/build/bin/socratic" eval "$d/candidate.cu" --problem "$root/notebook/suite-evidence/problems/$p" \
    --cache-dir /tmp/agent-cache -o "$logs/$p.eval.json" >"$logs/$p.eval.txt" 2>&1
  stamp "$p eval exit $?"; cut -c1-220 "$logs/$p.eval.txt" | tail -25
done
stamp end
