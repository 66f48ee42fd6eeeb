#!/usr/bin/env bash
# tools/research/bench/benchmark_tables.py on hand-made reports whose figures are known: anchors for two
# scenarios (1 TFLOP each), a `socratic eval --json` report (2 ms and 4 ms: 500 and 250 TFLOP/s)
# and a check_attention --jsonl report (1 ms and 2 ms, plus a row of another scenario file, which
# must be ignored); then a kernel timed in turns by sdpa_anchors.py beside a check_attention report
# of two implementations; then a malformed --jsonl row, a report of two implementations read
# without naming one, and a missing report, which must fail naming the file.
#   usage: tests/kernels/benchmark_tables_test.sh SOURCE_DIR
set -euo pipefail
script="$1/tools/research/bench/benchmark_tables.py"
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
# expect_refusal WHAT TEXT ARGS...: benchmark_tables.py ARGS must fail, its error containing TEXT.
expect_refusal() {
  local what=$1 text=$2 err
  shift 2
  if err=$(python3 "$script" "$@" 2>&1); then
    echo "FAIL: $what was accepted"
    fail=1
  elif ! grep -qF -- "$text" <<< "$err"; then
    echo "FAIL: the error for $what does not say '$text': $err"
    fail=1
  fi
}
expect '| a | 500.0 | 1000.0 | 400.0 | 200.0 |'
expect '| b | 250.0 | 500.0 | 500.0 | 250.0 |'
expect '- ev / ca: geomean of per-scenario ratios **0.500**'
expect '- ev / cuDNN: geomean of per-scenario ratios **0.791**'
expect '- ev: all correct = True, banned = 0, evaluation wall time 12.5 s'
expect '- ca: check_attention timing, 2 scenarios, all correct and timed = True; no hold'
expect '- **not timed alike**: anchors hold none, ev evaluator, ca hold none'

# Timed in turns by sdpa_anchors.py (--impl k, hold 500 us) and a check_attention report of two
# implementations, held alike (the report in the older hold_us form): the in-turns column comes
# first, the report's rows are base's.
cat > "$dir/held.json" <<'JSON'
{"timing": {"hold": "500 us", "in_turns": true}, "impls": {"k": "k.so"}, "sets": {"grid": [
  {"id": "a", "flops": 1e12, "k": {"tflops": 800.0, "samples": 20, "host_hidden": 20},
   "cudnn": {"tflops": 400.0, "samples": 20, "host_hidden": 19}, "flash": {"tflops": 200.0}},
  {"id": "b", "flops": 1e12, "k": {"tflops": 1000.0, "samples": 20, "host_hidden": 20},
   "cudnn": {"tflops": 500.0, "samples": 20, "host_hidden": 20}, "flash": {"tflops": 250.0}}]}}
JSON
cat > "$dir/two.jsonl" <<'JSONL'
{"file": "grid", "id": "a", "impl": "base", "median_ms": 4.0, "pass": true, "timing": {"hold_us": 500, "samples": 10, "host_hidden": 10}}
{"file": "grid", "id": "a", "impl": "k", "median_ms": 1.0, "pass": true, "timing": {"hold_us": 500, "samples": 10, "host_hidden": 9}}
{"file": "grid", "id": "b", "impl": "base", "median_ms": 4.0, "pass": true, "timing": {"hold_us": 500, "samples": 10, "host_hidden": 10}}
{"file": "grid", "id": "b", "impl": "k", "median_ms": 1.0, "pass": true, "timing": {"hold_us": 500, "samples": 10, "host_hidden": 10}}
JSONL
out=$(python3 "$script" "$dir/held.json" grid base="$dir/two.jsonl")
echo "$out"
expect '| scenario | k | base | cuDNN | FA2 |'
expect '| a | 800.0 | 250.0 | 400.0 | 200.0 |'
expect '- k / cuDNN: geomean of per-scenario ratios **2.000**'
expect '- base: check_attention timing, 2 scenarios, all correct and timed = True; hold 500 us, host part hidden in 20 of 20 samples'
expect '- k, cuDNN, FA2 (sdpa_anchors.py in turns): hold 500 us, host part hidden in 79 of 80 samples'
if grep -qF 'not timed alike' <<< "$out"; then
  echo "FAIL: columns held alike were flagged as not timed alike"
  fail=1
fi
# Held until enqueued (--hold-flag) on both sides: said so, and not flagged.
sed 's/"hold": "500 us"/"hold": "flag"/' "$dir/held.json" > "$dir/flag.json"
sed 's/"hold_us": 500/"hold": "flag"/' "$dir/two.jsonl" > "$dir/flag.jsonl"
out=$(python3 "$script" "$dir/flag.json" grid base="$dir/flag.jsonl")
echo "$out"
expect '- base: check_attention timing, 2 scenarios, all correct and timed = True; hold until each call was enqueued (blocking kernel), host part hidden in 20 of 20 samples'
if grep -qF 'not timed alike' <<< "$out"; then
  echo "FAIL: columns held alike (flag) were flagged as not timed alike"
  fail=1
fi
out=$(python3 "$script" "$dir/flag.json" grid base="$dir/two.jsonl")
expect '- **not timed alike**: anchors hold flag, base hold 500 us'
expect_refusal "a report named after the kernel timed in turns" "column 'k' is already taken" \
  "$dir/held.json" grid k="$dir/two.jsonl"
expect_refusal "a report of two implementations read without naming one" \
  "two.jsonl: holds implementations base, k; name the column after one" \
  "$dir/held.json" grid other="$dir/two.jsonl"
# NAME=REPORT#IMPL picks an implementation under another column name.
out=$(python3 "$script" "$dir/held.json" grid k_check="$dir/two.jsonl#k" base="$dir/two.jsonl")
expect '| a | 800.0 | 1000.0 | 250.0 | 400.0 | 200.0 |'
expect_refusal "#IMPL naming no implementation of the report" "timed.jsonl: holds implementations k" \
  "$dir/held.json" grid x="$dir/timed.jsonl#nope"
printf '{"file": "grid", "id": "a", "median_ms": 1.0}\n' > "$dir/bad.jsonl"
expect_refusal "a row without 'pass'" "bad.jsonl:1: not a check_attention --jsonl row" \
  "$dir/anchors.json" grid ca="$dir/bad.jsonl"
expect_refusal "a missing report" "missing.json: not a readable" \
  "$dir/anchors.json" grid ev="$dir/missing.json"
expect_refusal "a scenario set the anchors lack" "no scenario set 'nope'" "$dir/anchors.json" nope
exit $fail
