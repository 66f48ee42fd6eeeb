#!/usr/bin/env bash
# How long one translation unit that runs a campaign with the LLM agent takes to compile:
# examples/openai_campaign.cpp (an evaluator that builds and times a CPU kernel in a child
# process, a question source, a goal, run_llm_campaign), at -O3, header-only and with
# SOCRATIC_SEPARATE_COMPILATION (the agent, its backends and the HTTP client then compile once,
# in socratic/src.hpp, also timed). Prints each run's wall and CPU seconds and the machine's load,
# since the figures mean little on a busy machine: CPU seconds are the steadier measure there.
# Usage: tools/research/bench/compile_llm_tu.sh [RUNS]   (CXX to choose the compiler)
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
runs=${1:-3}
cxx=${CXX:-c++}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags=(-std=gnu++20 -O3 -DNDEBUG -DBOOST_PROCESS_USE_STD_FS=1 -I"$root/include")
printf '#include <socratic/src.hpp>\n' > "$work/src.cpp"
echo "compiler: $("$cxx" --version | head -1); cores: $(nproc)"
measure() {  # NAME FILE [FLAGS...]
  local name=$1 file=$2
  shift 2
  for ((i = 1; i <= runs; ++i)); do
    local load
    load=$(cut -d' ' -f1 /proc/loadavg)
    /usr/bin/time -f "%e %U %S" -o "$work/time" "$cxx" "${flags[@]}" "$@" -c "$file" -o "$work/out.o"
    read -r wall user sys < "$work/time"
    printf '%-34s run %d: %6.1f s wall, %6.1f s CPU (load before %s)\n' "$name" "$i" "$wall" \
      "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" "$load"
  done
}
measure "one TU, header-only" "$root/examples/openai_campaign.cpp"
measure "one TU, SOCRATIC_SEPARATE_COMPILATION" "$root/examples/openai_campaign.cpp" -DSOCRATIC_SEPARATE_COMPILATION=1
measure "socratic/src.hpp, compiled once" "$work/src.cpp" -DSOCRATIC_SEPARATE_COMPILATION=1
