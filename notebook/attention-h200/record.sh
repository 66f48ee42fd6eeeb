#!/usr/bin/env bash
# Records the attention campaign in Campaign's trace schema on a GPU machine: the agent (the
# project's engineers, who wrote the candidate versions) stops once per version under the real
# `socratic hook stop`; every stop is judged by the real CUDA evaluator (build, fp32-reference and
# baseline checks on every scenario, interleaved timing against the baseline, banned-library scan)
# on the FA3 grid, and the hook asks the bank's question for the moment. The final messages are the
# claims made at the time (stops/*.txt). Nothing in the trace is invented.
#
# Usage (repository root, on the GPU machine):
#   notebook/attention-h200/record.sh SOCRATIC WORKDIR DEST [CANDIDATE.cu MESSAGE.txt]...
# WORKDIR holds the campaign between calls (created by `socratic init` when missing); after the
# stops, DEST receives trace.jsonl, candidates/, hook-N.txt (what the agent was told) and
# recording.json (DEST: demo/attention-h200 for the recording the tool replays). SOCRATIC_DATA_DIR and SOCRATIC_CACHE_DIR are honoured.
set -euo pipefail
socratic="$(realpath "$1")"; work="$2"; dest="$3"; shift 3
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"

# cuDNN's FA3-grid geomean was 2.23x the baseline's in the same run (notebook/benchmarks.md, session 1, call B):
# the campaign's goal is to be at least there, correct everywhere, with no banned library. cuDNN's
# per-scenario TFLOP/s from that run are the anchors of the suspicious-gain check; cuDNN is the
# other implementation the bank's comparison questions refer to.
goal='{"all_of":[{"all_correct":{}},{"geomean_speedup_at_least":2.24},{"no_banned_libraries":{}}]}'
if [[ ! -f "$work/ws/campaign.json" ]]; then
  mkdir -p "$work"
  "$socratic" init "$work/ws" --problem attention --scenarios "$root/scenarios/attention_fa3_grid.json" \
    --goal "$goal" --arch sm_90 --agent none --has-reference --campaign-id attention-h200 \
    --anchors "$here/anchors-cudnn-h200.json" \
    --task "Make candidate.cu (attention forward, bf16, sm_90a, one CUDA file, no CUTLASS/CuTe/cuBLAS/cuDNN) at least as fast as cuDNN on the FA3 grid: geomean at least 2.24x the baseline, every scenario correct." >/dev/null
  echo false > "$work/active"
fi

while [[ $# -ge 2 ]]; do
  cand="$1"; msg="$2"; shift 2
  n=$(( $(find "$work" -maxdepth 1 -name 'hook-*.json' | wc -l) + 1 ))
  cp "$cand" "$work/ws/candidate.cu"
  python3 - "$work/ws" "$(cat "$work/active")" "$msg" > "$work/stdin.json" <<'PY'
import json, sys
print(json.dumps({"session_id": "attention-h200", "cwd": sys.argv[1], "hook_event_name": "Stop",
                  "stop_hook_active": sys.argv[2] == "true",
                  "last_assistant_message": open(sys.argv[3]).read().strip()}))
PY
  start=$(date +%s)
  "$socratic" hook stop --campaign "$work/ws/campaign.json" < "$work/stdin.json" \
    > "$work/hook-$n.json" 2> "$work/hook-$n.txt"
  echo "stop $n ($(basename "$cand")): $(( $(date +%s) - start )) s, $(head -c 300 "$work/hook-$n.txt" | tr '\n' ' ')"
  # A blocked stop sends the agent back: its next stop continues the same chain.
  if grep -q '"block"' "$work/hook-$n.json"; then echo true > "$work/active"; else echo false > "$work/active"; fi
done

mkdir -p "$dest"
rm -rf "$dest/candidates"
cp -r "$work/ws/.socratic/candidates" "$dest/candidates"
cp "$work/ws/.socratic/trace.jsonl" "$dest/trace.jsonl"
cp "$work"/hook-*.txt "$dest/" 2>/dev/null || true
cp "$root/kernels/attention/baseline.cu" "$dest/baseline.cu"
cat > "$dest/recording.json" <<JSON
{
  "title": "Attention forward on one H200",
  "description": "Recorded on an NVIDIA H200 by notebook/attention-h200/record.sh: the project's engineers, acting as the agent, stopped once per kernel version under socratic hook stop; every stop was judged by the real CUDA evaluator on the 36-scenario FA3 grid (bf16), and the hook asked the question bank. Final messages are the claims made at the time (notebook/attention-h200/stops/). Measured figures, H200.",
  "goal": $goal,
  "baseline": "baseline.cu",
  "problem": "attention"
}
JSON
echo "recorded into $dest"
