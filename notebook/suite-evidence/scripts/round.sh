#!/usr/bin/env bash
# One round of the evidence suite on the GPU machine: the run's anchors (copy bandwidth, bf16
# matrix rate), then `socratic suite suite.json` resumed: every agent whose inbox holds a READY
# answer takes its turn, the gate judges the proposal against the problem's incumbent (the
# eager-PyTorch baseline first), the coordinator rechecks incumbents against the baseline, and
# each agent's next message (verdict, question) is written to its outbox; the suite pauses when
# no agent has an answer left. The state and the mailboxes come back in one tarball.
# Usage (device, repository root, the tool built on the host and carried):
#   bash notebook/suite-evidence/scripts/round.sh OUT_DIR
set -uo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
out=${1:?out dir}
mkdir -p "$out"
export SOCRATIC_REFERENCE_PYTHON=${SOCRATIC_REFERENCE_PYTHON:-/opt/torch/.venv/bin/python3}
export SOCRATIC_DATA_DIR="$root"
t0=$(date +%s); stamp() { echo "[$(($(date +%s) - t0)) s] $*"; }
stamp "start $(date -u +%FT%TZ)"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
"$SOCRATIC_REFERENCE_PYTHON" - <<'PY' 2>&1 | tee "$out/anchors.txt"
import torch
dev = torch.device("cuda")
s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
def timed(f, n=10):
    for _ in range(3): f()
    torch.cuda.synchronize(); ms = []
    for _ in range(n):
        s.record(); f(); e.record(); torch.cuda.synchronize(); ms.append(s.elapsed_time(e))
    return sorted(ms)
x = torch.empty(2 * 1024**3 // 4, dtype=torch.float32, device=dev).normal_(); y = torch.empty_like(x)
ms = timed(lambda: y.copy_(x))
print(f"copy_bandwidth_tb_s median {2 * x.numel() * 4 / (ms[len(ms)//2] * 1e-3) / 1e12:.3f} best {2 * x.numel() * 4 / (ms[0] * 1e-3) / 1e12:.3f} (2 GiB device copy, read + write, 10 runs)")
del x, y
a = torch.randn(8192, 8192, dtype=torch.bfloat16, device=dev); b = torch.randn_like(a)
ms = timed(lambda: a @ b)
print(f"bf16_matmul_tflops median {2 * 8192**3 / (ms[len(ms)//2] * 1e-3) / 1e12:.1f} (8192^3, random data, 10 runs)")
PY
stamp "anchors done"
cd "$root/notebook/suite-evidence"
# The suite's state is kept packed between rounds (the reports in it are rebuilt by every run);
# without one the suite starts its campaigns here, recording the judge that judges them.
[ -d state ] || [ ! -f state.tar.xz ] || tar xJf state.tar.xz
timeout ${ROUND_TIMEOUT:-480} "$root/build/bin/socratic" suite suite.json >"$out/suite.txt" 2>&1
stamp "suite exit $?"
tail -20 "$out/suite.txt" | cut -c1-400
tar cJf "$out/evidence-state.tar.xz" state mailboxes workspaces
tar cJf "$out/state.tar.xz" --exclude=state/report state
stamp "end"
