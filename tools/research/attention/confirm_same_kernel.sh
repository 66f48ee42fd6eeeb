#!/usr/bin/env bash
# On a GPU machine: that two builds of an attention candidate give the same output bits and the
# same speed (the device's side of compare_kernels.sh's proof). Builds each the way the evaluator
# does and check_attention, then
#   1. check_attention --same-as OLD on the grid, production and edge sets (78 scenarios, the four
#      value regimes each): both correct against the fp32 reference, NEW bit-identical to OLD;
#   2. the FA3 grid timed in turns, launch by launch, the stream held until each call is enqueued,
#      twice, the second pass in reverse order; bench/ab_tflops.py's table of both passes.
# Everything lands in OUT_DIR (check.txt, check.jsonl, grid_a/b.jsonl, grid_tflops.txt, summary.txt).
#   usage (repository root): tools/research/attention/confirm_same_kernel.sh OLD.cu NEW.cu OUT_DIR
# Exit 0 when both pass and NEW is bit-identical to OLD on every scenario and trial.
set -u
if (($# != 3)); then
  echo "usage: confirm_same_kernel.sh OLD.cu NEW.cu OUT_DIR" >&2
  exit 2
fi
old=$1 new=$2 out=$3
mkdir -p "$out/build"
nvcc=${NVCC:-nvcc}
nv=("$nvcc" -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a)
summary=$out/summary.txt
: > "$summary"
"${nv[@]}" -shared -Xcompiler -fPIC -Xcompiler -fno-gnu-unique -I kernels/attention -I "$(dirname "$old")" "$old" \
  -o "$out/build/old.so" > "$out/build/old.log" 2>&1 &
"${nv[@]}" -shared -Xcompiler -fPIC -Xcompiler -fno-gnu-unique -I kernels/attention -I "$(dirname "$new")" "$new" \
  -o "$out/build/new.so" > "$out/build/new.log" 2>&1 &
"${nv[@]}" -I kernels/harness -I kernels/attention tools/research/attention/check_attention.cu \
  kernels/attention/problem.cu kernels/attention/reference.cu -o "$out/build/check_attention" -ldl \
  > "$out/build/check_attention.log" 2>&1
wait
for f in old.so new.so check_attention; do
  [[ -f $out/build/$f ]] || { echo "build of $f failed: $out/build/*.log" | tee -a "$summary"; exit 1; }
done
ca=$out/build/check_attention
sets=(scenarios/attention_fa3_grid.json scenarios/attention_production.json scenarios/attention_edge.json)
timeout 300 "$ca" --hold-flag --no-timing --impl old="$out/build/old.so" --impl new="$out/build/new.so" --same-as old \
  --jsonl "$out/check.jsonl" "${sets[@]}" > "$out/check.txt" 2>&1
check=$?
echo "check: exit $check, $(tail -1 "$out/check.txt")" | tee -a "$summary"
differ=$(grep -c "bits differ from old" "$out/check.txt")
same=$(grep -c "bit-identical to old" "$out/check.txt")
echo "new against old: bit-identical on $same scenario lines, bits differ on $differ" | tee -a "$summary"
grid=scenarios/attention_fa3_grid.json
timeout 280 "$ca" --hold-flag --impl old="$out/build/old.so" --impl new="$out/build/new.so" --jsonl "$out/grid_a.jsonl" \
  "$grid" > "$out/grid_a.txt" 2>&1
echo "timing pass a: exit $?" | tee -a "$summary"
timeout 280 "$ca" --hold-flag --impl new="$out/build/new.so" --impl old="$out/build/old.so" --jsonl "$out/grid_b.jsonl" \
  "$grid" > "$out/grid_b.txt" 2>&1
echo "timing pass b: exit $?" | tee -a "$summary"
python3 tools/research/bench/ab_tflops.py "$out/grid_a.jsonl" "$out/grid_b.jsonl" > "$out/grid_tflops.txt" 2>&1
tail -3 "$out/grid_tflops.txt" | tee -a "$summary"
[[ $check == 0 && $differ == 0 && $same -gt 0 ]]
