#!/usr/bin/env python3
"""Standalone driver for kernels/hopper/attention.cu on a GPU machine with PyTorch.

For every scenario (the FA3 grid, edge shapes, production prefill shapes) it
  * calls one or more built candidates (`.so` files exporting socratic_attention_forward) through
    ctypes on PyTorch's current stream, with the output poisoned (NaN) before the call;
  * checks every output element is finite, and sampled query rows (all rows for small shapes; every
    3rd row, which hits every residue of any power-of-two tile, plus the last row for large ones)
    against an fp32 reference with the FlashAttention rule (FIELD-NOTES section 4):
        max|out - ref| <= 2 * max|out_lowprec - ref| + 2 * max|ref + 0.3 - 0.3 - ref|
    where out_lowprec is the same attention computed in the inputs' precision;
  * times each candidate and PyTorch SDPA's flash and cudnn backends with CUDA events, the L2
    flushed (512 MiB written) before every timed call, median of the repetitions.
It prints one JSON object per line (scenario results) and a summary table.

Usage: bench_hopper.py --cand NAME=PATH.so [--cand ...] [--sets grid,edge,production]
                       [--sdpa] [--check-only] [--out results.jsonl]
FLOPs: 4 * b * hq * sq * skv * d, halved when causal and sq == skv (the FA3 convention used by the
anchors); for causal sq != skv the exact count of visible (query, key) pairs.
"""
import argparse
import ctypes
import json
import math
import os
import sys
import time
import traceback

import torch
import torch.nn.functional as F

BF16, FP16 = 0, 1


class Args(ctypes.Structure):
    _fields_ = [("q", ctypes.c_void_p), ("k", ctypes.c_void_p), ("v", ctypes.c_void_p),
                ("o", ctypes.c_void_p), ("batch", ctypes.c_int), ("seqlen_q", ctypes.c_int),
                ("seqlen_kv", ctypes.c_int), ("heads_q", ctypes.c_int), ("heads_kv", ctypes.c_int),
                ("head_dim", ctypes.c_int), ("causal", ctypes.c_int), ("dtype", ctypes.c_int),
                ("softmax_scale", ctypes.c_float)]


def scen(sid, b, sq, skv, hq, hkv, d, causal, dtype="bf16"):
    return dict(id=sid, batch=b, seqlen_q=sq, seqlen_kv=skv, heads_q=hq, heads_kv=hkv, head_dim=d,
                causal=bool(causal), dtype=dtype)


def fa3_grid():
    out = []
    for causal in (False, True):
        for d in (64, 128, 256):
            for s in (512, 1024, 2048, 4096, 8192, 16384):
                b, h = 16384 // s, 2048 // d
                out.append(scen(f"s{s}_d{d}_b{b}_h{h}" + ("_causal" if causal else ""), b, s, s, h, h, d,
                                causal))
    return out


def edge_set():
    e = [
        scen("tiny_s1_d64", 1, 1, 1, 4, 4, 64, False),
        scen("tiny_s2_d128_gqa_causal_fp16", 2, 2, 2, 4, 2, 128, True, "fp16"),
        scen("tiny_s17_d256_causal", 1, 17, 17, 8, 8, 256, True),
        scen("ragged_s100_d64_gqa_fp16", 2, 100, 100, 8, 2, 64, False, "fp16"),
        scen("ragged_s333_d128_mqa_causal", 1, 333, 333, 8, 1, 128, True),
        scen("ragged_s1000_d256", 3, 1000, 1000, 4, 4, 256, False),
        scen("ragged_s1023_d128_gqa_causal_fp16", 1, 1023, 1023, 16, 4, 128, True, "fp16"),
        scen("ragged_s1025_d64_causal", 1, 1025, 1025, 16, 16, 64, True),
        scen("sq128_skv1000_d128_causal", 2, 128, 1000, 8, 8, 128, True),
        scen("sq1000_skv128_d128_causal_emptyrows", 2, 1000, 128, 8, 8, 128, True),
        scen("sq777_skv300_d64_gqa_causal_fp16", 1, 777, 300, 4, 2, 64, True, "fp16"),
        scen("sq300_skv777_d256_gqa_fp16", 1, 300, 777, 4, 2, 256, False, "fp16"),
        scen("sq1_skv4096_d128_gqa_causal", 1, 1, 4096, 32, 8, 128, True),
        scen("sq4096_skv1_d64_causal_emptyrows", 1, 4096, 1, 8, 8, 64, True),
        scen("s2048_d128_gqa_causal_fp16", 4, 2048, 2048, 32, 8, 128, True, "fp16"),
        scen("s513_d256_causal_fp16", 1, 513, 513, 8, 8, 256, True, "fp16"),
        scen("s4096_d64_fp16", 2, 4096, 4096, 16, 16, 64, False, "fp16"),
        scen("s3000_d256_mqa_causal", 1, 3000, 3000, 8, 1, 256, True),
        scen("general_d96_causal", 1, 200, 300, 4, 2, 96, True),
        scen("general_d80_fp16", 2, 65, 65, 2, 2, 80, False, "fp16"),
    ]
    return e


