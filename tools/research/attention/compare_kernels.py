#!/usr/bin/env python3
"""Whether two builds of an attention candidate run the same machine code for every shape.

Without a GPU and without cuobjdump: the cubins embedded in each built library are read as ELF
files, and every kernel is reduced to a fingerprint of everything that decides what it executes:
its .text bytes (the SASS, encoded), its section and symbol attributes, its .nv.info attributes
(registers, parameter layout, exit offsets, barriers...; symbol indices replaced by names), the
sizes of its shared and parameter banks, and its relocations. Names are compared with the
anonymous namespace's per-file hash taken out and the kernel's own name replaced by SELF, so the
same code under another template argument (a renamed traits type) fingerprints the same. The
dispatch probe's records (dispatch_probe.cpp: every launch of every shape, with its grid, block,
shared memory and argument bytes) are then compared with each kernel name replaced by its
fingerprint: equal records mean that every shape launches the same code with the same arguments.

  compare_kernels.py shapes SCENARIOS.json...          probe input: the scenarios and a sweep
  compare_kernels.py kernels LIB.so                    each kernel's fingerprint and size
  compare_kernels.py compare OLD.so OLD.probe NEW.so NEW.probe   the verdict (exit 0 when equal)

With cuobjdump on PATH, `compare` also diffs `cuobjdump -sass` of each matched pair, addresses and
names normalised (a second reading of the same bytes).
"""
import hashlib
import json
import math
import re
import shutil
import struct
import subprocess
import sys

EM_CUDA = 190
SHT_SYMTAB, SHT_RELA, SHT_REL, SHT_NOBITS = 2, 4, 9, 8
SHT_NV_INFO = 0x70000000
EIFMT_SVAL = 4
EIATTR_PARAM_CBANK = 0x0A


def anon_free(name):
    """The name with the per-file mangled components (the anonymous namespace's, and the one nvcc
    gives internal-linkage device variables: file name and hashes) replaced."""
    out, i = [], 0
    pat = re.compile(r"(\d+)_(?:GLOBAL__N__|INTERNAL_)")
    while True:
        m = pat.search(name, i)
        if not m:
            out.append(name[i:])
            return "".join(out)
        n = int(m.group(1))
        out.append(name[i:m.start()])
        out.append("ANON")
        i = m.start(1) + len(m.group(1)) + n


