#!/usr/bin/env bash
# tools/research/bench/tile_phases.py on a hand-made record file whose phases are known: two tiles of one
# warpgroup (4 key tiles each) and one tile of another; and on a malformed file, which must fail
# with the line named.
#   usage: tests/kernels/tile_phases_summary_test.sh SOURCE_DIR
set -euo pipefail
script="$1/tools/research/bench/tile_phases.py"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/known.csv" <<'CSV'
cta,wg,kv_iter,n_blocks,smid,c0,c1,c2,c3,c4,c5,ns0,ns5
0,0,0,4,1,100,200,900,2900,3400,3900,1000,5000
0,0,4,4,1,4000,4100,4800,6800,7300,7800,5100,9000
0,1,0,4,1,150,250,950,2950,3450,3950,1000,5000
CSV
out=$(python3 "$script" "$dir/known.csv")
echo "$out"
fail=0
expect() {
  if ! grep -qE "$1" <<< "$out"; then
    echo "FAIL: expected a line matching: $1"
    fail=1
  fi
}
expect '3 tile-warpgroups, 2 warpgroups, mean key tiles 4.00'
expect '^  q_wait +100 +100 '
expect '^  first +700 +700 '
expect '^  loop +2000 +2000 '
expect '^  gap +100 +100 '
expect '^  loop/kt +667 +667'
expect '^  period +3900 +3900'
printf 'cta,wg,kv_iter,n_blocks,smid,c0,c1,c2,c3,c4,c5,ns0,ns5\n0,0,0,4,1,100,x,900,2900,3400,3900,1000,5000\n' > "$dir/bad.csv"
if bad=$(python3 "$script" "$dir/bad.csv" 2>&1); then
  echo "FAIL: a malformed record was accepted"
  fail=1
elif ! grep -q "bad.csv:2: not a tile_phases record" <<< "$bad"; then
  echo "FAIL: the error does not name the file and line: $bad"
  fail=1
fi
if missing=$(python3 "$script" "$dir/absent.csv" 2>&1) || ! grep -q "absent.csv: cannot read" <<< "$missing"; then
  echo "FAIL: a missing file is not reported as such: $missing"
  fail=1
fi
exit $fail
