#!/usr/bin/env bash
# Device call D67 (session 9): S in two parts at d128. D66: without the softmax d128 runs at 95% of
# the tensor rate (per clock, Nsight Compute), with it 82%; so the softmax's latency is exposed.
# Variants (versions/v26-session9-qk-split.patch, HOPPER_D128_QK_SPLIT[_NARROW]): the S GEMM of a
# key tile in two commit groups, keys [0, N) then the rest, the first part's softmax running while
# the second is computed. s64/s96/s128: N on the 192-key tiles; s96n64: and 64 of the 128-key tiles.
# 20 s smoke test, checks on the three sets, then the 12 d128 shapes timed in turns against v25
# (two passes, held until enqueued), and Nsight Compute's cycles on two long shapes.
set -u
r=/tmp/d67; mkdir -p $r
ca=.devcarry/check_attention
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
timeout 20 $ca --impl s96n64=.devcarry/d67/s96n64.so --no-timing \
  --only s512_d128_b32_h16,s4096_d128_b4_h16,s4096_d128_b4_h16_causal,s16384_d128_b1_h16_causal \
  scenarios/attention_fa3_grid.json > $r/smoke.txt 2>&1
rc=$?; say "smoke exit $rc: $(tail -1 $r/smoke.txt)"
if ((rc == 0)); then
  d128=$(python3 -c "import json; print(','.join(s['id'] for s in json.load(open('scenarios/attention_fa3_grid.json'))['scenarios'] if '_d128_' in s['id']))")
  ONLY=$d128 CHECK="s96 s64 s128 s96n64" CHECK_ATTENTION=$ca TIMING=--hold-flag timeout 420 kernels/attention/tools/ab_variants.sh $r \
    v25=.devcarry/d61/v25.so s96=.devcarry/d67/s96.so s64=.devcarry/d67/s64.so s128=.devcarry/d67/s128.so \
    s96n64=.devcarry/d67/s96n64.so >> $r/summary.txt 2>&1
  say "ab_variants exit $?"
  for s in s4096_d128_b4_h16 s16384_d128_b1_h16; do
    for v in v25=.devcarry/d61/v25.so s96=.devcarry/d67/s96.so s64=.devcarry/d67/s64.so s128=.devcarry/d67/s128.so; do
      n=${v%%=*}
      timeout 60 ncu --section SpeedOfLight -k regex:attention_fwd --launch-skip 1 --launch-count 1 --csv \
        $ca --impl $v --no-timing --only $s scenarios/attention_fa3_grid.json > $r/ncu_${n}_$s.csv 2> $r/ncu_${n}_$s.err
      say "ncu $n $s exit $? $(grep -h '"Elapsed Cycles"' $r/ncu_${n}_$s.csv | awk -F'","' '{print $NF}' | tr -d '"')"
    done
  done
fi
tar czf $OUT/d67.tgz --exclude=build -C /tmp d67
