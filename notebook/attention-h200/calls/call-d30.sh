#!/usr/bin/env bash
# Device call D30 (2026-11-29, session 5): v19 measured for docs/benchmarks.md. v19 checked on the
# three scenario sets; `socratic eval` of v19 on the grid, production and edge sets and of the
# baseline on the grid and production sets; the banned-library scan of every built object; the SDPA
# anchors (cuDNN, FlashAttention-2) in the same run; v19 against v15 in one runner; and, for the
# drawn question compute.unrolling, the branches in the SASS of every fast-path instance (backward
# ones are loops: the key-tile loop and the tile loop must be the only ones). The campaign's recording and the [gpu] tests follow in D31 (one call may run 600 s). Run from the repository root
# with prebuilt/ carried (the tool built on the development machine). One tarball in $OUT.
set -u
root=$PWD r=/tmp/d30; mkdir -p $r
export SOCRATIC_DATA_DIR=$root SOCRATIC_CACHE_DIR=/tmp/sc PYTHONUNBUFFERED=1
S=$root/prebuilt/bin/socratic B=/tmp/v19 H=kernels/attention/hopper.cu
v15=docs/campaigns/attention-h200/candidates/bf715b7420e3a37362849af86c3bb57525e6cce24df15c530432b33246416015.cu
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a $r/summary.txt; }
pack() { tar czf $OUT/d30.tgz -C /tmp d30; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >> $r/summary.txt 2>&1
mkdir -p $B
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC -Xcompiler -fno-gnu-unique \
  -I kernels/attention $H -o $B/v19.so &
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels/harness -I kernels/attention \
  kernels/attention/tools/check_attention.cu kernels/attention/problem.cu kernels/attention/reference.cu \
  -o $B/check_attention -ldl &
wait; say "built: $(ls $B | tr '\n' ' '); gnu-unique symbols in v19.so: $(nm -C --defined-only $B/v19.so | grep -c ' u ')"
timeout 150 $B/check_attention --impl v19=$B/v19.so --no-timing --jsonl $r/v19_check.jsonl \
  scenarios/attention_edge.json scenarios/attention_fa3_grid.json scenarios/attention_production.json \
  > $r/v19_check.txt 2>&1; say "v19 check exit $? $(tail -1 $r/v19_check.txt)"; pack

ev() { local n=$1 c=$2 s=$3; shift 3; local st=$(date +%s); timeout 200 $S eval $c --problem attention --scenarios $s --quiet --json $r/$n.json "$@" > $r/$n.txt 2> $r/$n.err; say "eval $n exit $? $(( $(date +%s) - st )) s: $(tail -2 $r/$n.txt | head -1)"; }
ev hopper_grid $H attention_fa3_grid
ev hopper_production $H attention_production
ev hopper_edge $H attention_edge
ev baseline_grid kernels/attention/baseline.cu attention_fa3_grid
ev baseline_production kernels/attention/baseline.cu attention_production
$S scan --json $(find /tmp/sc -name "*.so") > $r/scan.json 2>&1; say "scan of every built .so exit $?"; pack
timeout 150 python3 scripts/bench/sdpa_anchors.py scenarios/attention_fa3_grid.json \
  scenarios/attention_production.json > $r/anchors.json 2> $r/anchors.log; say "anchors exit $?"; pack
ev v19_vs_v15_grid $H attention_fa3_grid --baseline $v15
cuobjdump -sass $B/v19.so > $r/v19.sass 2> $r/sass.err; say "cuobjdump exit $?"
python3 - $r/v19.sass > $r/sass_branches.txt 2>&1 <<'PY'
# Per kernel: SASS instructions, branches, and backward branches (target before the branch) with
# their targets and spans, from cuobjdump's "/*addr*/ ... BRA target" lines (hex or .L_x labels).
import re, sys
func, rows, labels, out = None, [], {}, []
def flush():
    if func is None or "attention_fwd" not in func: return
    back = [(a, t) for a, t in rows if t is not None and t <= a]
    cfg = re.search(r"ConfigILi(\d+)ELi(\d+)ELi(\d)ELi(\d)ELb(\d)ELb\dELb\dELb(\d)", func)
    name = ("persistent" if "persistent" in func else "per-tile") + (" d%s n%s st%s wg%s bf16=%s" % cfg.groups()[:5] if cfg else "")
    out.append("%-40s instructions %6d  branches %4d  backward %d: %s" % (name, n_instr, len(rows), len(back),
               ", ".join("0x%x->0x%x (%d instr)" % (a, t, (a - t) // 16) for a, t in back)))
n_instr = 0
pend = []
for line in open(sys.argv[1]):
    m = re.match(r"\s*Function : (\S+)", line)
    if m:
        for a, lab in pend: rows.append((a, labels.get(lab)))
        flush(); func, rows, labels, pend, n_instr = m.group(1), [], {}, [], 0; continue
    m = re.match(r"\s*(\.L_x_\d+):", line)
    if m: labels[m.group(1)] = last_addr + 16 if 'last_addr' in dir() else 0; continue
    m = re.search(r"/\*([0-9a-f]{4,})\*/\s+(.*)", line)
    if not m: continue
    addr = int(m.group(1), 16); last_addr = addr; n_instr += 1
    b = re.search(r"\bBRA\b[^;]*?(0x[0-9a-f]+|`?\(?(\.L_x_\d+)\)?`?)", m.group(2))
    if b and "BRA" in m.group(2):
        if b.group(2): pend.append((addr, b.group(2)))
        else: rows.append((addr, int(b.group(1), 16)))
for a, lab in pend: rows.append((a, labels.get(lab)))
flush()
print("\n".join(out) if out else "no attention_fwd kernels found")
PY
say "sass branches: $(wc -l < $r/sass_branches.txt) kernels"; gzip -f $r/v19.sass
say done; pack
