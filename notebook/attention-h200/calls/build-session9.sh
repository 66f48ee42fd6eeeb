#!/usr/bin/env bash
# Builds, on any machine with nvcc (no GPU needed), what session 9's device calls D66-D77 carried
# in .devcarry/: the variants of versions/v26-session9-variants.patch (every switch off by default;
# with none set its PTX is v25's, checked with `nvcc -ptx` after each was added) and of
# versions/v26-session9-qk-split.patch, the step-mark binaries (versions/step_phases-session9.cu
# on the patched kernel), and kernels/attention/tools/softmax_bench.cu. The base is v25 as shipped
# (kernels/attention/hopper.cu, the trace's stop 9). D61's v25.so and check_attention come from
# calls/build-session8.sh. Run from the repository root (about 10 minutes on two cores).
# (D70's two runs used earlier forms of softmax_bench.cu, .devcarry/d70/smb*_f*, not rebuilt
# here: D76 ran the committed one, whose modes include theirs.)
set -euo pipefail
dc=.devcarry; mkdir -p $dc/d66 $dc/d67 $dc/d69 $dc/d71 $dc/d72 $dc/d74 $dc/d75 $dc/d77
v=docs/campaigns/attention-h200/versions
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/var" "$tmp/split"
for d in var split; do cp kernels/attention/attention_args.h "$tmp/$d/"; done
patch -s -o "$tmp/var/hopper.cu" kernels/attention/hopper.cu $v/v26-session9-variants.patch
patch -s -o "$tmp/split/hopper.cu" kernels/attention/hopper.cu $v/v26-session9-qk-split.patch
cp $v/step_phases-session9.cu "$tmp/var/step_phases.cu"
nv=(nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a)
lib=(-shared -Xcompiler -fPIC -Xcompiler -fno-gnu-unique)
so() {  # SOURCE_DIR OUT FLAGS...
  local dir=$1 out=$2; shift 2
  "${nv[@]}" "${lib[@]}" -I "$dir" "$@" "$dir/hopper.cu" -o "$out" 2> "$out.log" || { cat "$out.log"; return 1; }
}
steps() {  # OUT FLAGS...
  local out=$1; shift
  "${nv[@]}" -I "$tmp/var" "$@" "$tmp/var/step_phases.cu" -o "$out" 2> "$out.log" || { cat "$out.log"; return 1; }
}
for n in 1 2 3; do so "$tmp/var" $dc/d66/diag$n.so -DHOPPER_DIAG_SOFTMAX=$n; done          # D66
so "$tmp/split" $dc/d67/s64.so -DHOPPER_D128_QK_SPLIT=64                                  # D67
so "$tmp/split" $dc/d67/s96.so -DHOPPER_D128_QK_SPLIT=96
so "$tmp/split" $dc/d67/s128.so -DHOPPER_D128_QK_SPLIT=128
so "$tmp/split" $dc/d67/s96n64.so -DHOPPER_D128_QK_SPLIT=96 -DHOPPER_D128_QK_SPLIT_NARROW=64
steps $dc/d68_step_phases                                                               # D68
steps $dc/d68_step_phases_nosm -DHOPPER_DIAG_SOFTMAX=1
cp $dc/d68_step_phases $dc/d69/steps_f0                                                 # D69
for f in 1 2 3; do
  so "$tmp/var" $dc/d69/f$f.so -DHOPPER_SOFTMAX_FORM=$f
  steps $dc/d69/steps_f$f -DHOPPER_SOFTMAX_FORM=$f
done
so "$tmp/var" $dc/d71/ds.so -DHOPPER_DEFER_SUMS=1; steps $dc/d71/steps_ds -DHOPPER_DEFER_SUMS=1       # D71
so "$tmp/var" $dc/d72/ew.so -DHOPPER_EARLY_WAITS=1; steps $dc/d72/steps_ew -DHOPPER_EARLY_WAITS=1     # D72
so "$tmp/var" $dc/d74/tp1.so -DHOPPER_TOKEN_PASS_AT_ROW=1                                  # D74
so "$tmp/var" $dc/d75/dpv112.so -DHOPPER_D128_DEFER_PV2=1                                  # D75
so "$tmp/var" $dc/d75/dpv96.so -DHOPPER_D128_DEFER_PV2=1 -DHOPPER_D128_DEFER_BLOCK_N=96
so kernels/attention $dc/d75/n112.so -DHOPPER_D128_BLOCK_N=112 -DHOPPER_D128_WIDE_BLOCK_N=112
so "$tmp/var" $dc/d77/dpv112s3.so -DHOPPER_D128_DEFER_PV2=1 -DHOPPER_D128_STAGES=3           # D77
so "$tmp/var" $dc/d77/dpv96s3.so -DHOPPER_D128_DEFER_PV2=1 -DHOPPER_D128_DEFER_BLOCK_N=96 -DHOPPER_D128_STAGES=3
so kernels/attention $dc/d77/n112s3.so -DHOPPER_D128_BLOCK_N=112 -DHOPPER_D128_WIDE_BLOCK_N=112 -DHOPPER_D128_STAGES=3
"${nv[@]}" -I kernels/attention kernels/attention/tools/softmax_bench.cu -o $dc/softmax_bench  # D70, D76
