#!/usr/bin/env python3
"""Where a kernel's warps wait, by SASS opcode, from Nsight Compute's source page.

  ncu --section SourceCounters --section WarpStateStats ... -o REPORT PROGRAM...
  ncu -i REPORT.ncu-rep --page source --csv --print-source sass > src.csv   (gzip it if you like)

Usage: ncu_stalls.py SRC.csv[.gz] [--top N]
Prints the kernel's warp-state samples by stall reason, then the N opcodes (the mnemonic without
its modifiers: MUFU.EX2 counts as MUFU) that hold the most samples, each with its share of all
samples and its leading reasons. D58 read v24's d64 shapes this way: a third of the samples sit at
MUFU (waiting for its input, or on the MIO queue).
"""
import argparse
import collections
import csv
import gzip
import re
import sys

OPCODE = re.compile(r"^(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_]*)")


def fail(message):
    sys.exit(f"ncu_stalls.py: {message}")


def read_rows(path):
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rt", newline="") as f:
            rows = list(csv.reader(f))
    except (OSError, EOFError, UnicodeDecodeError) as e:
        fail(f"{path}: cannot read: {e}")
    # The page starts with the kernel's name on a line of its own, then the header.
    for i, row in enumerate(rows[:3]):
        if "Source" in row and any(h.startswith("stall_") for h in row):
            kernel = rows[0][1] if i > 0 and len(rows[0]) > 1 else ""
            return kernel, row, rows[i + 1:], i + 2  # the first data row's line number
    fail(f"{path}: no header with 'Source' and stall_* columns (expected ncu --page source --csv --print-source sass)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("source_csv")
    ap.add_argument("--top", type=int, default=12)
    args = ap.parse_args()
    kernel, header, rows, first_line = read_rows(args.source_csv)
    col = {h: i for i, h in enumerate(header)}
    reasons = [h for h in header if h.startswith("stall_") and "(" not in h]
    by_reason = collections.Counter()
    by_opcode = collections.defaultdict(collections.Counter)
    for n, row in enumerate(rows, start=first_line):
        if len(row) < len(header):
            continue
        match = OPCODE.match(row[col["Source"]].strip())
        opcode = match.group(1) if match else "?"
        for reason in reasons:
            cell = row[col[reason]].strip()
            try:
                value = float(cell) if cell else 0.0
            except ValueError:
                fail(f"{args.source_csv}:{n}: column {reason}: not a number: '{cell}'")
            by_reason[reason] += value
            by_opcode[opcode][reason] += value
    total = sum(by_reason.values())
    if total <= 0:
        fail(f"{args.source_csv}: no warp-state samples (was the SourceCounters section collected?)")
    if kernel:
        print(kernel)
    print(f"samples {total:.0f}: " + ", ".join(f"{r[6:]} {100 * v / total:.1f}%" for r, v in by_reason.most_common() if v))
    ranked = sorted(by_opcode.items(), key=lambda kv: -sum(kv[1].values()))
    for opcode, counter in ranked[: args.top]:
        share = sum(counter.values())
        if share <= 0:
            break
        lead = ", ".join(f"{r[6:]} {100 * v / total:.1f}" for r, v in counter.most_common(3) if v)
        print(f"  {opcode:12s} {100 * share / total:5.1f}%  ({lead})")


if __name__ == "__main__":
    main()
