#!/usr/bin/env bash
# D158 (2026-12-04, one H200): the evidence suite's first judged round (notebook/suite-evidence).
# The suite's campaigns started on the device itself (no state carried: the judge they record is
# the one that judges), the six agents' turn-0 answers in their inboxes; the tool of this session
# carried as .devcarry/d158.tar.xz (bin/socratic, devlib/). The state it wrote is committed as
# notebook/suite-evidence/state.tar.xz with the mailboxes; suite.txt and anchors.txt are its output.
#   device: mkdir -p build && tar xJf .devcarry/d158.tar.xz -C build && export LD_LIBRARY_PATH=$PWD/build/devlib \
#           && ROUND_TIMEOUT=480 PATH=/usr/local/cuda/bin:$PATH bash notebook/suite-evidence/scripts/round.sh "$OUT"
