#!/usr/bin/env python3
"""Renders bench_hopper.py's results.jsonl as the markdown tables of docs/benchmarks.md: per
scenario TFLOP/s for each implementation, then per set the geomean and the geomean ratio of the
first implementation to each other one (over the scenarios both have).
usage: results_table.py RESULTS.jsonl [--impls ship,baseline,sdpa_flash,sdpa_cudnn] [--sets a,b]"""
import argparse
import json
import math


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("--impls", default="ship,baseline,sdpa_flash,sdpa_cudnn")
    ap.add_argument("--sets", default="attention_fa3_grid,attention_production")
    a = ap.parse_args()
    impls = a.impls.split(",")
    rows = [json.loads(line) for line in open(a.results)]
    for set_name in a.sets.split(","):
        rs = [r for r in rows if r["set"] == set_name]
        print(f"\n#### {set_name} ({len(rs)} scenarios)\n")
        print("| scenario | " + " | ".join(impls) + " | correct |")
        print("|---|" + "---:|" * len(impls) + "---|")
        for r in rs:
            cells = []
            for i in impls:
                x = r.get(i, {})
                cells.append(f"{x['tflops']:.1f}" if "tflops" in x else "-")
            ok = all(r.get(i, {}).get("correct", True) for i in impls if not i.startswith("sdpa"))
            print(f"| {r['id']} | " + " | ".join(cells) + f" | {'yes' if ok else 'NO'} |")
        g = {i: geomean([r.get(i, {}).get("tflops") for r in rs]) for i in impls}
        print("| **geomean** | " + " | ".join(f"**{g[i]:.1f}**" for i in impls) + " | |")
        first = impls[0]
        ratios = []
        for i in impls[1:]:
            pairs = [(r[first]["tflops"], r[i]["tflops"]) for r in rs
                     if "tflops" in r.get(first, {}) and "tflops" in r.get(i, {})]
            ratios.append(f"{first}/{i} = {geomean([p / q for p, q in pairs]):.3f}")
        print("\nGeomean ratios: " + "; ".join(ratios) + ".")


if __name__ == "__main__":
    main()
