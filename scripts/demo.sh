#!/usr/bin/env bash
# Sets up (Debian 12 packages), builds the socratic tool and runs the main job: `socratic demo`.
# With a GPU (and an LLM key in the environment) the demo runs live; without, it replays the
# recorded campaign through the real machinery and says so. Usage: scripts/demo.sh [demo options]
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh

build_dir=${BUILD_DIR:-build}
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release \
  -DSOCRATIC_BUILD_TESTS=OFF -DSOCRATIC_BUILD_EXAMPLES=OFF
cmake --build "$build_dir" -j"$(nproc)" --target socratic_tool
exec "$build_dir/bin/socratic" demo "$@"
