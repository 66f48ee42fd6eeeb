#!/usr/bin/env bash
# A scripted mutation agent for the CPU softmax problem: no model, the same answer to the same
# task. It reads task.json in its workspace (the current folder) and edits kernel.cpp:
# - a question of the `compute` or `memory` groups, or a crossover: the next step of a ladder of
#   real rewrites (steps/step1.cpp .. step3.cpp; a crossover starts from the higher parent);
# - the plain instruction ("make it faster"): the next step for half of the workspaces (by the
#   name's hash), a comment for the other half;
# - any other question: a comment only (the novelty filter's duplicate).
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
kind=$(grep -o '"kind": *"[^"]*"' task.json | sed 's/.*"\([^"]*\)"$/\1/')
question=$(grep -o '"question_id": *"[^"]*"' task.json | sed 's/.*"\([^"]*\)"$/\1/')
step_of() { grep -o 'step: [0-9]*' "$1" 2>/dev/null | head -1 | cut -d' ' -f2 || true; }
step=$(step_of kernel.cpp); step=${step:-0}
if [[ "$kind" == crossover && -f parent_b.cpp ]]; then
  b=$(step_of parent_b.cpp); b=${b:-0}
  (( b > step )) && step=$b
fi
advance=0
case "$kind:$question" in
  crossover:*) advance=1 ;;
  question:compute.*|question:memory.*) advance=1 ;;
  mutation:*) (( $(printf '%s' "$(basename "$PWD")" | cksum | cut -d' ' -f1) % 2 == 0 )) && advance=1 ;;
esac
next=$((step + 1))
if (( advance )) && [[ -f "$here/steps/step$next.cpp" ]]; then
  cp "$here/steps/step$next.cpp" kernel.cpp
  echo "rewrote kernel.cpp to step $next for: $question"
else
  printf '// considered: %s\n' "${question:-make it faster}" >> kernel.cpp
  echo "no change for: $question"
fi
