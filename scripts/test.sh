#!/usr/bin/env bash
# Sets up (Debian 12 packages, agent CLIs for the end-to-end hook tests), builds everything and
# runs the whole test suite. Usage: scripts/test.sh   (BUILD_DIR=... to choose the build folder)
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh --tests
if [[ -x scripts/install-agent-clis.sh ]]; then
  scripts/install-agent-clis.sh
fi

build_dir=${BUILD_DIR:-build}
# The tool and Socratic's definitions compiled once at -O0, as the test programs are: the tests
# check behaviour, not speed (a release build keeps -O1; docs/benchmarks.md, "Build and test time").
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DSOCRATIC_TOOL_OPTIMIZATION=-O0 \
  -DSOCRATIC_HARNESS_HOST_OPTIMIZATION=-O0
# One job more than there are cores: nvcc's many short processes leave a core idle between them.
jobs=$(($(nproc) + 1))
cmake --build "$build_dir" -j"$jobs"
# The tests spend much of their time waiting on child processes (nvcc, servers, Slurm, agent CLIs,
# the packaging builds): twice as many at once as there are cores (on 2 cores: 193 s against 219 s
# with one more than the cores, docs/benchmarks.md).
# A fresh build folder starts from the tests' costs measured on a fresh clone (tests/ctest-costs.txt),
# so that ctest starts the longest first instead of in the order they were declared (the suite's
# long tests came last and ran alone at the end); ctest updates the file with each run.
costs="$build_dir/Testing/Temporary/CTestCostData.txt"
if [[ ! -f $costs ]]; then
  mkdir -p "$(dirname "$costs")"
  cp tests/ctest-costs.txt "$costs"
fi
ctest --test-dir "$build_dir" --output-on-failure --timeout 1800 --parallel $((2 * $(nproc)))
