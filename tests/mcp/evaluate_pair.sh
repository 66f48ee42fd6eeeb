#!/usr/bin/env bash
# The CPU softmax problem's evaluator (tests/tool/cpu_problem/evaluate.sh) with the baseline as an
# argument, as the gate needs it: the candidate timed against BASELINE (the store's incumbent).
# Usage: evaluate_pair.sh CANDIDATE.cpp BASELINE.cpp SCENARIOS.json
set -u
problem="$(cd "$(dirname "$0")/../tool/cpu_problem" && pwd)"
candidate="$1"; baseline="$2"; scenarios="$3"
cxx="${CXX:-g++}"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
key=$(sha256sum "$problem/harness.cpp" | cut -c1-16)
cache="${TMPDIR:-/tmp}/socratic-softmax-cpu-pair-$key"
if [[ ! -x "$cache/harness" ]]; then
  mkdir -p "$cache" && "$cxx" -O2 -std=c++17 -o "$work/harness" "$problem/harness.cpp" -ldl >&2 && mv "$work/harness" "$cache/" || exit 2
fi
"$cxx" -O2 -std=c++17 -shared -fPIC -o "$work/baseline.so" "$baseline" >&2 || exit 2
if ! "$cxx" -O2 -std=c++17 -shared -fPIC -o "$work/candidate.so" "$candidate" > "$work/log" 2>&1; then
  printf '{"schema_version":1,"problem":"softmax_cpu","built":false,"build_log":"build failed","scenarios":[]}\n'
  exit 0
fi
same=()
if cmp -s "$candidate" "$baseline"; then same=(--identical-to-baseline); fi
exec "$cache/harness" "$work/baseline.so" "$work/candidate.so" "$scenarios" "${same[@]}"
