#!/usr/bin/env bash
# tools/research/bench/ncu_stalls.py on a hand-made Nsight Compute source page (gzipped, as the runs keep
# them) whose totals are known: opcodes with modifiers and predicates grouped by mnemonic, an empty
# cell, the "(Not Issued)" columns ignored; then a page that is not one, a page without samples, a
# cell that is not a number and a missing file, each refused with the file named.
#   usage: tests/kernels/ncu_stalls_test.sh SOURCE_DIR
set -euo pipefail
script="$1/tools/research/bench/ncu_stalls.py"
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
source "$(dirname "$0")/script_checks.sh"
out=$(python3 "$script" "$dir/page.csv.gz" --top 2)
echo "$out"
expect_match "$out" '^void k<64>\(float\*\)$'
expect_match "$out" '^samples 100: barrier 50\.0%, wait 30\.0%, mio 20\.0%$'
expect_match "$out" '^  BAR +50\.0%  \(barrier 50\.0\)$'
expect_match "$out" '^  MUFU +40\.0%  \(wait 20\.0, mio 20\.0\)$'
expect_no_match "$out" 'FMNMX'  # --top 2
printf 'a,b\n1,2\n' > "$dir/other.csv"
expect_refusal "other.csv: no header with 'Source' and stall_* columns" python3 "$script" "$dir/other.csv"
printf '%s\n"0x10","FADD R1, R2, R3 ;","0","0","0","0","0"\n' "$header" > "$dir/empty.csv"
expect_refusal "empty.csv: no warp-state samples" python3 "$script" "$dir/empty.csv"
printf '%s\n"0x10","FADD R1, R2, R3 ;","1","x","0","0","0"\n' "$header" > "$dir/word.csv"
expect_refusal "word.csv:2: column stall_wait: not a number: 'x'" python3 "$script" "$dir/word.csv"
expect_refusal "absent.csv: cannot read" python3 "$script" "$dir/absent.csv"
exit $fail
