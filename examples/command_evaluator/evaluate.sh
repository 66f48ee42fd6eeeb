#!/usr/bin/env bash
# The evaluator command of the template (socratic init --evaluator-command): builds the candidate
# into a shared object, runs the harness (built once, cached by content) against the baseline on
# every scenario, and prints one EvalReport JSON on stdout (docs/report-schema.md). A compile
# error is a report too (built: false, with the log); a candidate byte-identical to the baseline
# is reported `identical_to_baseline` (it is never faster). Usage: evaluate.sh CANDIDATE SCENARIOS
set -u
here="$(cd "$(dirname "$0")" && pwd)"
candidate="$1"; scenarios="$2"
cxx="${CXX:-c++}"
key=$(cat "$here/harness.cpp" "$here/baseline.cpp" | sha256sum | cut -c1-16)
cache="${TMPDIR:-/tmp}/socratic-template-$key"
if [[ ! -x "$cache/harness" || ! -f "$cache/baseline.so" ]]; then
  mkdir -p "$cache"
  tmp=$(mktemp -d "$cache/build.XXXXXX")
  "$cxx" -O2 -std=c++17 -o "$tmp/harness" "$here/harness.cpp" -ldl >&2 &&
    "$cxx" -O2 -std=c++17 -shared -fPIC -o "$tmp/baseline.so" "$here/baseline.cpp" >&2 || exit 2
  mv "$tmp/harness" "$tmp/baseline.so" "$cache/" && rmdir "$tmp"
fi
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
if ! "$cxx" -O2 -std=c++17 -shared -fPIC -o "$work/candidate.so" "$candidate" > "$work/log" 2>&1; then
  log=$(head -c 3000 "$work/log" | sed 's/\\/\\\\/g; s/"/\\"/g; s/\t/ /g' | awk '{printf "%s\\n", $0}')
  ids=$(grep -o '"id"[[:space:]]*:[[:space:]]*"[^"]*"' "$scenarios" | sed 's/.*"\([^"]*\)"$/"\1"/' | paste -sd, -)
  printf '{"schema_version":1,"problem":"row_norms","built":false,"build_log":"%s","expected":[%s],"scenarios":[]}\n' "$log" "$ids"
  exit 0
fi
same=()
if cmp -s "$candidate" "$here/baseline.cpp"; then same=(--identical-to-baseline); fi
exec "$cache/harness" "$cache/baseline.so" "$work/candidate.so" "$scenarios" "${same[@]}"