class Cubin:
    def __init__(self, data, offset):
        self.data, self.off = data, offset
        (self.shoff,) = struct.unpack_from("<Q", data, offset + 0x28)
        (self.flags,) = struct.unpack_from("<I", data, offset + 0x30)
        _, shnum, shstrndx = struct.unpack_from("<HHH", data, offset + 0x3A)
        self.sections = []
        for k in range(shnum):
            f = struct.unpack_from("<IIQQQQIIQQ", data, offset + self.shoff + 64 * k)
            self.sections.append(dict(name_off=f[0], type=f[1], flags=f[2], addr=f[3], offset=f[4], size=f[5],
                                      link=f[6], info=f[7], align=f[8], entsize=f[9]))
        strtab = self.sections[shstrndx]
        for s in self.sections:
            s["name"] = self.cstr(strtab["offset"] + s["name_off"])
        self.by_name = {s["name"]: s for s in self.sections}
        sym = next(s for s in self.sections if s["type"] == SHT_SYMTAB)
        names = self.sections[sym["link"]]
        self.symbols = []
        for k in range(sym["size"] // 24):
            n, info, other, shndx, value, size = struct.unpack_from("<IBBHQQ", data, offset + sym["offset"] + 24 * k)
            sname = self.cstr(names["offset"] + n) if n else ""
            if not sname and info & 0xF == 3 and shndx < len(self.sections):  # a section symbol
                sname = "section:" + self.sections[shndx]["name"]
            self.symbols.append(dict(name=sname, info=info, other=other, shndx=shndx, value=value, size=size))

    def cstr(self, at):
        at += self.off
        return self.data[at:self.data.index(b"\0", at)].decode()

    def body(self, s):
        if s["type"] == SHT_NOBITS:
            return b""
        return self.data[self.off + s["offset"]:self.off + s["offset"] + s["size"]]

    def symbol_name(self, index, own):
        if index >= len(self.symbols):
            return f"#{index}"
        return anon_free(self.symbols[index]["name"]).replace(own, "SELF") if own else anon_free(
            self.symbols[index]["name"])

    def nv_info(self, body, own, first_word_is_symbol):
        """Records of an .nv.info section: (format, attribute, value or payload), symbols by name."""
        out, i = [], 0
        while i + 4 <= len(body):
            fmt, attr = body[i], body[i + 1]
            if fmt == EIFMT_SVAL:
                (size,) = struct.unpack_from("<H", body, i + 2)
                payload = body[i + 4:i + 4 + size]
                if (first_word_is_symbol or attr == EIATTR_PARAM_CBANK) and len(payload) >= 4:
                    (sym,) = struct.unpack_from("<I", payload, 0)
                    out.append([fmt, attr, self.symbol_name(sym, own), payload[4:].hex()])
                else:
                    out.append([fmt, attr, payload.hex()])
                i += 4 + size
            else:
                (value,) = struct.unpack_from("<H", body, i + 2)
                out.append([fmt, attr, value])
                i += 4
        if i != len(body):
            raise SystemExit(f"cannot parse an .nv.info section ({len(body)} bytes, stopped at {i})")
        return out

    def relocations(self, section_name, own):
        out = []
        for prefix, kind in ((".rela", SHT_RELA), (".rel", SHT_REL)):
            s = self.by_name.get(prefix + section_name)
            if not s:
                continue
            size = 24 if kind == SHT_RELA else 16
            body = self.body(s)
            for k in range(len(body) // size):
                r_off, r_info = struct.unpack_from("<QQ", body, size * k)
                addend = struct.unpack_from("<q", body, size * k + 16)[0] if kind == SHT_RELA else 0
                out.append([r_off, r_info & 0xFFFFFFFF, self.symbol_name(r_info >> 32, own), addend])
        return out

    def kernels(self):
        """{device name: fingerprint record} for every function with a .text section."""
        global_info = self.by_name.get(".nv.info")
        global_records = self.nv_info(self.body(global_info), None, True) if global_info else []
        result = {}
        for sym in self.symbols:
            if sym["info"] & 0xF != 2 or not sym["name"]:  # STT_FUNC
                continue
            name = sym["name"]
            own = anon_free(name)
            text = self.by_name.get(".text." + name)
            if text is None:
                continue
            rec = {
                "symbol": [sym["info"], sym["other"], sym["value"], sym["size"]],
                "text_header": [text["type"], text["flags"], self.symbol_name(text["info"], own), text["align"],
                                text["entsize"], text["size"]],
                "text_sha256": hashlib.sha256(self.body(text)).hexdigest(),
                "text_relocations": self.relocations(".text." + name, own),
                "global_info": [r for r in global_records if len(r) == 4 and r[2] == own],
            }
            for part in (".nv.info.", ".nv.shared.", ".nv.constant0.", ".nv.local."):
                s = self.by_name.get(part + name)
                if s is None:
                    continue
                if part == ".nv.info.":
                    rec["info"] = [s["type"], s["flags"], s["align"], self.nv_info(self.body(s), own, False)]
                else:
                    rec[part.strip(".")] = [s["type"], s["flags"], s["align"], s["size"], self.body(s).hex()]
            blob = json.dumps(rec, sort_keys=True).replace(own, "SELF")
            result[name] = {"fingerprint": hashlib.sha256(blob.encode()).hexdigest()[:16],
                            "text_bytes": text["size"], "record": json.loads(blob)}
        return result

    def other_sections(self):
        """Sections not owned by one kernel (global data, banks, notes), names and symbols normalised."""
        out = {}
        for s in self.sections:
            n = s["name"]
            if not n or n.startswith((".text.", ".nv.info.", ".nv.shared.", ".nv.constant0.", ".rela.text.",
                                       ".rel.text.", ".nv.local.")):
                continue
            if n in (".shstrtab", ".strtab", ".symtab", ".nv.info", ".debug_frame", ".rela.debug_frame"):
                continue  # names, the symbol table and unwinding tables: no instruction comes from them
            key = anon_free(n)
            if n.startswith((".rela", ".rel")):
                out[key] = self.relocations(n[5 if n.startswith(".rela") else 4:], None)
            else:
                out[key] = [s["type"], s["flags"], s["align"], s["size"], hashlib.sha256(self.body(s)).hexdigest()]
        return out


_pretty_cache = {}


def pretty(names):
    """Readable kernel names: demangled when c++filt is on PATH, namespaces and parameters dropped."""
    todo = [n for n in names if n not in _pretty_cache]
    if todo and shutil.which("c++filt"):
        out = subprocess.run(["c++filt"], input="\n".join(todo), capture_output=True, text=True).stdout.splitlines()
        for n, d in zip(todo, out):
            d = re.sub(r"\w+::\(anonymous namespace\)::", "", d)
            d = re.sub(r"^void ", "", d)
            d = d.replace("(socratic_dtype)0", "SOCRATIC_BF16").replace("(socratic_dtype)1", "SOCRATIC_FP16")
            d = re.sub(r"\((?:CUtensorMap_st|__nv_bfloat16 const\*|__half const\*)[^()]*\)$", "", d)
            _pretty_cache[n] = d
    return [_pretty_cache.get(n, anon_free(n)) for n in names]


def cubins(path):
    data = open(path, "rb").read()
    found, at = [], 0
    while True:
        at = data.find(b"\x7fELF\x02", at)
        if at < 0:
            break
        if struct.unpack_from("<H", data, at + 18)[0] == EM_CUDA:
            found.append(Cubin(data, at))
        at += 4
    if not found:
        raise SystemExit(f"{path}: no cubin found (a compressed fatbin? build without --compress-mode)")
    return found


def library_kernels(path):
    kernels, others = {}, []
    for i, c in enumerate(cubins(path)):
        for name, rec in c.kernels().items():
            if name in kernels:
                raise SystemExit(f"{path}: kernel {name} in two cubins")
            kernels[name] = rec
        others.append(c.other_sections())
    return kernels, others


def shapes(files):
    """Probe input: every scenario of the files given, then a sweep of every branch the dispatch
    could take (head dims, each side of every length threshold, GQA, fp16, misaligned q)."""
    lines = []
    for f in files:
        doc = json.load(open(f))
        if doc.get("problem") != "attention":
            continue
        defaults = doc.get("defaults", {})
        for s in doc["scenarios"]:
            p = {**defaults, **s}
            d = p["head_dim"]
            scale = p.get("softmax_scale", 1.0 / math.sqrt(d))
            lines.append(f'{doc["name"]}/{p["id"]} {p["batch"]} {p["seqlen_q"]} {p.get("seqlen_kv", p["seqlen_q"])} '
                         f'{p["heads_q"]} {p["heads_kv"]} {d} {int(bool(p.get("causal", False)))} '
                         f'{0 if p.get("dtype", "bf16") == "bf16" else 1} {float(scale).hex()} 0')
    lengths = [1, 2, 17, 63, 64, 65, 127, 128, 129, 191, 192, 193, 511, 512, 1000, 1023, 1024, 1025, 2047, 2048, 2049,
               4095, 4096, 4097, 8191, 8192, 8193, 16383, 16384, 16385, 32768]
    for d in (64, 128, 256):
        for causal in (0, 1):
            for sq in lengths:
                for skv in lengths:
                    lines.append(f"sweep/d{d}_c{causal}_q{sq}_kv{skv} 2 {sq} {skv} 4 2 {d} {causal} 0 "
                                 f"{(1 / math.sqrt(d)).hex()} 0")
            for sq in (512, 4096, 16384):
                lines.append(f"sweep/d{d}_c{causal}_q{sq}_fp16 3 {sq} {sq} 6 6 {d} {causal} 1 0x1.0p-3 0")
                lines.append(f"sweep/d{d}_c{causal}_q{sq}_misaligned 1 {sq} {sq} 2 2 {d} {causal} 0 0x1.0p-3 1")
                lines.append(f"sweep/d{d}_c{causal}_q{sq}_mqa 5 {sq} {sq} 8 1 {d} {causal} 0 0x1.0p-3 0")
    for d in range(8, 257, 8):
        for causal in (0, 1):
            lines.append(f"sweep/general_d{d}_c{causal} 2 333 1000 4 2 {d} {causal} 0 {(1 / math.sqrt(d)).hex()} 0")
    lines.append("sweep/empty_q 2 0 128 4 4 128 0 0 0x1.0p-3 0")
    lines.append("sweep/empty_kv 2 128 0 4 4 128 0 0 0x1.0p-3 0")
    lines.append("sweep/too_many_tiles 65535 65536 65536 1024 1024 64 1 0 0x1.0p-3 0")
    lines.append("sweep/bad_heads 1 128 128 6 4 128 0 0 0x1.0p-3 0")
    return lines


def launch_records(probe_text, kernels):
    """The probe's records with kernel names replaced by fingerprints."""
    def fp(m):
        name = m.group(2)
        if name not in kernels:
            raise SystemExit(f"the probe launched {name}, which is in no cubin of the library")
        return m.group(1) + "kernel:" + kernels[name]["fingerprint"]
    return [re.sub(r"^(  (?:launch|set_attribute) )(\S+)", fp, line) for line in probe_text.splitlines()]


def sass_by_kernel(lib):
    if not shutil.which("cuobjdump"):
        return None
    text = subprocess.run(["cuobjdump", "-sass", lib], capture_output=True, text=True, check=True).stdout
    out, name, body = {}, None, []
    for line in text.splitlines():
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            if name:
                out[name] = body
            name, body = m.group(1), []
        elif name is not None:
            ins = re.sub(r"/\*[0-9a-f]{4,}\*/", "", line)  # instruction addresses
            ins = re.sub(r"\.L_x_\d+", ".L", ins)
            body.append(anon_free(ins.strip()))
    if name:
        out[name] = body
    return out


def compare(old_lib, old_probe, new_lib, new_probe):
    old_k, old_other = library_kernels(old_lib)
    new_k, new_other = library_kernels(new_lib)
    ok = True
    print(f"old.so: {len(old_k)} kernels; new.so: {len(new_k)} kernels")
    old_fps = {}
    for name, rec in old_k.items():
        old_fps.setdefault(rec["fingerprint"], []).append(name)
    new_fps = {}
    for name, rec in new_k.items():
        new_fps.setdefault(rec["fingerprint"], []).append(name)
    print("\nkernels by fingerprint (old name -> new name, .text bytes):")
    for fp in sorted(set(old_fps) | set(new_fps)):
        o, n = old_fps.get(fp, []), new_fps.get(fp, [])
        size = (old_k[o[0]] if o else new_k[n[0]])["text_bytes"]
        print(f"  {fp} {size:6d} B  old: {', '.join(pretty(o)) or '-'}")
        print(f"  {' ' * 16}          new: {', '.join(pretty(n)) or '-'}")
    only_new = sorted(fp for fp in new_fps if fp not in old_fps)
    if only_new:
        ok = False
        print(f"\nFAIL: {len(only_new)} kernel(s) of the new build compile to code no kernel of the old one has:")
        for fp in only_new:
            print("  " + ", ".join(pretty(new_fps[fp])))
    only_old = sorted(fp for fp in old_fps if fp not in new_fps)
    if old_other != new_other:
        ok = False
        print("\nFAIL: the sections outside the kernels differ (global data, banks, notes):")
        print("  old " + json.dumps(old_other, sort_keys=True)[:2000])
        print("  new " + json.dumps(new_other, sort_keys=True)[:2000])
    else:
        print("\nsections outside the kernels (global data, constant banks, notes): the same")

    old_rec = launch_records(open(old_probe).read(), old_k)
    new_rec = launch_records(open(new_probe).read(), new_k)
    shapes_n = sum(1 for line in old_rec if line.startswith("shape "))
    launches = sum(1 for line in old_rec if line.startswith("  launch "))
    used = {line.split("kernel:")[1].split()[0] for line in old_rec if line.startswith("  launch kernel:")}
    if old_rec != new_rec:
        ok = False
        print(f"\nFAIL: the dispatch differs ({shapes_n} shapes):")
        shown = 0
        for a, b in zip(old_rec, new_rec):
            if a != b and shown < 20:
                print(f"  old: {a}\n  new: {b}")
                shown += 1
        if len(old_rec) != len(new_rec):
            print(f"  ({len(old_rec)} old record lines, {len(new_rec)} new)")
    else:
        print(f"\ndispatch: the same on all {shapes_n} shapes ({launches} launches, every argument byte "
              f"and tensor map alike), using {len(used)} distinct kernels")
    unused_removed = [fp for fp in only_old if fp not in used]
    used_removed = [fp for fp in only_old if fp in used]
    if used_removed:
        ok = False
        print(f"FAIL: kernels the old build launches have no counterpart in the new one: {used_removed}")
    if unused_removed:
        print(f"old kernels with no counterpart in the new build, launched for none of the shapes: "
              f"{len(unused_removed)}")
        for fp in unused_removed:
            print("  " + ", ".join(pretty(old_fps[fp])))

    old_sass, new_sass = sass_by_kernel(old_lib), sass_by_kernel(new_lib)
    if old_sass is None:
        print("\ncuobjdump not found: SASS text not compared (the .text bytes above are the SASS, encoded)")
    else:
        diffs = 0
        for fp, names in new_fps.items():
            if fp in old_fps:
                a, b = old_sass.get(old_fps[fp][0]), new_sass.get(names[0])
                a = [x.replace(anon_free(old_fps[fp][0]), "SELF") for x in a or []]
                b = [x.replace(anon_free(names[0]), "SELF") for x in b or []]
                if a != b:
                    diffs += 1
                    print(f"FAIL: cuobjdump -sass differs for {names[0]}")
        ok = ok and diffs == 0
        print(f"\ncuobjdump -sass: {len(new_fps) - diffs} of {len(new_fps)} matched kernels read the same")
    print("\nRESULT: " + ("the same code for every shape" if ok else "DIFFERENT"))
    return 0 if ok else 1


def main(argv):
    if len(argv) >= 2 and argv[1] == "shapes":
        print("\n".join(shapes(argv[2:])))
        return 0
    if len(argv) == 3 and argv[1] == "kernels":
        kernels, _ = library_kernels(argv[2])
        for name, rec in sorted(kernels.items()):
            print(f"{rec['fingerprint']} {rec['text_bytes']:6d} {pretty([name])[0]}")
        return 0
    if len(argv) == 6 and argv[1] == "compare":
        return compare(*argv[2:])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