def production_set():
    # Prefill shapes of open models with grouped-query attention (heads_q/heads_kv, head_dim from
    # each model's published config.json): Llama-3-8B 32/8 d128, Llama-3-70B 64/8 d128,
    # Mistral-7B 32/8 d128, Qwen2.5-7B 28/4 d128, Gemma-2-9B 16/8 d256.
    models = [("llama3_8b", 32, 8, 128), ("llama3_70b", 64, 8, 128), ("mistral_7b", 32, 8, 128),
              ("qwen2.5_7b", 28, 4, 128), ("gemma2_9b", 16, 8, 256)]
    out = []
    for name, hq, hkv, d in models:
        for s in (2048, 4096, 8192):
            out.append(scen(f"{name}_s{s}_causal", 1, s, s, hq, hkv, d, True))
    return out


SETS = {"grid": fa3_grid, "edge": edge_set, "production": production_set}


def load_set(spec):
    """A built-in set name, or a scenario-set file (scenarios/*.json: defaults + scenarios)."""
    if spec in SETS:
        return spec, SETS[spec]()
    with open(spec) as f:
        doc = json.load(f)
    out = []
    for raw in doc["scenarios"]:
        sc = dict(doc.get("defaults", {}))
        sc.update(raw)
        sc.setdefault("seqlen_kv", sc["seqlen_q"])
        sc.setdefault("causal", False)
        sc.setdefault("dtype", "bf16")
        sc["causal"] = bool(sc["causal"])
        sc.pop("description", None)
        out.append(sc)
    return doc.get("name", spec), out


def flops(sc):
    b, sq, skv, hq, d = sc["batch"], sc["seqlen_q"], sc["seqlen_kv"], sc["heads_q"], sc["head_dim"]
    if not sc["causal"]:
        return 4.0 * b * hq * sq * skv * d
    if sq == skv:
        return 2.0 * b * hq * sq * skv * d
    shift = skv - sq
    pairs = sum(max(0, min(skv, i + shift + 1)) for i in range(sq))
    return 4.0 * b * hq * pairs * d


def torch_dtype(name):
    return torch.bfloat16 if name == "bf16" else torch.float16


class Candidate:
    def __init__(self, name, path):
        self.name = name
        self.lib = ctypes.CDLL(os.path.abspath(path))  # a bare name would be searched on the library path
        self.fn = self.lib.socratic_attention_forward
        self.fn.argtypes = [ctypes.POINTER(Args), ctypes.c_void_p]
        self.fn.restype = ctypes.c_int

    def make_call(self, sc, q, k, v, o, scale):
        a = Args(q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr(), sc["batch"], sc["seqlen_q"],
                 sc["seqlen_kv"], sc["heads_q"], sc["heads_kv"], sc["head_dim"], int(sc["causal"]),
                 BF16 if sc["dtype"] == "bf16" else FP16, scale)
        stream = torch.cuda.current_stream().cuda_stream
        ref = ctypes.byref(a)

        def call():
            rc = self.fn(ref, ctypes.c_void_p(stream))
            if rc != 0:
                raise RuntimeError(f"{self.name}: declined (rc={rc})")
        return call


