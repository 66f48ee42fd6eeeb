#!/bin/sh
# run_shard.sh COUNT INDEX PROGRAM [SPEC] [ARGS...]: runs the INDEX-th of COUNT shares of a Catch2
# program's test cases (every COUNT-th name of its list, from INDEX), so that CTest can run one long
# program's cases in several processes at once. SPEC (a test spec such as "[exec]", or "" for all)
# chooses the cases before they are shared; ARGS go to the program. A share that holds no case, or
# a name that does not come back from the program's own list, is an error: nothing passes unrun.
set -eu
count=$1 index=$2 program=$3 spec=${4:-}
shift 3
[ $# -gt 0 ] && shift
names=$(mktemp)
listed=$(mktemp)
trap 'rm -f "$names" "$listed"' EXIT
# Catch2 v2 exits with the number of cases listed, so the status says nothing here. A program that
# skips on this machine (the project's mains print "SKIPPED: why" and exit 77) skips each share.
if [ -n "$spec" ]; then "$program" "$spec" --list-test-names-only >"$listed" || true
else "$program" --list-test-names-only >"$listed" || true; fi
if grep -q '^SKIPPED:' "$listed"; then
  cat "$listed"
  exit 77
fi
# Catch2 test specs treat , [ ] \ * " ~ specially: escape them so that each name matches itself.
awk -v n="$count" -v i="$index" 'NF { if (k++ % n == i) print }' "$listed" | sed 's/[],[\\*"~]/\\&/g' >"$names"
want=$(wc -l <"$names")
if [ "$want" -eq 0 ]; then
  echo "run_shard: share $index of $count of $program holds no test case" >&2
  exit 1
fi
got=$("$program" -f "$names" --list-test-names-only | awk 'NF' | wc -l)
if [ "$got" -ne "$want" ]; then
  echo "run_shard: $want test names chosen, but $program matches $got of them" >&2
  exit 1
fi
exec "$program" -f "$names" "$@"
