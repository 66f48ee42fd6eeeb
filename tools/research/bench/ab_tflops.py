#!/usr/bin/env python3
"""A/B table of check_attention --jsonl files (tools/research/attention/ab_variants.sh writes them).

Usage: ab_tflops.py PASS_A.jsonl [PASS_B.jsonl ...]
Prints the mean TFLOP/s of every (scenario, implementation) over all files given (typically two
passes in opposite order), the geomean per implementation over the scenarios, and each geomean's
ratio to the first implementation seen. Scenarios an implementation failed or declined (no
TFLOP/s) are left out of that implementation's figures and marked "-".
"""
import collections
import json
import math
import sys


def main(paths):
    samples = collections.defaultdict(list)  # (scenario, implementation) -> TFLOP/s of each pass
    scenarios, impls = [], []
    for path in paths:
        with open(path) as f:
            for number, line in enumerate(f, 1):
                try:
                    record = json.loads(line)
                except ValueError as e:
                    sys.exit(f"{path}:{number}: not JSON ({e})")
                scenario, impl = record.get("id"), record.get("impl")
                if scenario is None or impl is None:
                    sys.exit(f"{path}:{number}: no \"id\" or \"impl\" field")
                if scenario not in scenarios:
                    scenarios.append(scenario)
                if impl not in impls:
                    impls.append(impl)
                if record.get("tflops"):
                    samples[(scenario, impl)].append(record["tflops"])
    if not impls:
        sys.exit("no records in " + " ".join(paths))

    log_sum = collections.defaultdict(float)
    counted = collections.defaultdict(int)
    print(f"{'scenario':<28}" + "".join(f"{i:>9}" for i in impls))
    for scenario in scenarios:
        cells = []
        for impl in impls:
            values = samples.get((scenario, impl))
            if not values:
                cells.append(f"{'-':>9}")
                continue
            mean = sum(values) / len(values)
            log_sum[impl] += math.log(mean)
            counted[impl] += 1
            cells.append(f"{mean:9.1f}")
        print(f"{scenario:<28}" + "".join(cells))
    geomean = {i: math.exp(log_sum[i] / counted[i]) if counted[i] else float("nan") for i in impls}
    print(f"{'geomean':<28}" + "".join(f"{geomean[i]:9.1f}" for i in impls))
    first = impls[0]
    print(f"{'ratio to ' + first:<28}" + "".join(f"{geomean[i] / geomean[first]:9.3f}" for i in impls))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
