#!/usr/bin/env bash
# The pair evaluator of the CPU softmax problem (tests/tool/cpu_problem): the candidate and a
# baseline of the caller's choice (the problem's baseline, or an incumbent) built as shared
# objects and timed interleaved by the problem's harness, which prints an EvalReport JSON.
# Usage: pair_evaluate.sh CANDIDATE.cpp BASELINE.cpp SCENARIOS.json
set -u
here="$(cd "$(dirname "$0")" && pwd)"
problem="$here/../../tool/cpu_problem"
candidate="$1"; baseline="$2"; scenarios="$3"
cxx="${CXX:-g++}"
cache="${TMPDIR:-/tmp}/socratic-evolve-cpu-$(sha256sum "$problem/harness.cpp" | cut -c1-16)"
mkdir -p "$cache"
if [[ ! -x "$cache/harness" ]]; then
  tmp=$(mktemp -d "$cache/build.XXXXXX")
  "$cxx" -O2 -std=c++17 -o "$tmp/harness" "$problem/harness.cpp" -ldl >&2 || exit 2
  mv "$tmp/harness" "$cache/" && rmdir "$tmp"
fi
# A shared object per source content: the incumbent is built once however often it is measured.
build() {
  local src="$1" key
  key=$(sha256sum "$src" | cut -c1-24)
  if [[ ! -f "$cache/$key.so" ]]; then
    local tmp; tmp=$(mktemp "$cache/$key.XXXXXX")
    if ! "$cxx" -O2 -std=c++17 -shared -fPIC -o "$tmp" "$src" > "$tmp.log" 2>&1; then
      rm -f "$tmp"; echo "$tmp.log"; return 1
    fi
    rm -f "$tmp.log"; mv "$tmp" "$cache/$key.so"
  fi
  echo "$cache/$key.so"
}
if ! cand_so=$(build "$candidate"); then
  log=$(head -c 3000 "$cand_so" | sed 's/\\/\\\\/g; s/"/\\"/g; s/\t/ /g' | awk '{printf "%s\\n", $0}')
  ids=$(grep -o '"id"[[:space:]]*:[[:space:]]*"[^"]*"' "$scenarios" | sed 's/.*"\([^"]*\)"$/"\1"/' | paste -sd, -)
  printf '{"schema_version":1,"problem":"softmax_cpu","built":false,"build_log":"%s","expected":[%s],"scenarios":[]}\n' "$log" "$ids"
  exit 0
fi
base_so=$(build "$baseline") || { echo "pair_evaluate.sh: the baseline $baseline does not build" >&2; exit 2; }
exec "$cache/harness" "$base_so" "$cand_so" "$scenarios"
