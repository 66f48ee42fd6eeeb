#!/usr/bin/env bash
# Device call D49 (session 7): the [gpu] check of the stream hold (blocking_hold_check: holds,
# keeps the host's part out of the interval, gives up after its timeout) and a smoke run of
# sdpa_anchors.py after its ctypes binding moved to scripts/bench/attention_abi.py (two
# scenarios, one GQA, v24 in turns with cuDNN and FA2, held until enqueued). Built here and
# carried in .devcarry/ (blocking_hold_check, v24.so, blocking_hold.so). One tarball in $OUT.
set -u
r=/tmp/d49; mkdir -p $r
python3 - > /tmp/two.json <<'PY'
import json
d = json.load(open("scenarios/attention_fa3_grid.json"))
p = json.load(open("scenarios/attention_production.json"))
d["scenarios"] = [s for s in d["scenarios"] if s["id"] == "s512_d64_b32_h32_causal"]
d["scenarios"] += [dict(p.get("defaults", {}), **s) for s in p["scenarios"] if s["id"] == "llama3_8b_s2048_b4"]
print(json.dumps(d))
PY
timeout 120 .devcarry/blocking_hold_check > $r/blocking_hold_check.txt 2>&1
echo "blocking_hold_check exit $?" >> $r/summary.txt
timeout 120 python3 scripts/bench/sdpa_anchors.py --hold-flag .devcarry/blocking_hold.so \
  --impl v24=.devcarry/v24.so /tmp/two.json > $r/anchors.json 2> $r/anchors.log
echo "anchors exit $?" >> $r/summary.txt
tar czf $OUT/d49.tgz -C /tmp d49
