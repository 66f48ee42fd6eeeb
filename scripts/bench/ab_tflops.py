#!/usr/bin/env python3
"""A/B table of check_attention --jsonl files: mean TFLOP/s per (scenario, implementation) over all
files given (e.g. two passes in opposite order), geomean per implementation, and its ratio to the
first implementation seen.  Usage: ab_tflops.py PASS_A.jsonl [PASS_B.jsonl ...]"""
import collections
import json
import math
import sys

t=collections.defaultdict(list)
for f in sys.argv[1:]:
    for line in open(f):
        d=json.loads(line)
        if d.get('tflops'): t[(d['id'],d['impl'])].append(d['tflops'])
scen=[]; impls=[]
for (s,i) in t:
    if s not in scen: scen.append(s)
    if i not in impls: impls.append(i)
print('%-28s'%'scenario'+''.join('%9s'%i for i in impls))
g=collections.defaultdict(float)
for s in scen:
    row=[sum(t[(s,i)])/len(t[(s,i)]) for i in impls]
    for i,v in zip(impls,row): g[i]+=math.log(v)
    print('%-28s'%s+''.join('%9.1f'%v for v in row))
print('%-28s'%'geomean'+''.join('%9.1f'%math.exp(g[i]/len(scen)) for i in impls))
base=impls[0]
print('%-28s'%('ratio to '+base)+''.join('%9.3f'%math.exp((g[i]-g[base])/len(scen)) for i in impls))
