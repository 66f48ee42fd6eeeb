#!/usr/bin/env bash
# Records the small campaign that `socratic demo` replays when no GPU recording exists.
# A scripted agent (three fixed candidate versions, three fixed final messages, written by us)
# stops three times under the real `socratic hook stop`; each stop is judged by the real evaluator
# command of the CPU softmax test problem (tests/tool/cpu_problem: g++ builds, an fp64 reference,
# interleaved timing on this machine's CPU). Nothing in the trace is invented: every number in it
# was measured by that run. It is a CPU problem: none of it is a GPU figure.
# It writes the recording into demo/softmax-cpu/ (the folder the tool installs and replays).
# Usage: notebook/softmax-cpu/record.sh PATH/TO/socratic
set -euo pipefail
socratic="$(realpath "$1")"
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
dest="$root/demo/softmax-cpu"
problem="$root/tests/tool/cpu_problem"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT

goal='{"all_of":[{"all_correct":{}},{"every_scenario_speedup_at_least":1.1},{"no_banned_libraries":{}}]}'
"$socratic" init "$work/ws" --problem softmax_cpu --scenarios "$problem/scenarios.json" \
  --baseline "$problem/baseline.cpp" --evaluator-command "bash $problem/evaluate.sh {candidate} {scenarios}" \
  --goal "$goal" --arch cpu --agent none \
  --task "Make candidate.cpp (row softmax, float32) at least 1.1x faster than the baseline on every scenario, correct on each." >/dev/null

stop() {  # stop CANDIDATE MESSAGE ACTIVE
  cp "$1" "$work/ws/candidate.cpp"
  printf '{"session_id":"recording","cwd":"%s","hook_event_name":"Stop","stop_hook_active":%s,"last_assistant_message":%s}' \
    "$work/ws" "$3" "$(printf '%s' "$2" | sed 's/\\/\\\\/g; s/"/\\"/g; s/^/"/; s/$/"/')" |
    "$socratic" hook stop --campaign "$work/ws/campaign.json" >/dev/null 2>&1
}
stop "$problem/baseline.cpp" "I profiled the baseline: it is memory-bound and already at the hardware limit, so it cannot be improved further." false
stop "$problem/fast_tail_bug.cpp" "Done: the unrolled float version is about 2.5x faster. The mismatch on r128_c4097 is float rounding noise at an odd width, which is acceptable." true
stop "$problem/fast_fixed.cpp" "Handled the remainder columns: every scenario is correct and faster than the baseline." true

rm -rf "$dest/candidates" "$dest/trace.jsonl"
cp -r "$work/ws/.socratic/candidates" "$dest/candidates"
cp "$work/ws/.socratic/trace.jsonl" "$dest/trace.jsonl"
cp "$problem/baseline.cpp" "$dest/baseline.cpp"
cat > "$dest/recording.json" <<JSON
{
  "title": "Row softmax on the CPU",
  "description": "Recorded $(date -u +%Y-%m-%d) by notebook/softmax-cpu/record.sh on a 2-core development machine without a GPU: a scripted agent stopped three times under socratic hook stop, each stop judged by the real evaluator command of the CPU softmax test problem (tests/tool/cpu_problem). CPU timings, not GPU figures.",
  "goal": $goal,
  "baseline": "baseline.cpp",
  "problem": "softmax_cpu"
}
JSON
echo "recorded into $dest"
