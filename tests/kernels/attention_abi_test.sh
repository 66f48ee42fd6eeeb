#!/usr/bin/env bash
# tools/research/bench/attention_abi.py (the ctypes mirror of socratic_attention_args through which
# sdpa_anchors.py --impl calls a kernel) against kernels/attention/attention_args.h: the C side
# prints every field's offset and size, the struct's size and the dtype enum; the Python side
# must match.
# A field added, moved or retyped in one and not the other fails here, not as wrong timings.
#   usage: [NVCC=nvcc] tests/kernels/attention_abi_test.sh SOURCE_DIR
set -euo pipefail
src="$1"
nvcc=${NVCC:-nvcc}
command -v "$nvcc" >/dev/null || nvcc=/usr/local/cuda/bin/nvcc
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/layout.cpp" <<'CPP'
#include <cstddef>
#include <cstdio>
#include "attention_args.h"
#define FIELD(f)                                                              \
  std::printf("%s %zu %zu\n", #f, offsetof(socratic_attention_args, f), \
              sizeof(static_cast<socratic_attention_args*>(nullptr)->f))
int main() {
  FIELD(q); FIELD(k); FIELD(v); FIELD(o); FIELD(batch); FIELD(seqlen_q); FIELD(seqlen_kv);
  FIELD(heads_q); FIELD(heads_kv); FIELD(head_dim); FIELD(causal); FIELD(dtype);
  FIELD(softmax_scale);
  std::printf("size %zu\nbf16 %d\nfp16 %d\n", sizeof(socratic_attention_args), SOCRATIC_BF16, SOCRATIC_FP16);
}
CPP
"$nvcc" -I "$src/kernels/attention" "$dir/layout.cpp" -o "$dir/layout"
"$dir/layout" > "$dir/c.txt"
PYTHONPATH="$src/tools/research/bench" python3 - > "$dir/py.txt" <<'PY'
import ctypes
import attention_abi
for name, _ in attention_abi.Args._fields_:
    field = getattr(attention_abi.Args, name)
    print(name, field.offset, field.size)
print("size", ctypes.sizeof(attention_abi.Args))
print("bf16", attention_abi.DTYPES["bf16"])
print("fp16", attention_abi.DTYPES["fp16"])
PY
if ! diff "$dir/c.txt" "$dir/py.txt"; then
  echo "FAIL: tools/research/bench/attention_abi.py does not match kernels/attention/attention_args.h (< C, > Python)"
  exit 1
fi
echo "OK: $(wc -l < "$dir/c.txt") layout facts agree"
