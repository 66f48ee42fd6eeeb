#!/usr/bin/env bash
# Compile-time checks of kernels/hopper/attention.cu, no GPU needed: builds it the way the
# evaluator does and fails when ptxas reports a spill, a stack frame, serialised wgmma (any of its
# "Potential Performance Loss: wgmma" notes, C7510-C7516: registers, accumulators written between
# issue and wait, ...), a warpgroup.wait it had to inject (C7517) or
# an ignored setmaxnreg (C7508) in any instance. Each of these once cost a device run's worth of
# speed (see notebook/attention-h200/log.md, v0).
#   usage: [HOPPER_SRC=path/to/candidate.cu] tools/research/attention/check_build.sh [extra nvcc flags]
# HOPPER_SRC (default kernels/hopper/attention.cu) checks another candidate (notebook/attention-h200/versions/,
# demo/attention-h200/candidates/); its own folder is on the include path, as the evaluator puts it.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
problem=$root/kernels/attention
nvcc=${NVCC:-nvcc}
command -v "$nvcc" >/dev/null || nvcc=/usr/local/cuda/bin/nvcc
src=${HOPPER_SRC:-$root/kernels/hopper/attention.cu}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$nvcc" -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC -I "$problem" \
  -I "$(dirname "$src")" "$src" -o "$out/hopper.so" -Xptxas -v "$@" >"$out/log" 2>&1 || { cat "$out/log"; exit 1; }
# Fast-path kernels: attention_fwd_kernel and attention_fwd_persistent_kernel, in hopper_attn or in
# an anonymous namespace inside it (per-build state has internal linkage since v4).
entry_re="Compiling entry function '_ZN11hopper_attn([0-9]+_GLOBAL__N_[0-9A-Za-z_]+)?(20attention_fwd_kernel|31attention_fwd_persistent_kernel)"
instances=$(grep -cE "$entry_re" "$out/log" || true)
# One line per instance: kernel<dispatch-table row, element type> (or, for a version before the
# split, kernel<the Config template's arguments>) and its registers per thread at launch (setmaxnreg
# moves them between roles).
perl -ne 'if (/Compiling entry function .*?(attention_fwd_(?:persistent_)?kernel)INS0_12KernelTraitsIL_ZNS0_\d+(\w+?)EEL14socratic_dtype(\d)E/) {
    $pending = "$1<$2, " . ($3 ? "fp16" : "bf16") . ">"; }
  elsif (/Compiling entry function .*?(attention_fwd_(?:persistent_)?kernel)INS0_6ConfigI((?:L[ib]\d+E)+)E/) {
    ($k, $c) = ($1, $2); $c =~ s/L[ib](\d+)E/$1,/g; $c =~ s/,$//; $pending = "$k<$c>"; }
  if ($pending && /Used (\d+) registers/) { printf "  %-60s %s registers\n", $pending, $1; $pending = ""; }' "$out/log"

bad=$(grep -E "C751[0-7]|C7508|Performance Loss: wgmma|[1-9][0-9]* bytes spill|[1-9][0-9]* bytes stack frame" "$out/log" || true)
echo "$(basename "$src"): $instances fast-path kernel instances compiled"
if [[ -n $bad ]]; then
  echo "FAIL: ptxas reports spills, stack frames or serialised wgmma:"
  echo "$bad"
  exit 1
fi
if ((instances < 6)); then
  echo "FAIL: expected at least 6 fast-path instances (3 head dims x 2 dtypes), got $instances"
  exit 1
fi
echo "OK: no spills, no stack frames, no wgmma serialisation, setmaxnreg honoured"
