#!/usr/bin/env bash
# D147 (2026-12-03, one H200): after D146's fixes: the suite runner end to end
# (tests/suite_gpu/device_check.sh: a two-output SOL-style problem, the PyTorch reference worker
# over CUDA IPC) and the reference worker's tests under the machine's PyTorch 2.11.
#   device: bash notebook/benchmarks/2026-12-03-h200-d147/call.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
out=${OUT:?}
logs=$out/d147
mkdir -p "$logs"
t0=$(date +%s)
stamp() { echo "[$(($(date +%s) - t0)) s] $*"; }
export PATH=/usr/local/cuda/bin:$PATH
torch_python=/opt/torch/.venv/bin/python3
{
  stamp "start $(date -u +%FT%TZ)"
  OUT=/tmp/suite timeout 240 bash tests/suite_gpu/device_check.sh $torch_python >"$logs/suite_check.txt" 2>&1
  stamp "suite device_check exit $?"
  tail -40 "$logs/suite_check.txt"
  cp /tmp/suite/protocol.jsonl "$logs/suite_protocol.jsonl" 2>/dev/null
  cp /tmp/suite/stderr.log "$logs/suite_stderr.log" 2>/dev/null
  tail -8 /tmp/suite/stderr.log 2>/dev/null
  grep -h '"fatal"\|"log"' /tmp/suite/protocol.jsonl 2>/dev/null | cut -c1-400 | head -12
  SOCRATIC_SOURCE_DIR=$PWD PYTHONDONTWRITEBYTECODE=1 timeout 150 $torch_python tests/suite_python/test_reference_worker.py >"$logs/test_reference_worker.txt" 2>&1
  stamp "test_reference_worker exit $?"
  tail -4 "$logs/test_reference_worker.txt"
  stamp "end"
} 2>&1 | tee "$logs/summary.txt"
tar cJf "$out/d147.tar.xz" -C "$out" d147 && rm -rf "$logs"
