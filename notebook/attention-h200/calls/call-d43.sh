#!/usr/bin/env bash
# Device calls D43 and D44 (session 6, the same script twice, each on whatever machine the call
# gets): does the level move with the GPU? D39 read the short shapes 2-5% below D30 for PTX that
# had not changed. Each call records the GPU's identity and state (UUID, serial, bus, power limit,
# temperature, clocks, throttle reasons) and times v24 (check_attention, twice) and cuDNN and
# FlashAttention-2 (sdpa_anchors.py) on the grid's 12 s512/s1024 shapes. One tarball in $OUT.
set -u
r=/tmp/d43; mkdir -p $r/build
q=uuid,serial,pci.bus_id,power.limit,power.draw,temperature.gpu,clocks.sm,clocks.mem,clocks_throttle_reasons.active
nvidia-smi --query-gpu=$q --format=csv > $r/gpu.csv 2>&1
nvidia-smi -q > $r/smi_q.txt 2>&1
python3 - > /tmp/short.json <<'PY'
import json
d = json.load(open("scenarios/attention_fa3_grid.json"))
d["scenarios"] = [s for s in d["scenarios"] if s["id"].startswith(("s512_", "s1024_"))]
print(json.dumps(d))
PY
nv=(nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels/attention)
"${nv[@]}" -shared -Xcompiler -fPIC -Xcompiler -fno-gnu-unique kernels/attention/hopper.cu -o $r/build/v24.so &
"${nv[@]}" -I kernels/harness kernels/attention/tools/check_attention.cu kernels/attention/problem.cu \
  kernels/attention/reference.cu -o $r/build/check_attention -ldl &
wait
for pass in a b; do
  timeout 90 $r/build/check_attention --impl v24=$r/build/v24.so --jsonl $r/v24_$pass.jsonl /tmp/short.json \
    > $r/v24_$pass.txt 2>&1; echo "v24 pass $pass exit $?" >> $r/summary.txt
done
timeout 120 python3 scripts/bench/sdpa_anchors.py /tmp/short.json > $r/anchors.json 2> $r/anchors.log
echo "anchors exit $?" >> $r/summary.txt
nvidia-smi --query-gpu=$q --format=csv,noheader >> $r/gpu.csv 2>&1
tar czf $OUT/d43.tgz --exclude=build -C /tmp d43
