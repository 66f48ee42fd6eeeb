#!/usr/bin/env python3
"""Times PyTorch SDPA backends on attention scenario files, for comparison with check_attention.

    python3 sdpa_compare.py [--backends flash,cudnn] [--reps 20] [--jsonl OUT] SCENARIOS.json...

Same cost model as kernels/attention/problem.cu (4 * b * hq * d * visible pairs, exact causal
count) and the same timing method as check_attention (CUDA events, a 2x L2 flush before every
call, median). Only scenarios with seqlen_q == seqlen_kv are timed (PyTorch's is_causal is
top-left aligned; the problem's mask is bottom-right; the two agree when the lengths are equal).
"""
import argparse
import json
import math
import statistics
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

BACKENDS = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION,
            "efficient": SDPBackend.EFFICIENT_ATTENTION}


def visible_pairs(sq, skv, causal):
    if not causal:
        return sq * skv
    first = max(0, sq - skv)
    n = sq - first
    lo, hi = first + skv - sq + 1, skv
    return n * (lo + hi) // 2


def scenarios(path):
    doc = json.load(open(path))
    defaults = doc.get("defaults", {})
    for entry in doc["scenarios"]:
        params = dict(defaults)
        params.update({k: v for k, v in entry.items() if k != "id"})
        yield doc.get("name", path), entry["id"], params


def time_call(fn, reps, flush):
    for _ in range(3):
        fn()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    samples = []
    for _ in range(reps):
        flush.zero_()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        samples.append(start.elapsed_time(stop))
    return statistics.median(samples)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--backends", default="flash,cudnn")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--jsonl")
    args = ap.parse_args()
    out = open(args.jsonl, "w") if args.jsonl else None
    props = torch.cuda.get_device_properties(0)
    flush = torch.empty(2 * props.L2_cache_size, dtype=torch.uint8, device="cuda")
    print(f"torch {torch.__version__}, {props.name}", flush=True)
    for path in args.files:
        logs = {b: [] for b in args.backends.split(",")}
        for name, sid, p in scenarios(path):
            sq, skv = p["seqlen_q"], p.get("seqlen_kv", p["seqlen_q"])
            if sq != skv:
                continue
            dtype = torch.bfloat16 if p.get("dtype", "bf16") == "bf16" else torch.float16
            b, hq, hkv, d = p["batch"], p["heads_q"], p["heads_kv"], p["head_dim"]
            causal = bool(p.get("causal", False))
            scale = p.get("softmax_scale", 1.0 / math.sqrt(d))
            q = torch.randn(b, hq, sq, d, dtype=dtype, device="cuda")
            k = torch.randn(b, hkv, skv, d, dtype=dtype, device="cuda")
            v = torch.randn(b, hkv, skv, d, dtype=dtype, device="cuda")
            flops = 4.0 * b * hq * d * visible_pairs(sq, skv, causal)
            row = [f"{sid:32s}"]
            for backend in logs:
                rec = {"file": name, "id": sid, "backend": backend}
                try:
                    with sdpa_kernel([BACKENDS[backend]]):
                        fn = lambda: F.scaled_dot_product_attention(
                            q, k, v, is_causal=causal, scale=scale, enable_gqa=hq != hkv)
                        ms = time_call(fn, args.reps, flush)
                    rec.update(median_ms=ms, tflops=flops / (ms * 1e-3) / 1e12)
                    logs[backend].append(rec["tflops"])
                    row.append(f"{backend} {rec['tflops']:7.1f}")
                except Exception as e:  # a backend that refuses the shape
                    rec["error"] = str(e).splitlines()[0][:200]
                    row.append(f"{backend} n/a")
                if out:
                    out.write(json.dumps(rec) + "\n")
                    out.flush()
            print("  ".join(row), flush=True)
            del q, k, v
        for backend, values in logs.items():
            if values:
                geo = math.exp(sum(map(math.log, values)) / len(values))
                print(f"-- {path} {backend}: geomean {geo:.1f} TFLOP/s over {len(values)}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
