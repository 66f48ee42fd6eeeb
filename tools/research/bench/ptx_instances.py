#!/usr/bin/env python3
"""Which kernel entries of two PTX files compile to the same code.

A change meant for one kernel instance (a template argument only that instance has) should leave
every other instance as it was; this says whether it did, before any device time is spent on it.
Entries are matched by name; within each, what differs between two compilations of the same code
is set aside: the per-file hash in the names of what has internal linkage (an anonymous namespace,
a namespace-scope variable), basic-block label numbers and the entry's own name (its parameters
are named after it). An entry runs to the brace that closes its body (inline asm puts braces at the
start of lines too).

  usage: ptx_instances.py OLD.ptx NEW.ptx [--new-name-sub REGEX=REPLACEMENT]...
  e.g.:  nvcc -ptx ... old/hopper.cu -o old.ptx; nvcc -ptx ... hopper.cu -o new.ptx
         ptx_instances.py old.ptx new.ptx --new-name-sub 'Lb0EEEEEv=EEEEv'
--new-name-sub rewrites NEW's entry names before matching (a template parameter added with a
default shows in every mangled name). Prints one line per entry (same, differs, only old, only
new) and a count; exits 2, naming the file, on a file it cannot read or that has no entry.
"""
import re
import sys

ENTRY = re.compile(r"^(?:\.visible\s+|\.weak\s+)?\.entry\s+([\w$]+)\s*\(", re.M)
# The per-file hash nvcc puts in the names of what has internal linkage: an anonymous namespace,
# and (with _INTERNAL_) a namespace-scope variable of one
ANON = re.compile(r"(_GLOBAL__N_|_INTERNAL)_[0-9a-f]+_\d+_\w+?_[0-9a-f]{8}")
LABEL = re.compile(r"\$L__BB\d+_")


def fail(message):
    print(f"ptx_instances.py: {message}", file=sys.stderr)
    sys.exit(2)


def body_end(text, start, path, name):
    """Where the entry whose parameter list opens at `start` ends: the brace that closes its body.
    Braces are counted, not matched by column: inline asm puts its own { } at the line's start.
    Comments (// to the end of the line) are skipped."""
    depth, i, opened = 0, start, False
    while i < len(text):
        c = text[i]
        if c == "/" and text.startswith("//", i):
            i = text.find("\n", i)
            if i < 0:
                break
            continue
        if c == "{":
            depth, opened = depth + 1, True
        elif c == "}":
            depth -= 1
            if opened and depth == 0:
                return i + 1
        i += 1
    fail(f"{path}: entry {name}: its body does not close (a truncated file?)")


def entries(path, subs=()):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError as e:
        fail(f"{path}: cannot read ({e.strerror})")
    found = {}
    for m in ENTRY.finditer(text):
        name = m.group(1)
        end = body_end(text, m.end(), path, name)
        body = LABEL.sub("$L__BB_", ANON.sub(r"\1", text[m.start():end].replace(name, "ENTRY")))
        key = ANON.sub(r"\1", name)
        for pattern, replacement in subs:
            key = re.sub(pattern, replacement, key)
        found[key] = body.splitlines()
    if not found:
        fail(f"{path}: no '.entry' in it (not PTX?)")
    return found


def main(argv):
    files, subs, i = [], [], 0
    while i < len(argv):
        if argv[i] == "--new-name-sub":
            if i + 1 >= len(argv) or "=" not in argv[i + 1]:
                fail("--new-name-sub wants REGEX=REPLACEMENT")
            pattern, replacement = argv[i + 1].split("=", 1)
            try:
                re.compile(pattern)
            except re.error as e:
                fail(f"--new-name-sub: bad regular expression '{pattern}' ({e})")
            subs.append((pattern, replacement))
            i += 2
        elif argv[i].startswith("-"):
            fail(f"unknown option '{argv[i]}' (usage: ptx_instances.py OLD.ptx NEW.ptx [--new-name-sub R=S]...)")
        else:
            files.append(argv[i])
            i += 1
    if len(files) != 2:
        fail("usage: ptx_instances.py OLD.ptx NEW.ptx [--new-name-sub REGEX=REPLACEMENT]...")
    old, new = entries(files[0]), entries(files[1], subs)
    counts = {"same": 0, "differs": 0, "only old": 0, "only new": 0}
    for key in sorted(set(old) | set(new)):
        if key not in new:
            verdict = "only old"
        elif key not in old:
            verdict = "only new"
        elif old[key] == new[key]:
            verdict = "same"
        else:
            changed = sum(1 for a, b in zip(old[key], new[key]) if a != b) + abs(len(old[key]) - len(new[key]))
            verdict = "differs"
            key += f"  ({changed} of {len(old[key])} lines)"
        counts[verdict] += 1
        print(f"{verdict:8}  {key}")
    print(", ".join(f"{n} {k}" for k, n in counts.items()))


if __name__ == "__main__":
    main(sys.argv[1:])
