#!/bin/sh
# A suite problem judged where it lies, end to end on a GPU machine (issue 38 item 1): the built
# tool's `socratic eval --problem PATH` on tests/suite/problems/rmsnorm_h4096 with the honest
# candidate and the native baseline of tests/suite/eval: the workloads resolved by the host, the
# suite runner and the candidate's generated adapter built by the judge, the reference in the
# reference worker; then the same against the suite's own baseline, the reference in eager
# PyTorch (no --baseline), timed by the judge in the reference worker; then a KernelBench file
# (tests/suite/problems/kernelbench/1_scaled_row_sum.py) with its honest CUDA candidate against its
# Model in eager PyTorch; a KernelBench Model with weights (2_gelu_linear.py: the Model's
# linear.weight and linear.bias passed to the candidate as inputs, filled from the judge's own
# seeded Model); and a FlashInfer-Bench TraceSet definition (tests/suite/trace_set, bf16, a var
# axis and a scalar input), each with its honest CUDA candidate.
# Usage: tests/suite_gpu/eval_check.sh SOCRATIC [PYTHON]
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
socratic=${1:?usage: eval_check.sh PATH/TO/socratic [PYTHON]}
export SOCRATIC_REFERENCE_PYTHON=${2:-/opt/torch/.venv/bin/python3}
export SOCRATIC_DATA_DIR="$root"
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
"$socratic" eval "$root/tests/suite/eval/rmsnorm_h4096_candidate.cu" --problem "$root/tests/suite/problems/rmsnorm_h4096" \
  --baseline "$root/tests/suite/eval/rmsnorm_h4096_baseline.cu" --cache-dir "$out/cache" -q -o "$out/report.json" \
  | tee "$out/table.txt"
"$SOCRATIC_REFERENCE_PYTHON" - "$out/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
ids = [s["id"] for s in r["scenarios"]]
assert ids == ["rms-b1", "rms-b128", "rms-b4096"], ids
assert all(s["correct"] for s in r["scenarios"]), [s.get("reason") for s in r["scenarios"]]
print("eval_check: OK (every workload of rmsnorm_h4096 correct and timed against the native baseline)")
PY
"$socratic" eval "$root/tests/suite/eval/rmsnorm_h4096_candidate.cu" --problem "$root/tests/suite/problems/rmsnorm_h4096" \
  --cache-dir "$out/cache" -q -o "$out/report_eager.json" | tee "$out/table_eager.txt"
"$SOCRATIC_REFERENCE_PYTHON" - "$out/report_eager.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert not r.get("error"), r.get("error")
for s in r["scenarios"]:
    assert s["correct"], (s["id"], s.get("reason"))
    assert s.get("samples", 0) > 0 and s.get("baseline_ms", 0) > 0, (s["id"], "not timed")
    assert "clock_mismatch" not in s.get("flags", []), (s["id"], s.get("flags"))
    print(f"eval_check: {s['id']}: eager PyTorch {s['baseline_ms']:.4f} ms, candidate {s['candidate_ms']:.4f} ms, "
          f"speedup {s.get('speedup')}, flags {s.get('flags')}")
print("eval_check: OK (every workload correct and timed against the eager-PyTorch baseline)")
PY
"$socratic" eval "$root/tests/suite_gpu/scaled_row_sum_kernelbench.cu" \
  --problem "$root/tests/suite/problems/kernelbench/1_scaled_row_sum.py" \
  --cache-dir "$out/cache" -q -o "$out/report_kernelbench.json" | tee "$out/table_kernelbench.txt"
"$SOCRATIC_REFERENCE_PYTHON" - "$out/report_kernelbench.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert not r.get("error"), r.get("error")
assert len(r["scenarios"]) == 1, [s["id"] for s in r["scenarios"]]
for s in r["scenarios"]:
    assert s["correct"], (s["id"], s.get("reason"))
    assert s.get("samples", 0) > 0 and s.get("baseline_ms", 0) > 0, (s["id"], "not timed")
    print(f"eval_check: KernelBench {s['id']}: eager Model {s['baseline_ms']:.4f} ms, candidate "
          f"{s['candidate_ms']:.4f} ms, speedup {s.get('speedup')}, flags {s.get('flags')}")
print("eval_check: OK (a KernelBench file judged against its Model in eager PyTorch)")
PY
"$socratic" eval "$root/tests/suite_gpu/gelu_linear_kernelbench.cu" \
  --problem "$root/tests/suite/problems/kernelbench/2_gelu_linear.py" \
  --cache-dir "$out/cache" -q -o "$out/report_model_state.json" | tee "$out/table_model_state.txt"
"$socratic" eval "$root/tests/suite_gpu/fused_add_rmsnorm_trace_set.cu" \
  --problem "$root/tests/suite/trace_set/definitions/norm/fused_add_rmsnorm_h2048.json" \
  --cache-dir "$out/cache" -q -o "$out/report_trace_set.json" | tee "$out/table_trace_set.txt"
"$SOCRATIC_REFERENCE_PYTHON" - "$out/report_model_state.json" "$out/report_trace_set.json" <<'PY'
import json, sys
for path, what, n in ((sys.argv[1], "KernelBench Model with weights", 1), (sys.argv[2], "TraceSet definition", 2)):
    r = json.load(open(path))
    assert not r.get("error"), (what, r.get("error"))
    assert len(r["scenarios"]) == n, (what, [s["id"] for s in r["scenarios"]])
    for s in r["scenarios"]:
        assert s["correct"], (what, s["id"], s.get("reason"))
        assert s.get("samples", 0) > 0 and s.get("baseline_ms", 0) > 0, (what, s["id"], "not timed")
        print(f"eval_check: {what} {s['id']}: baseline {s['baseline_ms']:.4f} ms, candidate "
              f"{s['candidate_ms']:.4f} ms, speedup {s.get('speedup')}, flags {s.get('flags')}")
print("eval_check: OK (a Model's weights as inputs, and a TraceSet definition, judged end to end)")
PY
