#!/usr/bin/env python3
"""Measure PyTorch SDPA backends (cuDNN, FlashAttention-2) on Socratic scenario files.

The anchors every benchmark compares against, measured in the same run as the kernels they
judge. Usage: python3 sdpa_anchors.py [--hold-flag LIB | --hold-us N] [--impl NAME=LIB.so ...]
                  scenarios/attention_fa3_grid.json [...] > anchors.json
FLOPs follow the FA3 convention: 4*b*hq*sq*skv*d, halved for causal.

Timing: CUDA events around the call, an L2 flush (4x L2, zeroed) before every launch, median;
the backends (and any kernel given with --impl) take turns, round by round. A hold between the
flush and the start event keeps PyTorch's dispatch out of the interval: --hold-flag LIB holds
the stream until the call is enqueued (NVBench's blocking kernel: LIB is built from
tools/research/attention/blocking_hold_lib.cu; the GPU rests only that long), --hold-us N for
about N microseconds with torch.cuda._sleep (which also rests the GPU between samples; D46/D47
found that this alone moves cuDNN by up to 11% on long shapes). Every sample records whether the
hold outlasted the host's part of the call. check_attention --hold-flag / --hold-us time a kernel
the same way.
"""
import argparse
import ctypes
import json
import math
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

import attention_abi  # beside this file

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


def sleep_cycles_per_us():
    """Cycles of torch.cuda._sleep per microsecond on this GPU, measured (the SM clock)."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda._sleep(1000)
    cycles = 20_000_000
    start.record()
    torch.cuda._sleep(cycles)
    end.record()
    end.synchronize()
    return cycles / (start.elapsed_time(end) * 1000.0)


class FlagHold:
    """check_attention's BlockingHold through tools/research/attention/blocking_hold_lib.cu."""

    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        self.lib.socratic_hold_block.argtypes = [ctypes.c_void_p]
        if self.lib.socratic_hold_init() != 0:
            raise OSError(f"{path}: socratic_hold_init failed (reason on stderr)")

    def block(self):
        if self.lib.socratic_hold_block(torch.cuda.current_stream().cuda_stream) != 0:
            raise RuntimeError("socratic_hold_block failed (reason on stderr)")

    def release(self):
        self.lib.socratic_hold_release()

    def hid_last(self):
        return self.lib.socratic_hold_hid_last() == 1


