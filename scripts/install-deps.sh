#!/usr/bin/env bash
# Installs Socratic's build and test dependencies from Debian 12 packages, only those missing.
# Usage: scripts/install-deps.sh [--tests]   (--tests adds what the test suite needs: chromium, python3, python3-torch, slurm-wlm, munge)
set -euo pipefail

# binutils: strip and readelf (scanner tests); zstd: the scanner decompresses zstd-compressed
# fatbin entries with it; bubblewrap: the OS sandbox of the agent's shell (docs/llm-agent.md);
# libcli11-dev: the `socratic` tool's command-line parser (header-only); libboost-url1.81-dev:
# Boost.URL, which parses the model servers' and proxies' URLs (http/url.hpp) and, unlike most of
# Boost, is a compiled library in Boost 1.81 (the SDK's CMake target links Boost::url).
packages=(cmake g++ make pkg-config libboost1.81-dev libboost-url1.81-dev nlohmann-json3-dev catch2 libssl-dev
  openssl binutils zstd bubblewrap libcli11-dev)
if [[ "${1:-}" == "--tests" ]]; then
  # chromium renders the HTML report; zlib decodes its screenshot; npm installs the real agent CLIs
  # (scripts/install-agent-clis.sh). An npm already on PATH (e.g. from another Node.js build) is kept.
  packages+=(chromium zlib1g-dev)
  # python3 runs the benchmark summary scripts' tests (tests/kernels).
  packages+=(python3)
  # python3-torch (1.13, CPU only) and python3-numpy: the judge's reference worker and the
  # KernelBench describer (kernels/harness/python, tests/suite_python) run PyTorch references on CPU.
  packages+=(python3-torch python3-numpy)
  # slurm-wlm and munge: the executor's tests start a single-node Slurm (slurmctld, slurmd) on
  # localhost under a temporary folder (tests/exec).
  packages+=(slurm-wlm munge)
  command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi

echo "socratic: installing missing Debian packages: ${missing[*]}" >&2
sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
