#!/usr/bin/env bash
# Whether two attention candidates run the same machine code for every shape, without a GPU.
# Builds each the way the evaluator does (nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a
# -shared -Xcompiler -fPIC -Xcompiler -fno-gnu-unique, the problem's folder then the candidate's on
# the include path), runs each one's host code under dispatch_probe.cpp on every scenario of
# scenarios/*.json and a sweep of shapes, and compares (compare_kernels.py): every kernel's code
# (.text bytes, attributes, banks, relocations) and every launch of every shape (kernel, grid,
# block, shared memory, argument bytes). Identical code per kernel and identical launches mean
# identical outputs and identical speed, on any GPU.
#   usage: [NVCC=nvcc] [OUT_DIR=dir] tools/research/attention/compare_kernels.sh OLD.cu NEW.cu [nvcc flags...]
# Exit 0 when the same; the verdict is OUT_DIR/verdict.txt.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
nvcc=${NVCC:-nvcc}
command -v "$nvcc" >/dev/null || nvcc=/usr/local/cuda/bin/nvcc
# cuda.h for the probe: where nvcc itself looks (nvcc may be a link, as /usr/bin/nvcc often is).
cuda_include=$("$nvcc" --dryrun -x cu -c /dev/null -o /dev/null 2>&1 |
  sed -n 's/^#\$ INCLUDES="-I\([^"]*\)".*/\1/p' | head -n1)
if [[ ! -f $cuda_include/cuda.h ]]; then
  cuda_include=$(dirname "$(readlink -f "$(command -v "$nvcc")")")/../include
fi
if [[ ! -f $cuda_include/cuda.h ]]; then
  echo "compare_kernels.sh: cuda.h not found beside $nvcc (looked in $cuda_include)" >&2
  exit 2
fi
if (($# < 2)); then
  echo "usage: compare_kernels.sh OLD.cu NEW.cu [nvcc flags...]" >&2
  exit 2
fi
old=$(realpath "$1") new=$(realpath "$2")
shift 2
out=${OUT_DIR:-$(mktemp -d)}
mkdir -p "$out"
problem=$root/kernels/attention

build() {  # NAME SOURCE [flags]: the evaluator's shared object, and the probe over the host code
  local name=$1 src=$2
  shift 2
  "$nvcc" -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC -Xcompiler -fno-gnu-unique \
    -I"$problem" -I"$(dirname "$src")" "$@" "$src" -o "$out/$name.so"
  # The probe needs only the host side: device code to PTX, NVVM's optimiser off.
  "$nvcc" -O3 -std=c++17 -gencode=arch=compute_90a,code=compute_90a -Xcicc -O0 -cudart none -Xcompiler -fPIC \
    -I"$problem" -I"$(dirname "$src")" "$@" -c "$src" -o "$out/$name.probe.o"
  g++ -std=c++17 -O1 -I"$cuda_include" -I"$problem" "$here/dispatch_probe.cpp" "$out/$name.probe.o" \
    -o "$out/$name.probe"
}
build old "$old" "$@" &
old_build=$!
build new "$new" "$@"
wait "$old_build"

python3 "$here/compare_kernels.py" shapes "$root"/scenarios/*.json > "$out/shapes.txt"
"$out/old.probe" < "$out/shapes.txt" > "$out/old.dispatch.txt"
"$out/new.probe" < "$out/shapes.txt" > "$out/new.dispatch.txt"
nvcc_version=$("$nvcc" --version | grep -m1 release || true)
{
  echo "old: ${old#"$root"/}"
  echo "new: ${new#"$root"/}"
  echo "nvcc: $nvcc_version; extra flags: ${*:-none}"
  echo "shapes: $(wc -l < "$out/shapes.txt") (scenarios/*.json and a sweep: compare_kernels.py shapes)"
  echo
} > "$out/verdict.txt"
set +e
python3 "$here/compare_kernels.py" compare "$out/old.so" "$out/old.dispatch.txt" "$out/new.so" \
  "$out/new.dispatch.txt" >> "$out/verdict.txt"
rc=$?
set -e
cat "$out/verdict.txt"
exit $rc
