#!/usr/bin/env python3
"""Repeatability of absolute times over runs of the runner (JSON lines, one file per run).

Usage: repeatability.py RUN1.jsonl RUN2.jsonl ...   (or socratic eval --json reports)
Prints, for the candidate's median times: the spread (max - min) / median of each scenario over
the runs, summarised (median, max, how many scenarios under 1%), and the spread of the geomean.
"""
import json
import math
import statistics
import sys


def load(path):
    times = {}
    with open(path) as f:
        text = f.read()
    try:  # a socratic eval report
        doc = json.loads(text)
        for s in doc["scenarios"]:
            times[s["id"]] = s["candidate_ms"]
        return times
    except (ValueError, KeyError):
        pass
    for line in text.splitlines():  # runner protocol lines
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if event.get("event") == "scenario_end":
            times[event["result"]["id"]] = event["result"]["candidate_ms"]
    return times


def main(paths):
    runs = [load(p) for p in paths]
    ids = [i for i in runs[0] if all(i in r and r[i] for r in runs)]
    spreads = {}
    for i in ids:
        t = [r[i] for r in runs]
        spreads[i] = (max(t) - min(t)) / statistics.median(t)
    geo = [math.exp(sum(math.log(r[i]) for i in ids) / len(ids)) for r in runs]
    worst = max(spreads, key=spreads.get)
    print(f"{len(runs)} runs, {len(ids)} scenarios")
    print(f"per-scenario spread of the median time: median {100 * statistics.median(spreads.values()):.2f}%, "
          f"max {100 * spreads[worst]:.2f}% ({worst}), under 1%: {sum(v < 0.01 for v in spreads.values())}/{len(ids)}")
    print(f"geomean time spread: {100 * (max(geo) - min(geo)) / statistics.median(geo):.2f}%")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1:])
