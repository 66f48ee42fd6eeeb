#!/usr/bin/env bash
# A batch of distinct attention candidates (16 by default: versions of kernels/attention/hopper.cu
# from the git history) through the local GPU pool, builds running ahead on CPU workers while the
# GPU runs others, against the same batch one at a time (`socratic eval` per candidate: build,
# then run, as before the executor), each mode from a cold build cache, on the same machine.
#
# Usage (repository root):
#   tools/research/bench/pool_vs_serial.sh prepare DIR [N]        N (16) candidates into DIR/candidates (needs git)
#   tools/research/bench/pool_vs_serial.sh pool DIR               the batch through --executor local
#   tools/research/bench/pool_vs_serial.sh serial DIR [FROM [TO]] one at a time, candidates FROM..TO (1-based)
#   tools/research/bench/pool_vs_serial.sh summary DIR            wall times, evaluations per hour, verdicts
# `serial` takes a range so that a batch longer than one command's time limit can be measured in
# several calls on the same machine; its wall time is the sum of the candidates' times.
# Environment: SOCRATIC (the tool; default build/bin/socratic), PROBLEM (attention), SCENARIOS
# (attention_production), BUILD_WORKERS (8), GPUS (default: every visible GPU), EVAL_ARGS (more
# arguments for every `socratic eval`, e.g. a fake toolchain's --nvcc and --arch in a dry run).
set -u
cmd=${1:?usage: pool_vs_serial.sh prepare|pool|serial|summary DIR}
dir=${2:?usage: pool_vs_serial.sh $cmd DIR}
root=$(pwd)
tool=${SOCRATIC:-$root/build/bin/socratic}
problem=${PROBLEM:-attention}
scenarios=${SCENARIOS:-attention_production}
read -r -a extra <<<"${EVAL_ARGS:-}"
workers=${BUILD_WORKERS:-8}
export SOCRATIC_DATA_DIR=${SOCRATIC_DATA_DIR:-$root}
now() { date +%s.%N; }
mkdir -p "$dir"

