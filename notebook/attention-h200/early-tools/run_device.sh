#!/usr/bin/env bash
# One device call: SASS facts, a smoke test per candidate, then correctness + timing of the first
# candidate that passed, the baseline and torch SDPA (flash, cudnn) in the same run, then timing
# variants. Run from a folder holding bench_hopper.py, the .so files (built here with
# build_variants.sh) and optionally the scenario files. Each step has its own timeout so that a
# hang in one still returns the others' results under $OUT.
#   usage: run_device.sh SHIP.so [FALLBACK.so ...] [-- VARIANT=FILE.so ...]
set -u
OUT=${OUT:-/tmp/hopper-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
candidates=()
variants=()
while (($#)) && [[ $1 != -- ]]; do candidates+=("$1"); shift; done
if (($#)); then shift; variants=("$@"); fi
T_SMOKE=${T_SMOKE:-30} T_MAIN=${T_MAIN:-75} T_VAR=${T_VAR:-40} T_EXTRA=${T_EXTRA:-15}
log="$OUT/log.txt"
: >"$log"

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv \
  >"$OUT/gpu.txt" 2>&1
for so in "${candidates[@]}"; do
  echo "== $so"
  cuobjdump -sass "$so" | grep -oE "HGMMA\.[0-9A-Za-z]+|UTMALDG\.[0-9A-Z.]+|USETMAXREG\.[A-Z.]+|\bLDL\b|\bSTL\b|\bHMMA\b" | sort | uniq -c
done >"$OUT/sass.txt" 2>&1

smoke_ids=s512_d64_b32_h32,s512_d128_b32_h16,s512_d256_b32_h8,s512_d128_b32_h16_causal,s1024_d256_b16_h8_causal,ragged_s333_d128_mqa_causal,sq1000_skv128_d128_causal_emptyrows,s513_d256_causal_fp16
ship=""
for c in "${candidates[@]}"; do
  echo "== smoke $c" | tee -a "$log"
  if timeout "$T_SMOKE" python3 bench_hopper.py --cand "smoke=$c" --sets grid,edge --check-only --only "$smoke_ids" \
      >>"$log" 2>&1; then
    echo "smoke passed: $c" | tee -a "$log"
    ship=$c
    break
  fi
  echo "smoke FAILED: $c" | tee -a "$log"
done
if [[ -z $ship ]]; then
  echo "no candidate passed the smoke test" | tee -a "$log"
  exit 0
fi

# The project's scenario files when present (scenarios/*.json copied beside this script), else
# the driver's built-in copies of the same sets.
sets=grid,production,edge
if [[ -f attention_fa3_grid.json ]]; then
  sets=attention_fa3_grid.json,attention_production.json,attention_edge.json
fi
base=()
if [[ -f baseline.so ]]; then base=(--cand baseline=baseline.so); fi
echo "== main: ship=$ship, baseline, sdpa on $sets" | tee -a "$log"
timeout "$T_MAIN" python3 bench_hopper.py --cand "ship=$ship" "${base[@]}" --sets "$sets" --sdpa \
  --out "$OUT/results.jsonl" >>"$log" 2>&1
echo "main rc=$?" | tee -a "$log"

if ((${#variants[@]})); then
  echo "== variants on grid" | tee -a "$log"
  args=()
  for v in "${variants[@]}"; do args+=(--cand "$v"); done
  timeout "$T_VAR" python3 bench_hopper.py "${args[@]}" --sets grid --out "$OUT/variants.jsonl" >>"$log" 2>&1
  echo "variants rc=$?" | tee -a "$log"
fi
echo "== extra edge shapes and the general path (check only)" | tee -a "$log"
gen=()
if [[ -f hopper_general.so ]]; then gen=(--cand general=hopper_general.so); fi
timeout "$T_EXTRA" python3 bench_hopper.py --cand "ship=$ship" "${gen[@]}" --sets edge --check-only >>"$log" 2>&1
echo "extra rc=$?" | tee -a "$log"

grep -E "^(== |smoke|main rc|variants rc|extra rc|no candidate|[a-zA-Z_0-9.]+: [0-9]+ scenarios|incorrect|  edge FAIL)" "$log" |
  cut -c1-400
