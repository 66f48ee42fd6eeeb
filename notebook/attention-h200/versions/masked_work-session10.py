#!/usr/bin/env python3
"""Session 10, the plateau question bound.sfu-floor ("How many exponentials per tile does the kernel
compute, and what time floor does the special-function unit's rate set for them?"): a model of
v25's tiling on the FA3 grid (query tile, key tile and consumer warpgroups per head dim as
hopper.cu's dispatch picks them; the causal skip; keys taken last tile first) that counts, per
warpgroup and key tile, the exponentials and GEMM columns computed against those some row of the
warpgroup sees. Printed: the share of v25's work left if the first key tile's masked half were not
computed (the exponentials, and the two GEMMs with P V alone or S too). No GPU; python3 only.
"""
def cfg(d,s,causal):
    if d==64: return 192,128,3,causal
    if d==128: return 128,(192 if s>=(4096 if causal else 2048) else 128),2,False
    return 128,80,2,causal
def model(b,h,s,d,causal):
    M,N,W,skipinst=cfg(d,s,causal)
    sq=skv=s; shift=0
    mma=[0,0,0]; ex=[0,0,0,0]  # v25, 16-key chunks skipped (P V, exponentials), + S over the half; ex[3]: v26's half
    need=0
    for m0 in range(0,sq,M):
        key_end=min(skv,m0+M+shift) if causal else skv
        nb=(key_end+N-1)//N
        for w in range(W):
            r0=m0+64*w
            if r0>=sq: continue
            rows=min(64,sq-r0)
            skip=0
            if skipinst and causal:
                vis=(r0+63+shift)//N
                kmax=(64*(W-1)+N-1)//N
                skip=min(max(nb-1-vis,0),min(nb-1,kmax))
            t=nb-skip
            mma[0]+=t*N*2; ex[0]+=t*N
            n=t-1
            lim=min(skv,r0+63+shift+1) if causal else skv
            live=min(N,lim-n*N); lc=-(-live//16)*16
            half=N//2
            sN=half if live<=half else N
            mma[1]+=(t-1)*N*2+N+lc; ex[1]+=(t-1)*N+lc
            mma[2]+=(t-1)*N*2+sN+lc; ex[2]+=(t-1)*N+lc
            ex[3]+=(t-1)*N+(half if live<=half else N)
    return [x/mma[0] for x in mma],[x/ex[0] for x in ex]
for causal in (False,True):
  for d,bh in ((64,(32,32)),(128,(32,16)),(256,(32,8))):
    for s in (512,1024,2048,4096,8192,16384):
        b=bh[0]*512//s; h=bh[1]
        mm,ee=model(b,h,s,d,causal)
        print(f"s{s} d{d} {'causal' if causal else '      '} GEMM work: chunks of P V skipped {mm[1]:.3f}, and of S"
              f" (half) {mm[2]:.3f}; exponentials: by chunks {ee[1]:.3f}, by the half (v26) {ee[3]:.3f}")
