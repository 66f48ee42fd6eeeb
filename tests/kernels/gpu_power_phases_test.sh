#!/usr/bin/env bash
# tools/research/bench/gpu_power_phases.py on hand-made nvidia-smi samples whose per-phase figures are
# known: two phases, an idle sample inside one (below --busy-watts), a power-capped and an
# uncapped busy sample, an "[N/A]" sample and a line cut short; then phases without an end, an end
# without a start, a malformed phase line, and files that are missing or lack a column, each of
# which must fail naming the file and what was wrong.
#   usage: tests/kernels/gpu_power_phases_test.sh SOURCE_DIR
set -euo pipefail
script="$1/tools/research/bench/gpu_power_phases.py"
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
source "$(dirname "$0")/script_checks.sh"
out=$(python3 "$script" "$dir/smi.csv" "$dir/phases.txt")
echo "$out"
# s1 v24: 3 readable samples inside (600, 500, 120 W), 2 busy: 550 W, 1700 MHz, 1 of 2 capped.
expect_match "$out" '^s1 v24 +3 +2 +550\.0 +1700 +1/2$'
expect_match "$out" '^s1 other +1 +1 +650\.0 +1500 +1/1$'
expect_match "$(python3 "$script" "$dir/smi.csv" "$dir/phases_b.txt")" '^s1 other +1 +1 +650\.0 +1500 +1/1$'
printf '2026/11/29 10:00:00.9 start a\n' > "$dir/open.txt"
expect_refusal "open.txt: no end for: a" python3 "$script" "$dir/smi.csv" "$dir/open.txt"
printf '2026/11/29 10:00:00.9 end a\n' > "$dir/orphan.txt"
expect_refusal "orphan.txt:1: 'end a' without a start" python3 "$script" "$dir/smi.csv" "$dir/orphan.txt"
printf 'start a\n' > "$dir/short.txt"
expect_refusal "short.txt:1: expected 'DATE TIME start|end LABEL' or 'DATE TIME LABEL start|end'" \
  python3 "$script" "$dir/smi.csv" "$dir/short.txt"
printf 'yesterday noon start a\n' > "$dir/when.txt"
expect_refusal "when.txt:1: not a timestamp" python3 "$script" "$dir/smi.csv" "$dir/when.txt"
printf 'timestamp, power.draw [W]\n2026/11/29 10:00:00.000, 80 W\n' > "$dir/narrow.csv"
expect_refusal "narrow.csv: no column named like clocks.current.sm or clocks.sm" \
  python3 "$script" "$dir/narrow.csv" "$dir/phases.txt"
expect_refusal "absent.csv: cannot read" python3 "$script" "$dir/absent.csv" "$dir/phases.txt"
exit $fail
