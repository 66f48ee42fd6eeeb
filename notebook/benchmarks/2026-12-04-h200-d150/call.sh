#!/usr/bin/env bash
# D150 (2026-12-04, one H200): what judging a suite problem costs against a native problem of the
# same shapes (issue 38 item 7): `socratic eval` of the native rmsnorm problem on rmsnorm_h4096's
# three shapes (rmsnorm_h4096_native.json here), its baseline against itself, and of the suite
# problem tests/suite/problems/rmsnorm_h4096, its native baseline against itself and the honest
# candidate against the eager-PyTorch baseline; each three times with a cached build, the whole
# command's wall time and the report's check and timing seconds.
# Carried: .devcarry/d150.tar.xz (build/bin/socratic, devlib/libboost_url.so.1.81.0).
#   device: bash notebook/benchmarks/2026-12-04-h200-d150/call.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
mkdir -p build && tar xJf .devcarry/d150.tar.xz -C build
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH SOCRATIC_DATA_DIR=$PWD SOCRATIC_REFERENCE_PYTHON=/opt/torch/.venv/bin/python3
out=${OUT:?}
logs=$out/d150
mkdir -p "$logs"
t0=$(date +%s)
stamp() { echo "[$(($(date +%s) - t0)) s] $*"; }
cache=/tmp/d150-cache
suite=tests/suite/problems/rmsnorm_h4096
run() {  # run NAME ARGS...: one eval, its wall time and the report's timings
  local name=$1; shift
  local s; s=$(date +%s.%N)
  build/bin/socratic eval "$@" --cache-dir $cache -q -o "$logs/$name.json" > "$logs/$name.txt" 2>&1
  local rc=$?
  python3 - "$logs/$name.json" "$name" "$rc" "$(python3 -c "import time; print(f'{time.time()-$s:.2f}')")" <<'PY'
import json, sys
path, name, rc, wall = sys.argv[1:]
try:
    r = json.load(open(path))
except Exception as e:
    print(f"{name}: exit {rc}, wall {wall} s, no report ({e})"); sys.exit()
t = r.get("timings", {})
ok = sum(1 for s in r.get("scenarios", []) if s.get("correct"))
sp = " ".join(f"{s['id']}={s.get('speedup') or 0:.3f}" for s in r.get("scenarios", []))
print(f"{name}: exit {rc}, wall {wall} s, check {t.get('check_s', 0):.2f} s, timing {t.get('timing_s', 0):.2f} s, "
      f"total {t.get('total_s', 0):.2f} s, {ok}/{len(r.get('scenarios', []))} correct; {sp}; error: {r.get('error') or '-'}")
PY
}
{
  stamp "start $(date -u +%FT%TZ)"
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  # Builds first (not timed): the runners, baselines and candidates into the cache.
  run warm_native kernels/rmsnorm/baseline.cu -p rmsnorm -s "$here/rmsnorm_h4096_native.json"
  run warm_suite tests/suite/eval/rmsnorm_h4096_baseline.cu -p $suite --baseline tests/suite/eval/rmsnorm_h4096_baseline.cu
  run warm_eager tests/suite/eval/rmsnorm_h4096_candidate.cu -p $suite
  stamp "builds done"
  for i in 1 2 3; do
    run native_$i kernels/rmsnorm/baseline.cu -p rmsnorm -s "$here/rmsnorm_h4096_native.json"
    run suite_native_$i tests/suite/eval/rmsnorm_h4096_baseline.cu -p $suite --baseline tests/suite/eval/rmsnorm_h4096_baseline.cu
    run suite_eager_$i tests/suite/eval/rmsnorm_h4096_candidate.cu -p $suite
  done
  stamp "end"
} 2>&1 | tee "$logs/summary.txt"
tar cJf "$out/d150.tar.xz" -C "$out" d150 && rm -rf "$logs"
