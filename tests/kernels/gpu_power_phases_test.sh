#!/usr/bin/env bash
# scripts/bench/gpu_power_phases.py on hand-made nvidia-smi samples whose per-phase figures are
# known: two phases, an idle sample inside one (below --busy-watts), a power-capped and an
# uncapped busy sample, an "[N/A]" sample and a line cut short; then phases without an end, an end
# without a start, a malformed phase line, and files that are missing or lack a column, each of
# which must fail naming the file and what was wrong.
#   usage: tests/kernels/gpu_power_phases_test.sh SOURCE_DIR
set -euo pipefail
script="$1/scripts/bench/gpu_power_phases.py"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/smi.csv" <<'CSV'
timestamp, power.draw [W], clocks.current.sm [MHz], temperature.gpu, clocks_event_reasons.active
2026/11/29 10:00:00.000, 80.00 W, 345 MHz, 30, 0x0000000000000001
2026/11/29 10:00:01.000, 600.00 W, 1600 MHz, 50, 0x0000000000000004
2026/11/29 10:00:01.500, 500.00 W, 1800 MHz, 50, 0x0000000000000000
2026/11/29 10:00:01.700, 120.00 W, 1980 MHz, 50, 0x0000000000000000
2026/11/29 10:00:01.800, [N/A], 1980 MHz, 50, 0x0000000000000000
2026/11/29 10:00:03.000, 650.00 W, 1500 MHz, 55, 0x0000000000000004
2026/11/29 10:00:03.500, 690.0
CSV
cat > "$dir/phases.txt" <<'TXT'
2026/11/29 10:00:00.900000000 start s1 v24
2026/11/29 10:00:01.900000000 end s1 v24
2026/11/29 10:00:02.900000000 start s1 other
2026/11/29 10:00:03.900000000 end s1 other
TXT
# The other order some calls write (label, then start or end), with dashes in the date.
cat > "$dir/phases_b.txt" <<'TXT'
2026-11-29 10:00:02.900000000 s1 other start
2026-11-29 10:00:03.900000000 s1 other end
TXT
out_b=$(python3 "$script" "$dir/smi.csv" "$dir/phases_b.txt")
out=$(python3 "$script" "$dir/smi.csv" "$dir/phases.txt")
echo "$out"
fail=0
expect() {
  if ! grep -qE -- "$1" <<< "$out"; then
    echo "FAIL: expected a line matching: $1"
    fail=1
  fi
}
# s1 v24: 3 readable samples inside (600, 500, 120 W), 2 busy: 550 W, 1700 MHz, 1 of 2 capped.
expect '^s1 v24 +3 +2 +550\.0 +1700 +1/2$'
expect '^s1 other +1 +1 +650\.0 +1500 +1/1$'
if ! grep -qE '^s1 other +1 +1 +650\.0 +1500 +1/1$' <<< "$out_b"; then
  echo "FAIL: label-then-start phases not read: $out_b"
  fail=1
fi
refused() {  # SMI PHASES EXPECTED-TEXT
  local got
  if got=$(python3 "$script" "$1" "$2" 2>&1) || ! grep -qF -- "$3" <<< "$got"; then
    echo "FAIL: expected a refusal naming '$3', got: $got"
    fail=1
  fi
}
printf '2026/11/29 10:00:00.9 start a\n' > "$dir/open.txt"
refused "$dir/smi.csv" "$dir/open.txt" "open.txt: no end for: a"
printf '2026/11/29 10:00:00.9 end a\n' > "$dir/orphan.txt"
refused "$dir/smi.csv" "$dir/orphan.txt" "orphan.txt:1: 'end a' without a start"
printf 'start a\n' > "$dir/short.txt"
refused "$dir/smi.csv" "$dir/short.txt" "short.txt:1: expected 'DATE TIME start|end LABEL' or 'DATE TIME LABEL start|end'"
printf 'yesterday noon start a\n' > "$dir/when.txt"
refused "$dir/smi.csv" "$dir/when.txt" "when.txt:1: not a timestamp"
printf 'timestamp, power.draw [W]\n2026/11/29 10:00:00.000, 80 W\n' > "$dir/narrow.csv"
refused "$dir/narrow.csv" "$dir/phases.txt" "narrow.csv: no column named like clocks.current.sm or clocks.sm"
refused "$dir/absent.csv" "$dir/phases.txt" "absent.csv: cannot read"
exit $fail
