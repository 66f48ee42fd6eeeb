#!/usr/bin/env bash
# A/B of attention candidates on a GPU machine: builds each variant (a source file plus -D flags)
# the way the evaluator does, checks the ones named in CHECK against the fp32 reference on the
# three scenario sets, then times all of them with check_attention on the FA3 grid in two passes,
# the second in reverse order (on each scenario the variants take turns launch by launch, so they
# share the clock and the GPU's power state). Tables: tools/research/bench/ab_tflops.py DEST/grid_a.jsonl DEST/grid_b.jsonl.
#   usage: ab_variants.sh DEST NAME=SRC[:FLAGS] ...   (FLAGS: comma-separated -D options; a SRC
#          ending in .so is a variant built beforehand, e.g. on a machine without a GPU, and is used as is)
#   env:   CHECK="name ..." (default: every variant; CHECK=" " checks none), ONLY=id,id,... (grid subset),
#          CHECK_ATTENTION=path (a check_attention built beforehand), TIMING="options" (extra
#          check_attention timing options, e.g. "--hold-flag" to time as the anchors are timed)
set -u
if (($# < 2)); then
  echo "usage: ab_variants.sh DEST NAME=SRC[:FLAGS] ...  (at least one variant)" >&2
  exit 2
fi
dest=$1; shift
for spec in "$@"; do
  src=${spec#*=}; src=${src%%:*}
  if [[ $spec != *=* || ! -f $src ]]; then
    echo "ab_variants.sh: variant '$spec': expected NAME=SRC[:FLAGS] with SRC an existing file" >&2
    exit 2
  fi
done
build=$dest/build; mkdir -p "$build"
nv=(nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels/attention -I kernels/hopper)
names=()
for spec in "$@"; do
  name=${spec%%=*} rest=${spec#*=}
  src=${rest%%:*} flags=""
  [[ $rest == *:* ]] && flags=${rest#*:}
  names+=("$name")
  if [[ $src == *.so ]]; then cp "$src" "$build/$name.so"; continue; fi
  "${nv[@]}" -shared -Xcompiler -fPIC -Xcompiler -fno-gnu-unique ${flags//,/ } "$src" -o "$build/$name.so" \
    > "$build/$name.log" 2>&1 &
done
[[ -z ${CHECK_ATTENTION:-} ]] && "${nv[@]}" -I kernels/harness tools/research/attention/check_attention.cu kernels/attention/problem.cu \
  kernels/attention/reference.cu -o "$build/check_attention" -ldl > "$build/check_attention.log" 2>&1 &
wait
ca=${CHECK_ATTENTION:-$build/check_attention} grid=scenarios/attention_fa3_grid.json
for name in ${CHECK:-${names[@]}}; do
  timeout 150 "$ca" --impl "$name=$build/$name.so" --no-timing scenarios/attention_edge.json "$grid" \
    scenarios/attention_production.json > "$dest/check_$name.txt" 2>&1
  echo "check $name: exit $? $(tail -1 "$dest/check_$name.txt")"
done
forward=() reverse=()
for name in "${names[@]}"; do forward+=(--impl "$name=$build/$name.so"); reverse=(--impl "$name=$build/$name.so" "${reverse[@]}"); done
only=(); [[ -n ${ONLY:-} ]] && only=(--only "$ONLY")
timeout 280 "$ca" "${forward[@]}" "${only[@]}" ${TIMING:-} --jsonl "$dest/grid_a.jsonl" "$grid" > "$dest/grid_a.txt" 2>&1
echo "timing pass a: exit $?"
timeout 280 "$ca" "${reverse[@]}" "${only[@]}" ${TIMING:-} --jsonl "$dest/grid_b.jsonl" "$grid" > "$dest/grid_b.txt" 2>&1
echo "timing pass b: exit $?"
python3 tools/research/bench/ab_tflops.py "$dest/grid_a.jsonl" "$dest/grid_b.jsonl" > "$dest/grid_tflops.txt" 2>&1
tail -2 "$dest/grid_tflops.txt"
