#!/usr/bin/env bash
# tools/research/attention/compare_kernels.sh (the no-GPU proof that two builds of a candidate run
# the same machine code for every shape) on three tiny candidates whose answer is known: the same
# kernel under a renamed template argument (the same code), a dispatch that sends one more head dim
# to a kernel (the dispatch differs), a kernel with one constant changed (the code differs).
#   usage: [NVCC=nvcc] tests/kernels/compare_kernels_test.sh SOURCE_DIR
set -euo pipefail
root=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/a.cu" <<'CU'
#include "attention_args.h"
namespace {
template <int kScale_> struct Config { static constexpr int kScale = kScale_; };
template <class C>
__global__ void general_kernel(const float* q, const float* k, const float* v, float* o, socratic_attention_args a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < a.seqlen_q) o[i] = q[i] * C::kScale + k[i];
}
}  // namespace
extern "C" int socratic_attention_forward(const socratic_attention_args* a, cudaStream_t s) {
  const float* q = static_cast<const float*>(a->q);
  if (a->head_dim == 64) general_kernel<Config<3>><<<a->batch, 128, 0, s>>>(q, q, q, static_cast<float*>(a->o), *a);
  else general_kernel<Config<5>><<<a->batch, 128, 0, s>>>(q, q, q, static_cast<float*>(a->o), *a);
  return 0;
}
CU
sed 's/template <int kScale_> struct Config { static constexpr int kScale = kScale_; };/struct Three { static constexpr int kScale = 3; };\nstruct Five { static constexpr int kScale = 5; };/; s/Config<3>/Three/; s/Config<5>/Five/' \
  "$dir/a.cu" > "$dir/renamed.cu"
sed 's/a->head_dim == 64/a->head_dim <= 128/' "$dir/renamed.cu" > "$dir/dispatch.cu"
sed 's/kScale = 3;/kScale = 4;/' "$dir/renamed.cu" > "$dir/constant.cu"
grep -q "struct Three" "$dir/renamed.cu" && grep -q "head_dim <= 128" "$dir/dispatch.cu" && grep -q "kScale = 4" "$dir/constant.cu"

source "$(dirname "$0")/script_checks.sh"
compare() {  # NAME: compare a.cu with NAME.cu, print the verdict, set $verdict and $rc
  set +e
  verdict=$(OUT_DIR="$dir/out-$1" bash "$root/tools/research/attention/compare_kernels.sh" "$dir/a.cu" "$dir/$1.cu" 2>&1)
  rc=$?
  set -e
}
compare renamed
expect_match "$verdict" '^RESULT: the same code for every shape$'
expect_match "$verdict" '^dispatch: the same on all [0-9]+ shapes'
[[ $rc == 0 ]] || { echo "FAIL: renamed traits: exit $rc, expected 0"; fail=1; }
compare dispatch
expect_match "$verdict" '^FAIL: the dispatch differs'
expect_match "$verdict" '^RESULT: DIFFERENT$'
[[ $rc == 1 ]] || { echo "FAIL: changed dispatch: exit $rc, expected 1"; fail=1; }
compare constant
expect_match "$verdict" '^FAIL: 1 kernel\(s\) of the new build compile to code no kernel of the old one has'
expect_match "$verdict" '^RESULT: DIFFERENT$'
[[ $rc == 1 ]] || { echo "FAIL: changed constant: exit $rc, expected 1"; fail=1; }
[[ $fail == 0 ]] && echo "OK: the same code, a changed dispatch and a changed kernel told apart"
exit $fail
