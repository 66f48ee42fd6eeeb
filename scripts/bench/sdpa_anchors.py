#!/usr/bin/env python3
"""Measure PyTorch SDPA backends (cuDNN, FlashAttention-2) on Socratic scenario files.

The anchors every benchmark compares against, measured in the same run as the kernels they
judge. Usage: python3 sdpa_anchors.py scenarios/attention_fa3_grid.json [...] > anchors.json
FLOPs follow the FA3 convention: 4*b*hq*sq*skv*d, halved for causal.
"""
import json
import math
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

BACKENDS = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION}
DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16}


def load(path):
    with open(path) as f:
        doc = json.load(f)
    defaults = doc.get("defaults", {})
    for sc in doc["scenarios"]:
        p = dict(defaults)
        p.update(sc)
        yield doc["name"], p


def flops(p):
    f = 4.0 * p["batch"] * p["heads_q"] * p["seqlen_q"] * p["seqlen_kv"] * p["head_dim"]
    return f / 2 if p.get("causal", False) else f


def time_ms(fn, flush, min_reps=20, max_reps=200, budget_ms=1500.0):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    samples = []
    total = 0.0
    while len(samples) < max_reps and (len(samples) < min_reps or total < budget_ms):
        flush.zero_()  # evict L2 (the buffer is several times its size)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        ms = start.elapsed_time(end)
        samples.append(ms)
        total += ms
    samples.sort()
    med = samples[len(samples) // 2]
    q1, q3 = samples[len(samples) // 4], samples[(3 * len(samples)) // 4]
    return med, (q3 - q1) / med, len(samples)


def measure(p, flush):
    dt = DTYPES[p.get("dtype", "bf16")]
    b, sq, skv = p["batch"], p["seqlen_q"], p["seqlen_kv"]
    hq, hkv, d = p["heads_q"], p["heads_kv"], p["head_dim"]
    causal = bool(p.get("causal", False))
    gen = torch.Generator(device="cuda").manual_seed(0)
    # Socratic's layout is BSHD; SDPA wants BHSD: transpose views, as FlashAttention users do.
    q = torch.randn(b, sq, hq, d, device="cuda", dtype=dt, generator=gen).transpose(1, 2)
    k = torch.randn(b, skv, hkv, d, device="cuda", dtype=dt, generator=gen).transpose(1, 2)
    v = torch.randn(b, skv, hkv, d, device="cuda", dtype=dt, generator=gen).transpose(1, 2)
    out = {"id": p["id"], "flops": flops(p)}
    if causal and sq != skv:
        out["note"] = "skipped: SDPA's is_causal is top-left aligned, Socratic's bottom-right"
        return out
    for name, backend in BACKENDS.items():
        def run(kk=k, vv=v, gqa=hq != hkv):
            return F.scaled_dot_product_attention(q, kk, vv, is_causal=causal, enable_gqa=gqa)
        try:
            with sdpa_kernel([backend]):
                ms, noise, n = time_ms(run, flush)
            out[name] = {"ms": ms, "tflops": flops(p) / (ms * 1e-3) / 1e12, "noise": noise, "samples": n}
        except Exception as e:  # a backend may refuse a shape (e.g. GQA): record why
            out[name] = {"error": str(e).splitlines()[0][:200]}
    return out


def main():
    torch.backends.cuda.matmul.allow_tf32 = False
    props = torch.cuda.get_device_properties(0)
    flush = torch.empty(4 * props.L2_cache_size, dtype=torch.int8, device="cuda")  # 4x L2
    results = {"device": props.name, "torch": torch.__version__,
               "cudnn": torch.backends.cudnn.version(), "sets": {}}
    for path in sys.argv[1:]:
        for set_name, p in load(path):
            r = measure(p, flush)
            results["sets"].setdefault(set_name, []).append(r)
            print(json.dumps(r), file=sys.stderr, flush=True)
    for set_name, rows in results["sets"].items():
        for name in BACKENDS:
            vals = [r[name]["tflops"] for r in rows if name in r and "tflops" in r[name]]
            if vals:
                results.setdefault("geomean_tflops", {}).setdefault(set_name, {})[name] = \
                    math.exp(sum(math.log(x) for x in vals) / len(vals))
    json.dump(results, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
