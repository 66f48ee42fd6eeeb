#!/usr/bin/env python3
"""Render docs/benchmarks.md tables from `socratic eval --json` reports and sdpa_anchors.py output
measured in the same device run.

Usage: benchmark_tables.py ANCHORS.json SET_NAME [NAME=REPORT ...]
Kernels that sdpa_anchors.py timed itself (--impl, in turns with the backends) come first, as
columns of their own; the first column is the numerator of every ratio.
A REPORT is a `socratic eval --json` file (the evaluator synchronises after its L2 flush, so its
interval holds the host's part of the call), or (ending in .jsonl) the --jsonl output of
tools/research/attention/check_attention (the flush enqueued with no synchronisation, and with
--hold-us a hold after it, as sdpa_anchors.py does; a report of several implementations gives the
rows of the one named NAME, or of IMPL given as NAME=REPORT#IMPL). Rows of other scenario files are ignored. The footer says how each
column was timed, and flags columns not timed alike.
TFLOP/s are recomputed from the median times with one FLOP convention for every column (FA3:
4*b*hq*sq*skv*d, halved for causal), so that every column is comparable.
"""
import json
import math
import sys


def geomean(xs):
    xs = [x for x in xs if x and x > 0 and math.isfinite(x)]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def hold_of(timing):
    """The hold a report's "timing" names: "none", "N us" or "flag" (older reports: hold_us)."""
    if "hold" in timing:
        return timing["hold"]
    return f"{timing['hold_us']} us" if timing.get("hold_us") else "none"


def hold_text(hold, hidden, samples):
    """How the host's part of the call was kept out of the intervals (or not)."""
    if hold == "none":
        return "no hold: the host's part of a call may fall inside its interval"
    kind = "until each call was enqueued (blocking kernel)" if hold == "flag" else hold
    return f"hold {kind}, host part hidden in {hidden} of {samples} samples"


def read_check_attention(path, set_name, name, explicit=False):
    """Rows of one implementation from a check_attention --jsonl report: those whose "impl" is
    `name`, or (unless `explicit`) all of them when the report holds a single implementation."""
    rows = []
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
                rows.append((n, row["id"], row.get("impl", name), {
                    "candidate_ms": row.get("median_ms"),
                    "correct": bool(row["pass"]) and row.get("median_ms") is not None,
                    "timing": row.get("timing", {})}))
            except (ValueError, KeyError, TypeError) as e:
                sys.exit(f"{path}:{n}: not a check_attention --jsonl row ({e})")
    impls = sorted({impl for _, _, impl, _ in rows})
    if len(impls) > 1 or explicit:  # `name` picks one; a column named after a timed kernel reads its rows
        if name not in impls:
            sys.exit(f"{path}: holds implementations {', '.join(impls)}; name the column after "
                     f"one, or pick one with NAME=REPORT#IMPL")
        rows = [r for r in rows if r[2] == name]
    by_id = {sid: s for _, sid, _, s in rows}
    correct = all(s["correct"] for s in by_id.values())
    holds = sorted({hold_of(s["timing"]) for s in by_id.values()})
    if len(holds) > 1:
        sys.exit(f"{path}: rows timed with different holds ({holds})")
    hidden = sum(s["timing"].get("host_hidden", 0) for s in by_id.values())
    samples = sum(s["timing"].get("samples", 0) for s in by_id.values())
    hold = holds[0] if holds else "none"
    return by_id, (f"check_attention timing, {len(by_id)} scenarios, all correct and timed = "
                   f"{correct}; {hold_text(hold, hidden, samples)}"), hold


def read_report(path, set_name, name, explicit=False):
    """(scenarios by id, footer line, hold in us or None for the evaluator's timing) of one
    REPORT; exits with the file and line named if it is not one."""
    if path.endswith(".jsonl"):
        return read_check_attention(path, set_name, name, explicit)
    try:
        with open(path) as f:
            rep = json.load(f)
        by_id = {s["id"]: s for s in rep["scenarios"]}
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.exit(f"{path}: not a readable `socratic eval --json` report ({e})")
    footer = (f"all correct = {rep['all_correct']}, banned = {len(rep['banned'])}, "
              f"evaluation wall time {rep['timings']['total_s']:.1f} s; the evaluator's timing "
              f"(synchronised after the flush: the host's part of the call is in the interval)")
    return by_id, footer, None


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    try:
        with open(sys.argv[1]) as f:
            anchors = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"{sys.argv[1]}: not a readable sdpa_anchors.py output ({e})")
    set_name = sys.argv[2]
    if set_name not in anchors.get("sets", {}):
        sys.exit(f"{sys.argv[1]}: no scenario set {set_name!r} (has {', '.join(anchors.get('sets', {}))})")
    rows = {r["id"]: r for r in anchors["sets"][set_name]}
    in_turns = list(anchors.get("impls", {}))  # kernels timed by sdpa_anchors.py itself
    reports = []
    holds = {"anchors": hold_of(anchors.get("timing", {}))}
    for arg in sys.argv[3:]:
        name, sep, path = arg.partition("=")
        if not sep or not name:
            sys.exit(f"{arg}: expected NAME=REPORT")
        if name in in_turns + ["cuDNN", "FA2"] + [n for n, _, _ in reports]:
            sys.exit(f"{arg}: column {name!r} is already taken; give this report another name")
        path, _, impl = path.partition("#")
        by_id, footer, hold = read_report(path, set_name, impl or name, bool(impl))
        reports.append((name, by_id, footer))
        holds[name] = hold
    anchor_cols = [(n, n) for n in in_turns] + [("cudnn", "cuDNN"), ("flash", "FA2")]
    cols = in_turns + [n for n, _, _ in reports] + ["cuDNN", "FA2"]
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
        for key, col in anchor_cols:
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
    hidden = samples = 0
    for a in rows.values():
        for key, _ in anchor_cols:
            hidden += a.get(key, {}).get("host_hidden", 0)
            samples += a.get(key, {}).get("samples", 0)
    timed = ", ".join(in_turns + ["cuDNN", "FA2"])
    turns = " in turns" if anchors.get("timing", {}).get("in_turns") else ""
    print(f"- {timed} (sdpa_anchors.py{turns}): {hold_text(holds['anchors'], hidden, samples)}")
    if len(set(holds.values())) > 1:
        print("- **not timed alike**: " + ", ".join(
            f"{n} {'evaluator' if h is None else f'hold {h}'}" for n, h in holds.items()))


if __name__ == "__main__":
    main()
