import json, math, sys, re
def load(path):
    res, logs, fatal = {}, [], None
    for line in open(path, errors='replace'):
        try: e = json.loads(line)
        except Exception: continue
        if e.get('event') == 'scenario_end': res[e['result']['id']] = e['result']
        if e.get('event') == 'log': logs.append(e['message'])
        if e.get('event') == 'fatal': fatal = e['message']
    return res, logs, fatal
for path in sys.argv[1:]:
    res, logs, fatal = load(path)
    sp = [r['speedup'] for r in res.values() if r.get('speedup')]
    geo = math.exp(sum(map(math.log, sp)) / len(sp)) if sp else float('nan')
    ok = sum(1 for r in res.values() if r['correct'])
    flags = sorted({f for r in res.values() for f in r.get('flags', [])})
    reasons = sorted({(r.get('reason') or '')[:110] for r in res.values() if not r['correct']})
    resid = [tuple(map(float, m.groups())) for m in (re.search(r"residual ([\d.]+) us \(candidate\) vs ([\d.]+) us \(baseline\), allowance ([\d.]+) us; quiet fences after the candidate ([\d.]+) us, after the baseline ([\d.]+)", l) for l in logs) if m]
    import statistics
    nz = [r.get('candidate_noise') for r in res.values() if r.get('candidate_noise') is not None]
    print(f"   samples {sum(r.get('samples',0) for r in res.values())}, median candidate noise {statistics.median(nz) if nz else float('nan'):.4f}, timing {sum(1 for _ in res)} scenarios")
    print(f"{path}: {ok}/{len(res)} correct, geomean speedup {geo:.4f} over {len(sp)}, flags {flags}" + (f", fatal: {fatal[:120]}" if fatal else ""))
    for r in reasons[:3]: print("   reason:", r)
    if resid:
        ex = [c - b for c, b, *_ in resid]
        ratio = max((c - b) / a for c, b, a, *_ in resid)
        print(f"   worst excess/allowance {ratio:.2f}; excess by scenario: " + " ".join(f"{c-b:.0f}" for c, b, *_ in resid))
        print(f"   clock residual cand {min(r[0] for r in resid):.0f}-{max(r[0] for r in resid):.0f} us, base {min(r[1] for r in resid):.0f}-{max(r[1] for r in resid):.0f}, excess {min(ex):.1f}..{max(ex):.1f} us, allowance {min(r[2] for r in resid):.0f}-{max(r[2] for r in resid):.0f}; quiet after cand {max(r[3] for r in resid):.0f} max, after base {max(r[4] for r in resid):.0f} max")
