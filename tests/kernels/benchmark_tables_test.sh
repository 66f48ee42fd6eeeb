#!/usr/bin/env bash
# scripts/bench/benchmark_tables.py on hand-made reports whose figures are known: anchors for two
# scenarios (1 TFLOP each), a `socratic eval --json` report (2 ms and 4 ms: 500 and 250 TFLOP/s)
# and a check_attention --jsonl report (1 ms and 2 ms, plus a row of another scenario file, which
# must be ignored); then a malformed --jsonl row and a missing report, which must fail naming the file.
#   usage: tests/kernels/benchmark_tables_test.sh SOURCE_DIR
set -euo pipefail
script="$1/scripts/bench/benchmark_tables.py"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/anchors.json" <<'JSON'
{"sets": {"grid": [
  {"id": "a", "flops": 1e12, "cudnn": {"tflops": 400.0}, "flash": {"tflops": 200.0}},
  {"id": "b", "flops": 1e12, "cudnn": {"tflops": 500.0}, "flash": {"tflops": 250.0}}]}}
JSON
cat > "$dir/eval.json" <<'JSON'
{"all_correct": true, "banned": [], "timings": {"total_s": 12.5},
 "scenarios": [{"id": "a", "candidate_ms": 2.0, "correct": true},
               {"id": "b", "candidate_ms": 4.0, "correct": true}]}
JSON
cat > "$dir/timed.jsonl" <<'JSONL'
{"file": "grid", "id": "a", "impl": "k", "median_ms": 1.0, "pass": true}
{"file": "other", "id": "a", "impl": "k", "median_ms": 9.0, "pass": true}

{"file": "grid", "id": "b", "impl": "k", "median_ms": 2.0, "pass": true}
JSONL
out=$(python3 "$script" "$dir/anchors.json" grid ev="$dir/eval.json" ca="$dir/timed.jsonl")
echo "$out"
fail=0
expect() {
  if ! grep -qF -- "$1" <<< "$out"; then
    echo "FAIL: expected a line containing: $1"
    fail=1
  fi
}
expect '| a | 500.0 | 1000.0 | 400.0 | 200.0 |'
expect '| b | 250.0 | 500.0 | 500.0 | 250.0 |'
expect '- ev / ca: geomean of per-scenario ratios **0.500**'
expect '- ev / cuDNN: geomean of per-scenario ratios **0.791**'
expect '- ev: all correct = True, banned = 0, evaluation wall time 12.5 s'
expect '- ca: check_attention timing (the anchors'"'"' way), 2 scenarios, all correct and timed = True'
printf '{"file": "grid", "id": "a", "median_ms": 1.0}\n' > "$dir/bad.jsonl"
if err=$(python3 "$script" "$dir/anchors.json" grid ca="$dir/bad.jsonl" 2>&1); then
  echo "FAIL: a row without 'pass' was accepted"
  fail=1
elif ! grep -qF "bad.jsonl:1: not a check_attention --jsonl row" <<< "$err"; then
  echo "FAIL: the error does not name the file and line: $err"
  fail=1
fi
if err=$(python3 "$script" "$dir/anchors.json" grid ev="$dir/missing.json" 2>&1); then
  echo "FAIL: a missing report was accepted"
  fail=1
elif ! grep -qF "missing.json: not a readable" <<< "$err"; then
  echo "FAIL: the error does not name the missing report: $err"
  fail=1
fi
exit $fail
