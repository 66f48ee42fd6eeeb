#!/usr/bin/env python3
"""How many times an attention launch read its inputs from DRAM, from Nsight Compute's raw page.

  ncu --metrics dram__bytes.sum.per_second,gpu__time_duration.sum ... --csv --page raw > ID.csv

Usage: ncu_dram_traffic.py SCENARIOS.json RAW.csv[.gz]...
Each page's file name, up to its first dot, is a scenario id of SCENARIOS.json. For the first
launch whose kernel name contains "attention_fwd" it prints the DRAM traffic (bytes per second
times the launch's duration; Nsight Compute flushes the caches before each launch by default)
against the compulsory traffic, Q, K and V read once and O written once (bf16/fp16: 2 bytes an
element), and their ratio. A ratio near 1 means no tile order can read less: D114's pages read
0.96-1.01 on every shape (campaign log, session 14).
"""
import csv
import gzip
import json
import os
import sys

RATE = "dram__bytes.sum.per_second"
DURATION = "gpu__time_duration.sum"
ELEMENT_BYTES = 2


def fail(message):
    sys.exit(f"ncu_dram_traffic.py: {message}")


def load_scenarios(path):
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{path}: cannot read: {e}")
    scenarios = doc.get("scenarios") if isinstance(doc, dict) else None
    if not isinstance(scenarios, list):
        fail(f"{path}: no 'scenarios' list")
    defaults = doc.get("defaults") or {}
    return {s.get("id"): {**defaults, **s} for s in scenarios if isinstance(s, dict)}


def compulsory_bytes(s, where):
    try:
        b, hq, hkv = int(s["batch"]), int(s["heads_q"]), int(s.get("heads_kv", s["heads_q"]))
        sq, skv, d = int(s["seqlen_q"]), int(s["seqlen_kv"]), int(s["head_dim"])
    except (KeyError, TypeError, ValueError) as e:
        fail(f"{where}: the scenario lacks a shape field: {e}")
    q_and_o = 2 * b * hq * sq * d
    k_and_v = 2 * b * hkv * skv * d
    return (q_and_o + k_and_v) * ELEMENT_BYTES


def number(text, where, column):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        fail(f"{where}: column {column}: not a number: {text!r}")


def launch_traffic(path):
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rt", newline="") as f:
            rows = list(csv.reader(f))  # the profiled program's own output may come first
    except (OSError, EOFError, UnicodeDecodeError) as e:
        fail(f"{path}: cannot read: {e}")
    start = next((i for i, r in enumerate(rows) if r[:1] == ["ID"] and "Kernel Name" in r), None)
    if start is None:
        fail(f"{path}: no header with 'ID' and 'Kernel Name' (expected ncu --csv --page raw)")
    header, rows = rows[start], [r for r in rows[start + 1:] if len(r) == len(rows[start])]
    for column in (RATE, DURATION):
        if column not in header:
            fail(f"{path}: no column {column} (profile with --metrics {RATE},{DURATION})")
    name, rate, duration = header.index("Kernel Name"), header.index(RATE), header.index(DURATION)
    for row in rows:
        if "attention_fwd" not in row[name]:
            continue
        where = f"{path}: launch {row[0]}"
        seconds = number(row[duration], where, DURATION) * 1e-9  # ns
        return number(row[rate], where, RATE) * seconds, row[name]
    fail(f"{path}: no launch of an attention_fwd kernel")


def main(argv):
    if len(argv) < 3:
        fail("usage: ncu_dram_traffic.py SCENARIOS.json RAW.csv[.gz]...")
    scenarios = load_scenarios(argv[1])
    print(f"{'scenario':28s} {'DRAM MB':>9s} {'Q+K+V+O MB':>11s} {'ratio':>6s}")
    for path in argv[2:]:
        sid = os.path.basename(path).split(".")[0]
        if sid not in scenarios:
            fail(f"{path}: '{sid}' is not a scenario of {argv[1]}")
        traffic, _ = launch_traffic(path)
        needed = compulsory_bytes(scenarios[sid], f"{argv[1]}: {sid}")
        print(f"{sid:28s} {traffic / 1e6:9.1f} {needed / 1e6:11.1f} {traffic / needed:6.3f}")


if __name__ == "__main__":
    main(sys.argv)
