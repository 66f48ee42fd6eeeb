#!/bin/sh
# check_coverage.sh PROGRAM SPECS: fails when a case of the Catch2 program PROGRAM (a hidden one
# aside) is chosen by none of the test specs in the file SPECS (one per line, those its CTest
# entries run): a case in a file that no area lists would otherwise pass unrun. A program that
# skips on this machine (its main prints "SKIPPED: why" and exits 77) skips this check too.
set -eu
program=$1 specs=$2
all=$(mktemp)
chosen=$(mktemp)
trap 'rm -f "$all" "$chosen"' EXIT
# Catch2 v2 exits with the number of cases listed, so the status says nothing here.
"$program" --list-test-names-only >"$all" || true
if grep -q '^SKIPPED:' "$all"; then
  cat "$all"
  exit 77
fi
if ! awk 'NF' "$all" | grep -q .; then
  echo "check_coverage: $program lists no test case" >&2
  exit 1
fi
while IFS= read -r spec; do
  [ -n "$spec" ] || continue
  "$program" "$spec" --list-test-names-only >>"$chosen" || true
done <"$specs"
missing=$(awk 'NF' "$all" | sort -u | comm -23 - "$(sort -u "$chosen" -o "$chosen"; echo "$chosen")")
if [ -n "$missing" ]; then
  echo "check_coverage: cases of $program that no CTest entry runs (list their file in its area's socratic_add_test):" >&2
  echo "$missing" >&2
  exit 1
fi
echo "check_coverage: every case of $program is run by its CTest entries ($(awk 'NF' "$all" | wc -l) cases)"