def time_in_turns(fns, flush, hold_cycles=0, flag_hold=None, min_reps=20, max_reps=200,
                  budget_ms=1500.0):
    """Times every callable of `fns` (name -> fn) in turns: round r launches each once, starting
    from a different one each round, so that all see the same clock and power state. Returns
    name -> (median ms, interquartile range / median, samples, samples whose host part the hold
    hid)."""
    names = list(fns)
    for name in names:
        for _ in range(3):
            fns[name]()
    torch.cuda.synchronize()
    samples = {n: [] for n in names}
    hidden = dict.fromkeys(names, 0)
    total = 0.0
    r = 0
    while r < max_reps and (r < min_reps or total < budget_ms * len(names)):
        for j in range(len(names)):
            name = names[(j + r) % len(names)]
            flush.zero_()  # evict L2 (the buffer is several times its size)
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            if flag_hold:
                flag_hold.block()
            elif hold_cycles:
                torch.cuda._sleep(hold_cycles)
            start.record()
            try:
                fns[name]()
                pending = not start.query()
            finally:
                if flag_hold:
                    flag_hold.release()
            end.record()
            end.synchronize()
            if flag_hold.hid_last() if flag_hold else pending:
                hidden[name] += 1
            ms = start.elapsed_time(end)
            samples[name].append(ms)
            total += ms
        r += 1
    out = {}
    for name, xs in samples.items():
        xs.sort()
        med = xs[len(xs) // 2]
        q1, q3 = xs[len(xs) // 4], xs[(3 * len(xs)) // 4]
        out[name] = (med, (q3 - q1) / med, len(xs), hidden[name])
    return out


class Kernel:
    """A Socratic attention implementation (a shared library exporting socratic_attention_forward,
    kernels/attention/attention_args.h), called through ctypes on PyTorch's current stream."""

    def __init__(self, path):
        self.path = path
        self.forward = attention_abi.load_forward(path)

    def bind(self, p, q, k, v, o):
        """A callable that runs the kernel on BSHD tensors q, k, v into o."""
        args = attention_abi.Args(
            q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr(), p["batch"], p["seqlen_q"],
            p["seqlen_kv"], p["heads_q"], p["heads_kv"], p["head_dim"],
            int(bool(p.get("causal", False))), attention_abi.DTYPES[p.get("dtype", "bf16")],
            1.0 / math.sqrt(p["head_dim"]))

        def run():
            ret = self.forward(ctypes.byref(args), torch.cuda.current_stream().cuda_stream)
            if ret != 0:
                raise RuntimeError(f"{self.path} declined (returned {ret})")
        return run


def measure(p, flush, hold_cycles, flag_hold, kernels):
    dt = DTYPES[p.get("dtype", "bf16")]
    b, sq, skv = p["batch"], p["seqlen_q"], p["seqlen_kv"]
    hq, hkv, d = p["heads_q"], p["heads_kv"], p["head_dim"]
    causal = bool(p.get("causal", False))
    gen = torch.Generator(device="cuda").manual_seed(0)
    # Socratic's layout is BSHD; SDPA wants BHSD: transpose views, as FlashAttention users do.
    q_bshd = torch.randn(b, sq, hq, d, device="cuda", dtype=dt, generator=gen)
    k_bshd = torch.randn(b, skv, hkv, d, device="cuda", dtype=dt, generator=gen)
    v_bshd = torch.randn(b, skv, hkv, d, device="cuda", dtype=dt, generator=gen)
    q, k, v = (t.transpose(1, 2) for t in (q_bshd, k_bshd, v_bshd))
    out = {"id": p["id"], "flops": flops(p)}
    if causal and sq != skv:
        out["note"] = "skipped: SDPA's is_causal is top-left aligned, Socratic's bottom-right"
        return out
    fns, results = {}, {}
    for name, backend in BACKENDS.items():
        def run(backend=backend):
            with sdpa_kernel([backend]):
                return F.scaled_dot_product_attention(q, k, v, is_causal=causal,
                                                      enable_gqa=hq != hkv)
        try:  # a backend may refuse a shape (e.g. GQA): record why
            results[name] = run().transpose(1, 2)
            fns[name] = run
        except Exception as e:
            out[name] = {"error": str(e).splitlines()[0][:200]}
    for name, kernel in kernels.items():
        o = torch.full_like(q_bshd, float("nan"))
        try:
            fns[name] = kernel.bind(p, q_bshd, k_bshd, v_bshd, o)
            fns[name]()
            torch.cuda.synchronize()
            results[name] = o
        except Exception as e:
            fns.pop(name, None)
            out[name] = {"error": str(e).splitlines()[0][:200]}
    # A sanity check that each timed kernel computed this attention (check_attention is the
    # judge of correctness): finite, and within bf16/fp16 rounding of cuDNN's (or FA2's) output.
    anchor = results.get("cudnn", results.get("flash"))
    for name in kernels:
        if name in results and anchor is not None:
            diff = (results[name].float() - anchor.float()).abs().max().item()
            if not math.isfinite(diff) or diff > 0.05:
                fns.pop(name)
                out[name] = {"error": f"output differs from SDPA's by {diff} (max abs)"}
            else:
                out.setdefault(name, {})["max_abs_diff_vs_sdpa"] = diff
    try:  # a failure while timing costs this scenario's timings, not the run's
        timed = time_in_turns(fns, flush, hold_cycles, flag_hold)
    except Exception as e:
        torch.cuda.synchronize()
        for name in fns:
            out.setdefault(name, {})["error"] = "while timing: " + str(e).splitlines()[0][:200]
        return out
    for name, (ms, noise, n, hidden) in timed.items():
        out.setdefault(name, {}).update({"ms": ms, "tflops": flops(p) / (ms * 1e-3) / 1e12,
                                         "noise": noise, "samples": n, "host_hidden": hidden})
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    hold = ap.add_mutually_exclusive_group()
    hold.add_argument("--hold-flag", metavar="LIB.so",
                      help="hold the stream until each call is enqueued (blocking_hold_lib.cu)")
    hold.add_argument("--hold-us", type=int, default=0,
                      help="hold the stream this long before every start event (0: no hold)")
    ap.add_argument("--impl", action="append", default=[], metavar="NAME=LIB.so",
                    help="also time this Socratic attention library, in turns with the backends")
    ap.add_argument("scenarios", nargs="+", help="Socratic scenario files")
    args = ap.parse_args()
    kernels = {}
    for spec in args.impl:
        name, sep, path = spec.partition("=")
        if not sep or not name or name in BACKENDS or name in kernels:
            ap.error(f"--impl expects a new NAME=LIB.so (not {', '.join(BACKENDS)}), got {spec!r}")
        try:
            kernels[name] = Kernel(path)
        except (OSError, AttributeError) as e:
            ap.error(f"--impl {spec}: {e}")
    if not 0 <= args.hold_us <= 100000:
        ap.error(f"--hold-us expects 0..100000 microseconds, got {args.hold_us}")
    torch.backends.cuda.matmul.allow_tf32 = False
    props = torch.cuda.get_device_properties(0)
    flush = torch.empty(4 * props.L2_cache_size, dtype=torch.int8, device="cuda")  # 4x L2
    hold_cycles = round(args.hold_us * sleep_cycles_per_us()) if args.hold_us else 0
    try:
        flag_hold = FlagHold(args.hold_flag) if args.hold_flag else None
    except (OSError, AttributeError) as e:
        ap.error(f"--hold-flag {args.hold_flag}: {e}")
    hold_name = "flag" if flag_hold else f"{args.hold_us} us" if args.hold_us else "none"
    if hold_name == "none":
        print("sdpa_anchors.py: no hold: PyTorch's dispatch can fall inside cuDNN's and FA2's "
              "intervals (D47: all of cuDNN's); for figures to compare, pass --hold-flag with "
              "tools/research/attention/blocking_hold_lib.cu built as a shared library",
              file=sys.stderr)
    results = {"device": props.name, "torch": torch.__version__,
               "cudnn": torch.backends.cudnn.version(),
               "timing": {"hold": hold_name, "hold_cycles": hold_cycles,
                          "flush_bytes": flush.numel(), "in_turns": True},
               "impls": {n: k.path for n, k in kernels.items()},
               "sets": {}}
    for path in args.scenarios:
        for set_name, p in load(path):
            r = measure(p, flush, hold_cycles, flag_hold, kernels)
            results["sets"].setdefault(set_name, []).append(r)
            print(json.dumps(r), file=sys.stderr, flush=True)
    for set_name, rows in results["sets"].items():
        for name in list(kernels) + list(BACKENDS):
            vals = [r[name]["tflops"] for r in rows if name in r and "tflops" in r[name]]
            if vals:
                results.setdefault("geomean_tflops", {}).setdefault(set_name, {})[name] = \
                    math.exp(sum(math.log(x) for x in vals) / len(vals))
    json.dump(results, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
