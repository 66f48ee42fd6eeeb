"""The baseline against itself: per scenario, the range of the speedup over the runs of each
variant, the noise, the judge's time split (check, timing, reference). Usage: selfstats.py DIR SET"""
import glob, json, math, statistics, sys

d, which = sys.argv[1], sys.argv[2]
for variant in ("old", "held", "unheld"):
    per, noise, base_ms, runs = {}, {}, {}, []
    for path in sorted(glob.glob(f"{d}/{which}_{variant}_*.jsonl")):
        check = timing = ref = 0.0
        sp = []
        for line in open(path, errors="replace"):
            try:
                e = json.loads(line)
            except Exception:
                continue
            if e.get("event") != "scenario_end":
                continue
            r = e["result"]
            check += e.get("check_s") or 0
            timing += e.get("timing_s") or 0
            ref += e.get("reference_s") or 0
            if r.get("speedup"):
                per.setdefault(r["id"], []).append(r["speedup"])
                sp.append(r["speedup"])
                noise.setdefault(r["id"], []).append(max(r.get("candidate_noise") or 0, r.get("baseline_noise") or 0))
                base_ms.setdefault(r["id"], []).append(r.get("baseline_ms") or 0)
        geo = math.exp(sum(map(math.log, sp)) / len(sp)) if sp else float("nan")
        runs.append((geo, len(sp), check, timing, ref))
    if not runs:
        continue
    print(f"{which} {variant}: {len(runs)} runs; geomean " + ", ".join(f"{g:.4f}" for g, *_ in runs)
          + "; scenarios with a speedup " + ",".join(str(n) for _, n, *_ in runs))
    print(f"   judge time split per run (check / timing / reference s): "
          + "; ".join(f"{c:.1f}/{t:.1f}/{r:.1f}" for _, _, c, t, r in runs))
    worst = 0
    for sid in sorted(per, key=lambda s: statistics.median(base_ms[s])):
        v = per[sid]
        lo, hi = min(v), max(v)
        worst = max(worst, abs(lo - 1), abs(hi - 1))
        print(f"   {sid:32s} base {1e3*statistics.median(base_ms[sid]):9.1f} us  speedup {lo:.4f}-{hi:.4f}  noise max {100*max(noise[sid]):.1f}%")
    print(f"   worst |speedup - 1| over every scenario and run: {100*worst:.2f}%")
