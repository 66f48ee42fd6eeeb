#!/usr/bin/env python3
"""Summaries of tools/research/attention/tile_phases CSV files: where a query tile's time goes.

Usage: tile_phases.py FILE.csv [...]
For each file (one shape), per consumer warpgroup and tile, in SM clock cycles:
  q_wait   tile known -> Q landed            first   Q landed -> first S GEMM + softmax done
  loop     the remaining key tiles            last_pv the last P V (issue to completion)
  epilogue O / l written                      gap     epilogue done -> the next tile known
and per tile the whole period (one tile start to the next, same warpgroup). `loop/kt` is the loop's
cycles per key tile after the first; `share` is each phase's part of all tiles' time. The last tile
of each warpgroup (no next start) counts in the phases but not in `gap` or the period.
"""
import collections
import csv
import statistics
import sys


def summarise(path):
    rows = []
    try:
        f = open(path)
    except OSError as e:
        sys.exit(f"{path}: cannot read ({e.strerror})")
    with f:
        for number, r in enumerate(csv.DictReader(f), 2):
            try:
                rows.append({k: int(v) for k, v in r.items()})
            except (TypeError, ValueError) as e:
                sys.exit(f"{path}:{number}: not a tile_phases record ({e})")
    if not rows:
        print(f"{path}: no records")
        return
    by_wg = collections.defaultdict(list)
    for r in rows:
        by_wg[(r["cta"], r["wg"])].append(r)
    phases = collections.defaultdict(list)
    per_kt, periods = [], []
    for seq in by_wg.values():
        seq.sort(key=lambda r: r["kv_iter"])
        for i, r in enumerate(seq):
            if not (r["c1"] and r["c5"]):
                continue  # a tile with no visible key: no GEMM marks
            phases["q_wait"].append(r["c1"] - r["c0"])
            if r["c2"] and r["c3"] and r["c4"]:
                phases["first"].append(r["c2"] - r["c1"])
                phases["loop"].append(r["c3"] - r["c2"])
                phases["last_pv"].append(r["c4"] - r["c3"])
                phases["epilogue"].append(r["c5"] - r["c4"])
                if r["n_blocks"] > 1:
                    per_kt.append((r["c3"] - r["c2"]) / (r["n_blocks"] - 1))
            if i + 1 < len(seq) and seq[i + 1]["c0"] and seq[i + 1]["c0"] > r["c0"]:
                phases["gap"].append(seq[i + 1]["c0"] - r["c5"])
                periods.append(seq[i + 1]["c0"] - r["c0"])
    total = sum(sum(v) for v in phases.values())
    tiles = len(rows)
    n_blocks = statistics.mean(r["n_blocks"] for r in rows)
    spans = [r["ns5"] - r["ns0"] for r in rows if r["ns5"] and r["ns0"]]
    starts = sorted(r["ns0"] for r in rows if r["ns0"])
    print(f"{path}: {tiles} tile-warpgroups, {len(by_wg)} warpgroups, mean key tiles {n_blocks:.2f}, "
          f"kernel span {(max(r['ns5'] for r in rows) - starts[0]) / 1e3:.1f} us, "
          f"tile start to epilogue end {statistics.mean(spans) / 1e3:.2f} us (mean)")
    print(f"  {'phase':<9}{'mean':>9}{'median':>9}{'share':>8}")
    for name in ("q_wait", "first", "loop", "last_pv", "epilogue", "gap"):
        v = phases.get(name)
        if not v:
            continue
        print(f"  {name:<9}{statistics.mean(v):9.0f}{statistics.median(v):9.0f}{sum(v) / total:8.1%}")
    if per_kt:
        print(f"  loop/kt  {statistics.mean(per_kt):9.0f}{statistics.median(per_kt):9.0f}")
    if periods:
        print(f"  period   {statistics.mean(periods):9.0f}{statistics.median(periods):9.0f}")


def main(paths):
    if not paths:
        sys.exit(__doc__)
    for path in paths:
        summarise(path)


if __name__ == "__main__":
    main(sys.argv[1:])
