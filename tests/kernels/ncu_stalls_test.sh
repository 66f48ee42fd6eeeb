#!/usr/bin/env bash
# scripts/bench/ncu_stalls.py on a hand-made Nsight Compute source page (gzipped, as the runs keep
# them) whose totals are known: opcodes with modifiers and predicates grouped by mnemonic, an empty
# cell, the "(Not Issued)" columns ignored; then a page that is not one, a page without samples, a
# cell that is not a number and a missing file, each refused with the file named.
#   usage: tests/kernels/ncu_stalls_test.sh SOURCE_DIR
set -euo pipefail
script="$1/scripts/bench/ncu_stalls.py"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
header='"Address","Source","Warp Stall Sampling (All Samples)","stall_wait","stall_mio","stall_barrier","stall_wait (Not Issued)"'
{
  echo '"Kernel Name","void k<64>(float*)"'
  echo "$header"
  echo '"0x10","MUFU.EX2 R1, R2 ;","30","20","10","0","99"'
  echo '"0x20","@!P0 MUFU.EX2 R3, R4 ;","10","","10","0","99"'
  echo '"0x30","FMNMX R5, R5, R6, !PT ;","10","10","0","0","99"'
  echo '"0x40","BAR.SYNC.DEFER_BLOCKING 0x1, 0x100 ;","50","0","0","50","99"'
} | gzip > "$dir/page.csv.gz"
out=$(python3 "$script" "$dir/page.csv.gz" --top 2)
echo "$out"
fail=0
expect() {
  if ! grep -qE -- "$1" <<< "$out"; then
    echo "FAIL: expected a line matching: $1"
    fail=1
  fi
}
expect '^void k<64>\(float\*\)$'
expect '^samples 100: barrier 50\.0%, wait 30\.0%, mio 20\.0%$'
expect '^  BAR +50\.0%  \(barrier 50\.0\)$'
expect '^  MUFU +40\.0%  \(wait 20\.0, mio 20\.0\)$'
if grep -q FMNMX <<< "$out"; then
  echo "FAIL: --top 2 listed a third opcode"
  fail=1
fi
refused() {  # FILE EXPECTED-TEXT
  local got
  if got=$(python3 "$script" "$1" 2>&1) || ! grep -qF -- "$2" <<< "$got"; then
    echo "FAIL: expected a refusal naming '$2', got: $got"
    fail=1
  fi
}
printf 'a,b\n1,2\n' > "$dir/other.csv"
refused "$dir/other.csv" "other.csv: no header with 'Source' and stall_* columns"
printf '%s\n"0x10","FADD R1, R2, R3 ;","0","0","0","0","0"\n' "$header" > "$dir/empty.csv"
refused "$dir/empty.csv" "empty.csv: no warp-state samples"
printf '%s\n"0x10","FADD R1, R2, R3 ;","1","x","0","0","0"\n' "$header" > "$dir/word.csv"
refused "$dir/word.csv" "word.csv:2: column stall_wait: not a number: 'x'"
refused "$dir/absent.csv" "absent.csv: cannot read"
exit $fail
