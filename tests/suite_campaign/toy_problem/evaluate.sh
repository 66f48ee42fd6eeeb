#!/usr/bin/env bash
# Evaluator command of the suite tests' toy CPU problems (tests/suite_campaign): a stand-in judge
# that costs milliseconds, so that a suite of three problems and many proposals runs in seconds.
# The candidate's "time" comes from a table of content hashes: TABLE holds lines
# `HASH8 MS CORRECT` (the first 8 hex digits of the file's SHA-256, its time in ms on every
# scenario, 1 or 0); a file the table lacks takes 1.0 ms, the baseline's time. Deterministic:
# the same bytes always get the same report. Prints an EvalReport JSON (docs/report-schema.md).
# Usage: evaluate.sh CANDIDATE SCENARIOS.json TABLE
set -u
candidate="$1"; scenarios="$2"; table="$3"
hash=$(sha256sum "$candidate" | cut -c1-8)
ms=1.0; correct=1
while read -r h m c; do
  if [[ "$h" == "$hash" ]]; then ms="$m"; correct="$c"; fi
done < "$table"
ids=$(grep -o '"id"[[:space:]]*:[[:space:]]*"[^"]*"' "$scenarios" | sed 's/.*"\([^"]*\)"$/\1/')
expected=""; results=""
for id in $ids; do
  expected+="${expected:+,}\"$id\""
  speedup=$(awk -v m="$ms" 'BEGIN { printf "%.6f", 1.0 / m }')
  if [[ "$correct" == 1 ]]; then ok=true; reason=""; else ok=false; reason="max error 0.5 > tolerance 0.01"; fi
  results+="${results:+,}{\"id\":\"$id\",\"correct\":$ok,\"reason\":\"$reason\",\"candidate_ms\":$ms,\"baseline_ms\":1.0,"
  results+="\"candidate_noise\":0.002,\"baseline_noise\":0.002,\"samples\":30,\"speedup\":$speedup,\"roofline_fraction\":$(awk -v m="$ms" 'BEGIN { printf "%.4f", 0.25 / m }')}"
done
printf '{"schema_version":1,"problem":"toy_cpu","gpu":"cpu","arch":"cpu","built":true,"expected":[%s],"scenarios":[%s]}\n' "$expected" "$results"
