#!/bin/sh
# Builds trace_append_bench against the locked TraceWriter (this tree) and against the one before
# it (git revision BEFORE, default 384592d), runs both REPEATS times (default 3) on DIR.
# Usage: run.sh [DIR] [EVENTS] [PROCESSES]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
dir=${1:-/tmp/socratic-trace-bench}
events=${2:-20000}
processes=${3:-4}
before=${BEFORE:-384592d}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/old/socratic/campaign"
git -C "$root" show "$before:include/socratic/campaign/trace.hpp" > "$work/old/socratic/campaign/trace.hpp"
g++ -std=c++20 -O2 -I"$work/old" -I"$root/include" "$here/trace_append_bench.cpp" -o "$work/bench_before"
g++ -std=c++20 -O2 -I"$root/include" "$here/trace_append_bench.cpp" -o "$work/bench_after"
for run in $(seq "${REPEATS:-3}"); do  # alternated, so that the machine's load falls on both
  echo "== run $run, before ($before: seq counted at open, no lock)"
  "$work/bench_before" "$dir/before" "$events" "$processes"
  echo "== run $run, after (flock per append, catch-up read)"
  "$work/bench_after" "$dir/after" "$events" "$processes"
done