def make_inputs(sc, seed, scale_in=1.0):
    g = torch.Generator(device="cuda")
    g.manual_seed(seed)
    dt = torch_dtype(sc["dtype"])
    b, sq, skv, hq, hkv, d = (sc[x] for x in ("batch", "seqlen_q", "seqlen_kv", "heads_q", "heads_kv", "head_dim"))
    q = (torch.randn(b, sq, hq, d, device="cuda", generator=g) * scale_in).to(dt)
    k = (torch.randn(b, skv, hkv, d, device="cuda", generator=g) * scale_in).to(dt)
    v = torch.randn(b, skv, hkv, d, device="cuda", generator=g).to(dt)
    return q, k, v


def sample_rows(sq):
    if sq <= 2048:
        return torch.arange(sq, device="cuda")
    rows = list(range(0, sq, 3))
    if rows[-1] != sq - 1:
        rows.append(sq - 1)
    return torch.tensor(rows, device="cuda")


def reference(sc, q, k, v, rows, scale):
    """fp32 attention and the same in the inputs' precision, for the query rows `rows`."""
    b, sq, skv, hq, hkv, d = (sc[x] for x in ("batch", "seqlen_q", "seqlen_kv", "heads_q", "heads_kv", "head_dim"))
    group = hq // hkv
    R = rows.numel()
    out_ref = torch.empty(b, R, hq, d, device="cuda", dtype=torch.float32)
    out_lp = torch.empty(b, R, hq, d, device="cuda", dtype=q.dtype)
    masked = None
    if sc["causal"]:
        keys = torch.arange(skv, device="cuda")
        masked = keys[None, :] > (rows[:, None] + (skv - sq))  # (R, skv)
    hc = max(1, min(hq, (1 << 28) // max(1, R * skv)))
    for bi in range(b):
        qs = q[bi, rows]  # (R, hq, d)
        for h0 in range(0, hq, hc):
            h1 = min(hq, h0 + hc)
            kv_heads = torch.arange(h0, h1, device="cuda") // group
            qh = qs[:, h0:h1].transpose(0, 1)  # (hc, R, d)
            kh = k[bi][:, kv_heads].transpose(0, 1)  # (hc, skv, d)
            vh = v[bi][:, kv_heads].transpose(0, 1)
            s32 = torch.matmul(qh.float() * scale, kh.float().transpose(1, 2))
            s_lp = torch.matmul((qh * scale).to(q.dtype), kh.transpose(1, 2))
            if masked is not None:
                s32.masked_fill_(masked, float("-inf"))
                s_lp.masked_fill_(masked, float("-inf"))
            p32 = torch.softmax(s32, dim=-1).nan_to_num_(0.0)
            p_lp = torch.softmax(s_lp.float(), dim=-1).nan_to_num_(0.0).to(q.dtype)
            out_ref[bi, :, h0:h1] = torch.matmul(p32, vh.float()).transpose(0, 1)
            out_lp[bi, :, h0:h1] = torch.matmul(p_lp, vh).transpose(0, 1)
            del s32, s_lp, p32, p_lp
    return out_ref, out_lp


_flush = None


def bench(fn, min_reps=10, max_reps=30, target_ms=40.0):
    global _flush
    if _flush is None:
        _flush = torch.empty(512 * 1024 * 1024 // 4, dtype=torch.int32, device="cuda")
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    spent = 0.0
    while len(times) < max_reps and (len(times) < min_reps or spent < target_ms):
        batch = []
        for _ in range(5):
            st, en = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            _flush.zero_()  # evicts L2, and keeps the GPU busy while the host queues the timed call
            st.record()
            fn()
            en.record()
            batch.append((st, en))
        torch.cuda.synchronize()
        for st, en in batch:
            t = st.elapsed_time(en)
            times.append(t)
            spent += t
    times.sort()
    med = times[len(times) // 2]
    spread = (times[int(len(times) * 0.9)] - times[int(len(times) * 0.1)]) / med if med > 0 else 0.0
    return med, spread, len(times)


def sdpa_call(backend, sc, q, k, v, scale):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    bk = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}[backend]
    qt, kt, vt = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
    gqa = sc["heads_q"] != sc["heads_kv"]
    note = ""
    if gqa:
        try:
            with sdpa_kernel([bk]):
                F.scaled_dot_product_attention(qt, kt, vt, is_causal=sc["causal"], scale=scale, enable_gqa=True)
        except Exception:  # backend without native GQA: give it expanded K/V (outside the timing)
            rep = sc["heads_q"] // sc["heads_kv"]
            kt = kt.repeat_interleave(rep, dim=1)
            vt = vt.repeat_interleave(rep, dim=1)
            gqa = False
            note = "kv expanded"

    def call():
        with sdpa_kernel([bk]):
            return F.scaled_dot_product_attention(qt, kt, vt, is_causal=sc["causal"], scale=scale,
                                                  enable_gqa=gqa)
    return call, note


def run_scenario(sc, cands, do_sdpa, check_only, seed):
    res = dict(sc)
    res["flops"] = flops(sc)
    scale = float(sc.get("softmax_scale") or 1.0 / math.sqrt(sc["head_dim"]))
    q, k, v = make_inputs(sc, seed)
    rows = sample_rows(sc["seqlen_q"])
    ref, lp = reference(sc, q, k, v, rows, scale)
    err_lp = (lp.float() - ref).abs().max().item() if ref.numel() else 0.0
    atol = 2 * (ref + 0.3 - 0.3 - ref).abs().max().item() if ref.numel() else 0.0
    res["err_lowprec"] = err_lp
    res["rows_checked"] = rows.numel()
    # Second inputs, for a second call in the same buffers (no memoisation, no stale state).
    q2, k2, v2 = make_inputs(sc, seed + 7777)
    ref2, lp2 = reference(sc, q2, k2, v2, rows, scale)
    bound2 = 2 * (lp2.float() - ref2).abs().max().item() + atol if ref2.numel() else 0.0
    q1, k1, v1 = q.clone(), k.clone(), v.clone()
    for cand in cands:
        r = {}
        try:
            q.copy_(q1)
            k.copy_(k1)
            v.copy_(v1)
            o = torch.full_like(q, float("nan"))
            call = cand.make_call(sc, q, k, v, o, scale)
            call()
            torch.cuda.synchronize()
            nonfinite = int((~torch.isfinite(o)).sum().item())
            out = o[:, rows].float()
            err = (out - ref).abs().max().item() if ref.numel() else 0.0
            bound = 2 * err_lp + atol
            r.update(nonfinite=nonfinite, err=err, bound=bound,
                     correct=bool(nonfinite == 0 and err <= bound))
            if not r["correct"]:
                # Where is it wrong? per 64-row group of the sampled rows and per 64-column chunk.
                diff = (out - ref).abs()  # (b, R, hq, d)
                bad = (diff > bound).nonzero()
                r["bad_count"] = int(bad.shape[0])
                if bad.shape[0]:
                    sel = bad[: min(8, bad.shape[0])].tolist()
                    r["bad_examples"] = [
                        dict(b=x[0], row=int(rows[x[1]].item()), h=x[2], col=x[3],
                             got=float(out[x[0], x[1], x[2], x[3]].item()),
                             ref=float(ref[x[0], x[1], x[2], x[3]].item())) for x in sel]
                    r["bad_rows_mod64"] = sorted(set(int(rows[x].item()) % 64 for x in bad[:, 1].tolist()))[:64]
                    r["bad_cols"] = sorted(set(bad[:, 3].tolist()))[:64]
            # A second call with other inputs in the same buffers: no memoisation, no stale state.
            q.copy_(q2)
            k.copy_(k2)
            v.copy_(v2)
            o.fill_(float("nan"))
            call()
            torch.cuda.synchronize()
            err2 = (o[:, rows].float() - ref2).abs().max().item() if ref2.numel() else 0.0
            nonfinite2 = int((~torch.isfinite(o)).sum().item())
            r["err_second_inputs"] = err2
            r["correct"] = bool(r["correct"] and err2 <= bound2 and nonfinite2 == 0)
            if not check_only and r["correct"]:
                ms, spread, n = bench(call)
                r.update(ms=ms, spread=spread, reps=n, tflops=res["flops"] / ms / 1e9)
        except Exception as exc:  # keep going: one broken scenario must not hide the others
            r.update(correct=False, error=f"{type(exc).__name__}: {exc}")
            traceback.print_exc(file=sys.stderr)
            torch.cuda.synchronize()
        res[cand.name] = r
    if do_sdpa and not check_only and (not sc["causal"] or sc["seqlen_q"] == sc["seqlen_kv"]):
        for backend in ("flash", "cudnn"):
            try:
                call, note = sdpa_call(backend, sc, q, k, v, scale)
                ms, spread, n = bench(call)
                res["sdpa_" + backend] = dict(ms=ms, spread=spread, reps=n, tflops=res["flops"] / ms / 1e9,
                                              note=note)
            except Exception as exc:
                res["sdpa_" + backend] = dict(error=f"{type(exc).__name__}: {str(exc)[:200]}")
    del q, k, v, ref, lp, q1, k1, v1, q2, k2, v2, ref2, lp2
    return res


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cand", action="append", default=[], help="NAME=PATH.so")
    ap.add_argument("--sets", default="grid,edge,production")
    ap.add_argument("--sdpa", action="store_true")
    ap.add_argument("--check-only", action="store_true")
    ap.add_argument("--only", default="", help="comma-separated scenario ids")
    ap.add_argument("--out", default="")
    ap.add_argument("--seed", type=int, default=1234)
    args = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    cands = [Candidate(*c.split("=", 1)) for c in args.cand]
    names = [c.name for c in cands] + (["sdpa_flash", "sdpa_cudnn"] if args.sdpa else [])
    out = open(args.out, "a") if args.out else None
    print(json.dumps(dict(event="hello", device=torch.cuda.get_device_name(), torch=torch.__version__,
                          cudnn=torch.backends.cudnn.version(), candidates=args.cand,
                          time=time.strftime("%Y-%m-%d %H:%M:%S"))), flush=True)
    only = set(x for x in args.only.split(",") if x)
    summary = {}
    for spec in args.sets.split(","):
        set_name, scenarios = load_set(spec)
        rows = []
        for sc in scenarios:
            if only and sc["id"] not in only:
                continue
            t0 = time.time()
            res = run_scenario(sc, cands, args.sdpa, args.check_only, args.seed)
            res["set"] = set_name
            res["wall_s"] = round(time.time() - t0, 2)
            line = json.dumps(res)
            print(line, flush=True)
            if out:
                out.write(line + "\n")
                out.flush()
            rows.append(res)
        summary[set_name] = rows
    # Summary: per set, correctness count and geomean TFLOP/s per implementation.
    print("\n== summary ==")
    for set_name, rows in summary.items():
        parts = [f"{set_name}: {len(rows)} scenarios"]
        for n in names:
            ok = sum(1 for r in rows if r.get(n, {}).get("correct", n.startswith("sdpa")))
            g = geomean([r.get(n, {}).get("tflops") for r in rows])
            parts.append(f"{n}: correct {ok}/{len(rows)} geomean {g:.1f} TFLOP/s")
        print(" | ".join(parts))
        if "edge" not in set_name:
            print(f"{'scenario':34s}" + "".join(f"{n:>16s}" for n in names))
            for r in rows:
                cells = []
                for n in names:
                    x = r.get(n, {})
                    cells.append(f"{x['tflops']:16.1f}" if "tflops" in x else f"{('FAIL' if x.get('correct') is False else '-'):>16s}")
                print(f"{r['id']:34s}" + "".join(cells))
        else:
            for r in rows:
                bad = [n for n in names if not n.startswith("sdpa") and not r.get(n, {}).get("correct")]
                if bad:
                    print(f"  edge FAIL {r['id']}: " + "; ".join(f"{n}: {r.get(n)}" for n in bad))
    sys.stdout.flush()
    failed = [r["id"] for rows in summary.values() for r in rows for c in cands if not r.get(c.name, {}).get("correct")]
    if failed:
        print(f"incorrect: {len(failed)} (scenario, candidate) pairs; first: {failed[:5]}")
        sys.exit(3)


if __name__ == "__main__":
    main()
