#!/usr/bin/env python3
"""Power, SM clock and power-cap state per phase of a device call, from nvidia-smi samples.

Under sustained load the H200 runs capped at 700 W, and the clock it settles at depends on the
kernel (D54: v24 at 1582 MHz on s16384 d256, 1797 MHz on s16384 d64). A call that runs each
variant alone, marking phases, and samples nvidia-smi meanwhile answers "is it power?":

  nvidia-smi --query-gpu=timestamp,power.draw,clocks.sm,temperature.gpu,clocks_throttle_reasons.active \
      --format=csv -lms 20 > smi.csv &
  date -u +"%Y/%m/%d %T.%N start LABEL" >> phases.txt; ...run...; date -u +"%Y/%m/%d %T.%N end LABEL" >> phases.txt

Usage: gpu_power_phases.py SMI.csv PHASES.txt [--busy-watts W]
For every phase (a start and an end line with the same label, in order; the word start or end may
also follow the label): the samples inside it,
the busy ones (power above W, default 350: the flush and host work between launches draw less),
their mean power and SM clock, and how many had the software power cap (reason bit 0x4) active.
"""
import argparse
import datetime
import sys

POWER_CAP_BIT = 0x4  # clocks_event_reasons: SW power cap


def fail(message):
    sys.exit(f"gpu_power_phases.py: {message}")


def read_lines(path):
    try:
        with open(path) as f:
            return f.read().splitlines()
    except OSError as e:
        fail(f"{path}: cannot read: {e.strerror}")


def parse_time(text, path, line_no):
    for fmt in ("%Y/%m/%d %H:%M:%S.%f", "%Y-%m-%d %H:%M:%S.%f"):
        try:
            # nvidia-smi prints milliseconds, date(1) nanoseconds: keep microseconds.
            head, _, frac = text.partition(".")
            return datetime.datetime.strptime(f"{head}.{frac[:6] or '0'}", fmt)
        except ValueError:
            continue
    fail(f"{path}:{line_no}: not a timestamp: '{text}'")


def read_samples(path):
    lines = read_lines(path)
    if not lines:
        fail(f"{path}: empty (expected nvidia-smi --format=csv output with a header)")
    header = [h.strip() for h in lines[0].split(",")]

    def column(*names):
        for i, h in enumerate(header):
            if any(n in h for n in names):
                return i
        fail(f"{path}: no column named like {' or '.join(names)} in the header: {lines[0]}")

    t_col, p_col = column("timestamp"), column("power.draw")
    c_col, r_col = column("clocks.current.sm", "clocks.sm"), column("reasons.active")
    samples = []
    for n, line in enumerate(lines[1:], start=2):
        fields = [f.strip() for f in line.split(",")]
        if len(fields) < len(header):
            continue  # a line cut short when the sampler was stopped
        try:
            power = float(fields[p_col].split()[0])
            clock = float(fields[c_col].split()[0])
            reasons = int(fields[r_col], 16)
        except (ValueError, IndexError):
            continue  # "[N/A]" and the like
        samples.append((parse_time(fields[t_col], path, n), power, clock, reasons))
    if not samples:
        fail(f"{path}: no sample with a power, a clock and a reasons mask")
    return samples


def read_phases(path):
    open_at, phases = {}, []
    for n, line in enumerate(read_lines(path), start=1):
        parts = line.split()
        if not parts:
            continue
        # Either 'DATE TIME start|end LABEL...' or 'DATE TIME LABEL... start|end' (calls D48, D61).
        if len(parts) >= 4 and parts[2] in ("start", "end"):
            kind, label = parts[2], " ".join(parts[3:])
        elif len(parts) >= 4 and parts[-1] in ("start", "end"):
            kind, label = parts[-1], " ".join(parts[2:-1])
        else:
            fail(f"{path}:{n}: expected 'DATE TIME start|end LABEL' or 'DATE TIME LABEL start|end', got '{line}'")
        when = parse_time(f"{parts[0]} {parts[1]}", path, n)
        if kind == "start":
            open_at[label] = when
        elif label not in open_at:
            fail(f"{path}:{n}: 'end {label}' without a start")
        else:
            phases.append((label, open_at.pop(label), when))
    if open_at:
        fail(f"{path}: no end for: {', '.join(sorted(open_at))}")
    if not phases:
        fail(f"{path}: no phase")
    return phases


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("smi")
    ap.add_argument("phases")
    ap.add_argument("--busy-watts", type=float, default=350.0)
    args = ap.parse_args()
    samples, phases = read_samples(args.smi), read_phases(args.phases)
    width = max(len(label) for label, _, _ in phases)
    print(f"{'phase':{width}}  samples  busy  power W  SM MHz  power-capped")
    for label, start, end in phases:
        inside = [s for s in samples if start <= s[0] <= end]
        busy = [s for s in inside if s[1] > args.busy_watts]
        if busy:
            power = sum(s[1] for s in busy) / len(busy)
            clock = sum(s[2] for s in busy) / len(busy)
            capped = sum(1 for s in busy if s[3] & POWER_CAP_BIT)
            print(f"{label:{width}}  {len(inside):7d}  {len(busy):4d}  {power:7.1f}  {clock:6.0f}  {capped}/{len(busy)}")
        else:
            print(f"{label:{width}}  {len(inside):7d}  {0:4d}  (no sample above {args.busy_watts:g} W)")


if __name__ == "__main__":
    main()