case $cmd in
  prepare)
    n=${3:-16}
    mkdir -p "$dir/candidates"
    count=0
    declare -A seen=()
    # Newest first; distinct bytes only (a commit may touch the file without changing it).
    for c in $(git log --format=%h --follow -- kernels/attention/hopper.cu); do
      text=$(git show "$c:kernels/attention/hopper.cu" 2>/dev/null) || continue
      sum=$(printf '%s' "$text" | sha256sum | cut -c1-16)
      [[ -n ${seen[$sum]:-} ]] && continue
      seen[$sum]=1
      count=$((count + 1))
      printf '%s\n' "$text" >"$dir/candidates/$(printf '%02d' "$count")-hopper-$c.cu"
      ((count == n)) && break
    done
    echo "prepared $count distinct candidates in $dir/candidates"
    ((count == n)) || { echo "asked for $n" >&2; exit 1; }
    ;;
  pool)
    mapfile -t cands < <(ls "$dir"/candidates/*.cu)
    gpu_args=()
    [[ -n ${GPUS:-} ]] && gpu_args=(--gpus "$GPUS")
    rm -rf "$dir/cache-pool" "$dir/pool-run"
    mkdir -p "$dir/pool"
    echo "pool START $(now)" >>"$dir/times.txt"
    "$tool" eval "${cands[@]}" --problem "$problem" --scenarios "$scenarios" --executor local \
      --build-workers "$workers" "${gpu_args[@]}" --run-dir "$dir/pool-run" --cache-dir "$dir/cache-pool" \
      --quiet --json "$dir/pool/reports.json" "${extra[@]}" >"$dir/pool/tables.txt" 2>"$dir/pool/stderr.txt"
    rc=$?
    echo "pool END $(now) rc=$rc candidates=${#cands[@]} workers=$workers" >>"$dir/times.txt"
    echo "pool: exit $rc, $(tail -n 1 "$dir/times.txt")"
    ;;
  serial)
    mapfile -t cands < <(ls "$dir"/candidates/*.cu)
    from=${3:-1}
    to=${4:-${#cands[@]}}
    mkdir -p "$dir/serial"
    ((from == 1)) && rm -rf "$dir/cache-serial"
    for ((i = from; i <= to; ++i)); do
      c=${cands[$((i - 1))]}
      name=$(basename "$c" .cu)
      s=$(now)
      "$tool" eval "$c" --problem "$problem" --scenarios "$scenarios" --cache-dir "$dir/cache-serial" --quiet \
        --json "$dir/serial/$name.json" "${extra[@]}" >"$dir/serial/$name.txt" 2>"$dir/serial/$name.err"
      rc=$?
      echo "serial $name START $s END $(now) rc=$rc" >>"$dir/times.txt"
      echo "serial $i/${#cands[@]} $name: exit $rc"
    done
    ;;
  summary)
    python3 - "$dir" <<'EOF'
import glob, json, os, sys
d = sys.argv[1]
pool_start = pool_end = None
serial = {}
for line in open(os.path.join(d, "times.txt")):
    w = line.split()
    if w[:2] == ["pool", "START"]: pool_start = float(w[2])
    elif w[:2] == ["pool", "END"]: pool_end = float(w[2])
    elif w[0] == "serial": serial[w[1]] = float(w[5]) - float(w[3])
reports = json.load(open(os.path.join(d, "pool", "reports.json")))
names = sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(d, "candidates", "*.cu")))
n = len(names)
print(f"{n} candidates, scenario set {reports[0].get('scenario_set', '?')}")
if pool_start and pool_end:
    w = pool_end - pool_start
    print(f"pool (builds ahead): {w:.1f} s wall, {3600 * n / w:.1f} evaluations/hour")
if len(serial) == n:
    w = sum(serial.values())
    print(f"one at a time:       {w:.1f} s wall (sum of {n} evaluations), {3600 * n / w:.1f} evaluations/hour")
    if pool_start and pool_end: print(f"speed-up of the pool: {w / (pool_end - pool_start):.2f}x")
else:
    print(f"one at a time: {len(serial)} of {n} measured so far ({sum(serial.values()):.1f} s)")
# Overlap, from the pool's journal (times of its events): a GPU run is [its start on a GPU, its
# end]; a build started while some run was in progress overlapped it.
events = [json.loads(l) for l in open(os.path.join(d, "pool-run", "journal.jsonl"))]
build_at, gpu_at, end_at = {}, {}, {}
for e in events:
    if e["event"] == "started":
        (gpu_at if e["where"].startswith("gpu") else build_at)[e["id"]] = e["at"]
    elif e["event"] == "finished":
        end_at[e["id"]] = e["at"]
runs = [(gpu_at[i], end_at[i]) for i in gpu_at if i in end_at]
busy = sum(b - a for a, b in runs)
overlapped = sum(1 for t in build_at.values() if any(a < t < b for a, b in runs))
if pool_start and pool_end:
    print(f"pool: {len(build_at)} builds on CPU workers ({overlapped} started while a GPU run was in progress), "
          f"{len(runs)} GPU runs, GPU busy {busy:.1f} s of {pool_end - pool_start:.1f} s")
# Verdicts: the same candidate judged alike either way (speedups within their noise).
print(f"{'candidate':<28} {'pool':>14} {'one at a time':>14}")
for name, r in zip(names, reports):
    s_path = os.path.join(d, "serial", name + ".json")
    s = json.load(open(s_path)) if os.path.exists(s_path) else None
    def cell(x):
        if x is None: return "-"
        g = x.get("geomean_speedup")
        return ("ok " if x.get("all_correct") else "FAIL ") + (f"{g:.3f}x" if g else "")
    print(f"{name:<28} {cell(r):>14} {cell(s):>14}")
EOF
    ;;
  *)
    echo "pool_vs_serial.sh: unknown command $cmd" >&2
    exit 2
    ;;
esac
