# Two honest fp32 softmaxes (torch.softmax, and exp2 with a folded scale and the sum in another
# order) over the evidence suite's topk-b4096 workload shape: how often do their top-8 indices differ?
# A near tie at the rounding level is enough. 2026-12-04, Debian 12 python3-torch 1.13 on the CPU:
# 1 row of 81,920 (20 calls of 4096 rows). Usage: python3 scripts/topk_ties.py
import torch
torch.manual_seed(0)
tot=0; rows_bad=0; calls=20
for c in range(calls):
    x = torch.randn(4096, 32000)
    T = 0.7
    ref = torch.softmax(x / T, dim=-1)
    # another honest computation: exp2 with a folded log2(e)/T scale, the sum in another order
    m = x.max(dim=-1, keepdim=True).values
    e = torch.exp2((x - m) * (1.4426950408889634 / T))
    s = e.flip(-1).cumsum(-1)[:, -1:]
    alt = e / s
    vi, ii = torch.topk(ref, 8, dim=-1)
    va, ia = torch.topk(alt, 8, dim=-1)
    bad = (ii != ia).any(dim=-1)
    rows_bad += int(bad.sum()); tot += x.shape[0]
print(f"rows whose top-8 indices differ between two honest fp32 softmaxes: {rows_bad} of {tot} ({calls} calls of 4096 rows)")
