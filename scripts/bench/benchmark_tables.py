#!/usr/bin/env python3
"""Render docs/benchmarks.md tables from `socratic eval --json` reports and sdpa_anchors.py output
measured in the same device run.

Usage: benchmark_tables.py ANCHORS.json SET_NAME NAME=REPORT.json [NAME=REPORT.json ...]
TFLOP/s are recomputed from the median times with one FLOP convention for every column (FA3:
4*b*hq*sq*skv*d, halved for causal), so that every column is comparable.
"""
import json
import math
import sys


def geomean(xs):
    xs = [x for x in xs if x and x > 0 and math.isfinite(x)]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    anchors = json.load(open(sys.argv[1]))
    set_name = sys.argv[2]
    rows = {r["id"]: r for r in anchors["sets"][set_name]}
    reports = []
    for arg in sys.argv[3:]:
        name, path = arg.split("=", 1)
        rep = json.load(open(path))
        reports.append((name, {s["id"]: s for s in rep["scenarios"]}, rep))
    cols = [n for n, _, _ in reports] + ["cuDNN", "FA2"]
    print("| scenario | " + " | ".join(cols) + " |")
    print("|---|" + "---:|" * len(cols))
    per_col = {c: [] for c in cols}
    ratios = {}
    for sid, a in rows.items():
        flops = a["flops"]
        cells = []
        vals = {}
        for name, by_id, _ in reports:
            s = by_id.get(sid)
            t = flops / (s["candidate_ms"] * 1e-3) / 1e12 if s and s["correct"] else float("nan")
            vals[name] = t
        for key, col in (("cudnn", "cuDNN"), ("flash", "FA2")):
            vals[col] = a[key]["tflops"] if key in a and "tflops" in a[key] else float("nan")
        for c in cols:
            per_col[c].append(vals[c])
            cells.append("%.1f" % vals[c] if math.isfinite(vals[c]) else "-")
        for c in cols[1:]:
            ratios.setdefault(c, []).append(vals[cols[0]] / vals[c] if vals[c] else float("nan"))
        print(f"| {sid} | " + " | ".join(cells) + " |")
    print("| **geomean** | " + " | ".join("**%.1f**" % geomean(per_col[c]) for c in cols) + " |")
    print()
    for c in cols[1:]:
        print(f"- {cols[0]} / {c}: geomean of per-scenario ratios **{geomean(ratios[c]):.3f}**")
    for name, _, rep in reports:
        print(f"- {name}: all correct = {rep['all_correct']}, banned = {len(rep['banned'])}, "
              f"evaluation wall time {rep['timings']['total_s']:.1f} s")


if __name__ == "__main__":
    main()
