#!/usr/bin/env bash
# D157 (2026-12-04, one H200): the evidence suite's first round on the GPU (notebook/suite-evidence,
# "A round"), the tool of this session carried as .devcarry/d157.tar.xz (bin/socratic, devlib/).
# Found: the suite's campaigns had begun on the host with an older build of the judge, so every
# agent's turn-0 proposal was gated "failed: the judge changed since the campaign began" and the
# agents were sent back to try again (5 s, rounds 1-3). That is the person's fault, not the
# agents': fixed in this session (a changed judge is a configuration fault; a campaign of several
# agents stops at once with evaluator_error and stores nothing). The state this round wrote was not
# kept; suite.txt and anchors.txt are its output.
#   device: mkdir -p build && tar xJf .devcarry/d157.tar.xz -C build && export LD_LIBRARY_PATH=$PWD/build/devlib \
#           && ROUND_TIMEOUT=470 PATH=/usr/local/cuda/bin:$PATH bash notebook/suite-evidence/scripts/round.sh "$OUT"
