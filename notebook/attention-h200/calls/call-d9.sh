#!/usr/bin/env bash
# Device call D9 (2026-11-29, session 3): v8 = v7 with v4's softmax code unchanged at d128/d256 and
# three consumer warpgroups for causal persistent d64 from seqlen_q 2048 (D7 +3%, D8 +5% there),
# against v4; and the free-epilogue bound (v8 without its epilogue: timing only, wrong results).
# One tarball in $OUT.
set -u
r=/tmp/d9; mkdir -p $r
V=docs/campaigns/attention-h200/versions H=kernels/attention/hopper.cu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $r/summary.txt 2>&1
CHECK="v8" timeout 300 kernels/attention/tools/ab_variants.sh $r v4=$V/v4-hopper.cu v8=$H >> $r/summary.txt 2>&1
B=$r/build
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels/attention -shared -Xcompiler -fPIC \
  -Xcompiler -fno-gnu-unique -DHOPPER_FREE_EPILOGUE=1 $H -o $B/freeepi.so
timeout 200 $B/check_attention --impl v8=$B/v8.so --impl freeepi=$B/freeepi.so --time-failing freeepi \
  --trial-list 0 --jsonl $r/free_epilogue.jsonl scenarios/attention_fa3_grid.json > $r/free_epilogue.txt 2>&1
echo "free epilogue: exit $?" >> $r/summary.txt
python3 scripts/bench/ab_tflops.py $r/free_epilogue.jsonl > $r/free_epilogue_tflops.txt 2>&1
rm -rf $B/*.so $B/check_attention
tar czf $OUT/d9.tgz -C /tmp d9
