#!/usr/bin/env python3
"""Render docs/benchmarks.md tables from `socratic eval --json` reports and sdpa_anchors.py output
measured in the same device run.

Usage: benchmark_tables.py ANCHORS.json SET_NAME NAME=REPORT [NAME=REPORT ...]
A REPORT is a `socratic eval --json` file, or (ending in .jsonl) the --jsonl output of
kernels/attention/tools/check_attention, which times an implementation the way sdpa_anchors.py
times cuDNN and FlashAttention-2 (the L2 flush enqueued before every launch, no synchronisation
before the start event, so the host's part of the call is not in the interval; the evaluator
synchronises after its flush, so its interval holds it). Rows of other scenario files are ignored.
TFLOP/s are recomputed from the median times with one FLOP convention for every column (FA3:
4*b*hq*sq*skv*d, halved for causal), so that every column is comparable.
"""
import json
import math
import sys


def geomean(xs):
    xs = [x for x in xs if x and x > 0 and math.isfinite(x)]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def read_report(path, set_name):
    """(scenarios by id, footer line) of one REPORT; exits with the file and line named if it is
    not one."""
    if path.endswith(".jsonl"):
        by_id = {}
        try:
            f = open(path)
        except OSError as e:
            sys.exit(f"{path}: cannot be read ({e})")
        with f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                    if row.get("file", set_name) != set_name:
                        continue
                    by_id[row["id"]] = {"candidate_ms": row.get("median_ms"),
                                        "correct": bool(row["pass"]) and row.get("median_ms") is not None}
                except (ValueError, KeyError, TypeError) as e:
                    sys.exit(f"{path}:{n}: not a check_attention --jsonl row ({e})")
        correct = all(s["correct"] for s in by_id.values())
        return by_id, (f"check_attention timing (the anchors' way), {len(by_id)} scenarios, "
                       f"all correct and timed = {correct}")
    try:
        with open(path) as f:
            rep = json.load(f)
        by_id = {s["id"]: s for s in rep["scenarios"]}
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.exit(f"{path}: not a readable `socratic eval --json` report ({e})")
    return (by_id,
            f"all correct = {rep['all_correct']}, banned = {len(rep['banned'])}, "
            f"evaluation wall time {rep['timings']['total_s']:.1f} s")


def main():
    anchors = json.load(open(sys.argv[1]))
    set_name = sys.argv[2]
    rows = {r["id"]: r for r in anchors["sets"][set_name]}
    reports = []
    for arg in sys.argv[3:]:
        name, path = arg.split("=", 1)
        by_id, footer = read_report(path, set_name)
        reports.append((name, by_id, footer))
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
    for name, _, footer in reports:
        print(f"- {name}: {footer}")


if __name__ == "__main__":
    main()
