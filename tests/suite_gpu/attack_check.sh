#!/bin/sh
# The adversarial corpus against a suite problem, end to end on a GPU machine (issue 38): each
# cheat of tests/suite_gpu/attacks/ judged by the built tool's `socratic eval --problem
# tests/suite/problems/rmsnorm_h4096` against the suite's own baseline (the reference in eager
# PyTorch), and the honest candidate of tests/suite/eval as the control. Fails when a cheat has
# every workload correct or the control does not; a side stream (side_stream.cu) is held to the
# native corpus's contract (tests/adversarial/expected.json): caught on the largest workload
# (incorrect, or its speedup refused: side_stream, clock_mismatch, below_roofline), where the
# hidden work is long enough to show; on 4 us calls it is not (docs/benchmarks.md, D153).
# Usage: tests/suite_gpu/attack_check.sh SOCRATIC [PYTHON]
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
socratic=${1:?usage: attack_check.sh PATH/TO/socratic [PYTHON]}
export SOCRATIC_REFERENCE_PYTHON=${2:-/opt/torch/.venv/bin/python3}
export SOCRATIC_DATA_DIR="$root"
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
problem="$root/tests/suite/problems/rmsnorm_h4096"
status=0
judge() {  # judge NAME SOURCE EXPECT(caught|clean)
  "$socratic" eval "$2" --problem "$problem" --cache-dir "$out/cache" -q -o "$out/$1.json" > "$out/$1.txt" 2>&1
  "$SOCRATIC_REFERENCE_PYTHON" - "$out/$1.json" "$1" "$3" <<'PY' || status=1
import json, sys
path, name, expect = sys.argv[1:]
r = json.load(open(path))
scenarios = r.get("scenarios", [])
correct = bool(scenarios) and all(s.get("correct") for s in scenarios)
for s in scenarios:
    print(f"  {name} {s['id']}: correct={s.get('correct')} flags={s.get('flags')} "
          f"{(s.get('reason') or '')[:160]}")
if r.get("error"):
    print(f"  {name}: error: {r['error'][:200]}")
if expect == "clean" and not correct:
    print(f"attack_check: FAIL: the honest control {name} was not judged correct"); sys.exit(1)
if expect == "largest" and scenarios:
    big = scenarios[-1]  # rms-b4096, the set's largest
    refused = {"side_stream", "clock_mismatch", "below_roofline"} & set(big.get("flags", []))
    if big.get("correct") and not refused:
        print(f"attack_check: FAIL: {name} passed its largest workload {big['id']} with its speedup counted"); sys.exit(1)
    print(f"attack_check: {name}: caught on its largest workload {big['id']} "
          f"({'incorrect' if not big.get('correct') else 'speedup refused: ' + ','.join(sorted(refused))}); "
          f"the smaller ones: {[(s['id'], round(s.get('speedup') or 0, 2)) for s in scenarios[:-1]]}")
    sys.exit(0)
if expect == "caught" and correct:
    print(f"attack_check: FAIL: {name} passed with every workload correct"); sys.exit(1)
print(f"attack_check: {name}: {'clean' if correct else 'caught'} (expected {expect})")
PY
}
judge honest_control "$root/tests/suite/eval/rmsnorm_h4096_candidate.cu" clean
for attack in "$root"/tests/suite_gpu/attacks/*.cu; do
  name=$(basename "$attack" .cu)
  if [ "$name" = side_stream ]; then judge "$name" "$attack" largest; else judge "$name" "$attack" caught; fi
done
[ $status -eq 0 ] && echo "attack_check: OK (every cheat caught against the eager-PyTorch baseline, the control clean)"
exit $status
