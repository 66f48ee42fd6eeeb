#!/usr/bin/env python3
"""Branches per kernel in `cuobjdump -sass` output: the bank's compute.unrolling question ("Did the
compiler fully unroll the inner loops, or does the SASS still branch inside the hot loop?") checked
on the built binary rather than on the source.

Usage: sass_branches.py FILE.sass [--match TEXT]
For every function (only those whose mangled name contains TEXT, when given): its SASS instruction
count, its branches, and its backward branches (target at or before the branch: a loop, or a
retry of an mbarrier wait), each as `from->to (span instructions)`. A backward branch with a short
span in the middle of a GEMM or softmax is an inner loop the compiler did not unroll.
Targets may be absolute (`BRA 0x1230`) or labels (`BRA `(.L_x_12)``), as cuobjdump and nvdisasm
print them.
"""
import argparse
import re
import sys

FUNCTION = re.compile(r"^\s*Function\s*:\s*(\S+)")
LABEL = re.compile(r"^\s*(\.L_x_\d+):")
INSTRUCTION = re.compile(r"/\*([0-9a-fA-F]{4,})\*/\s+(.*)")
BRANCH = re.compile(r"\bBRA\b(?:\.[A-Z.]+)?\s+(?:[!A-Z0-9]+,\s*)?(?:(0x[0-9a-fA-F]+)|`?\(?(\.L_x_\d+)\)?`?)")


class Function:
    def __init__(self, name):
        self.name = name
        self.instructions = 0
        self.branches = []  # (address, target or None, label or None)
        self.labels = {}
        self.last_address = None

    def resolved(self):
        out = []
        for address, target, label in self.branches:
            if target is None and label is not None:
                target = self.labels.get(label)
            out.append((address, target))
        return out


def parse(path):
    try:
        f = open(path, errors="replace")
    except OSError as e:
        sys.exit(f"{path}: cannot read ({e.strerror})")
    functions, current = [], None
    with f:
        for number, line in enumerate(f, 1):
            m = FUNCTION.match(line)
            if m:
                current = Function(m.group(1))
                functions.append(current)
                continue
            if current is None:
                continue
            m = LABEL.match(line)
            if m:
                # A label names the next instruction: the one after the last address seen.
                current.labels[m.group(1)] = None if current.last_address is None else current.last_address + 16
                continue
            m = INSTRUCTION.search(line)
            if not m:
                continue
            address = int(m.group(1), 16)
            current.last_address = address
            current.instructions += 1
            b = BRANCH.search(m.group(2))
            if b:
                target = int(b.group(1), 16) if b.group(1) else None
                current.branches.append((address, target, b.group(2)))
    if not functions:
        sys.exit(f"{path}: no 'Function :' section: not cuobjdump -sass output")
    return functions


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sass", help="cuobjdump -sass output")
    parser.add_argument("--match", default="", help="only functions whose name contains this text")
    args = parser.parse_args()
    shown = 0
    for fn in parse(args.sass):
        if args.match not in fn.name:
            continue
        shown += 1
        branches = fn.resolved()
        backward = [(a, t) for a, t in branches if t is not None and t <= a]
        unresolved = sum(1 for _, t in branches if t is None)
        spans = ", ".join(f"0x{a:x}->0x{t:x} ({(a - t) // 16})" for a, t in backward)
        print(f"{fn.name}\n  instructions {fn.instructions}  branches {len(branches)}  backward {len(backward)}"
              + (f"  unresolved {unresolved}" if unresolved else "") + (f": {spans}" if spans else ""))
    if shown == 0:
        sys.exit(f"{args.sass}: no function name contains '{args.match}'")


if __name__ == "__main__":
    main()
