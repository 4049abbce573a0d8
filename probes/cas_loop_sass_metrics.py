#!/usr/bin/env python3
"""Summary of probes/cas_loop_sass_metrics.sh: per kernel and data, a CAS loop's attempts (the
executions of its ATOMS.CAST.SPIN), its entries (the executions of the instruction before the
loop's head, the target of the backward branch after the CAS) and their ratio, beside the launch's
time plain and with the code patched.  CSV on stdout.

usage: cas_loop_sass_metrics.py PROBE_OUTPUT SASS_LISTING   (cuobjdump -sass of the probe)
"""
import re
import sys

INSN = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
LABEL = re.compile(r"^\s*(\.L_x_\d+):")
FUNC = re.compile(r"Function\s*:\s*(\S+)")


def listing(path):
    """{function: [(pc, text)]} and {function: {label: pc}} of a cuobjdump -sass listing."""
    code, labels, fn, pending = {}, {}, None, []
    for line in open(path):
        m = FUNC.search(line)
        if m:
            fn = m.group(1)
            code[fn], labels[fn] = [], {}
            continue
        if fn is None:
            continue
        m = LABEL.match(line)
        if m:
            pending.append(m.group(1))
            continue
        m = INSN.match(line)
        if m:
            pc = int(m.group(1), 16)
            code[fn].append((pc, m.group(2)))
            for lab in pending:
                labels[fn][lab] = pc
            pending = []
    return code, labels


def loops(insns, labels):
    """(cas_pc, head_pc, entry_pc) of each CAST.SPIN followed by a backward branch."""
    out = []
    for i, (pc, text) in enumerate(insns):
        if "ATOMS.CAST.SPIN" not in text:
            continue
        for pc2, t2 in insns[i + 1:i + 8]:
            m = re.search(r"BRA\s+`?\(?(\.L_x_\d+|0x[0-9a-f]+)", t2)
            if not m:
                continue
            tgt = m.group(1)
            head = labels.get(tgt) if tgt.startswith(".L") else int(tgt, 16)
            if head is None or head > pc:
                continue
            before = [p for p, _ in insns if p < head]
            if before:
                out.append((pc, head, before[-1]))
            break
    return out


def main():
    counts, times = {}, []
    for line in open(sys.argv[1]):
        f = line.strip().split(",")
        if f[0] == "pc":
            counts.setdefault((f[1], f[2]), {}).setdefault(f[3], {})[int(f[4])] = int(f[5])
        elif f[0] == "time":
            times.append(f[1:])
    code, labels = listing(sys.argv[2])
    print("kernel,data,loop,cas_pc,entry_pc,attempts,entries,attempts_per_entry,plain_us,patched_us,slowdown")
    for kname, data, plain, patched in times:
        fns = counts.get((kname, data), {})
        for fn, pcs in fns.items():
            if fn not in code:
                continue
            for k, (cas, head, entry) in enumerate(loops(code[fn], labels[fn])):
                a, e = pcs.get(cas, 0), pcs.get(entry, 0)
                print("%s,%s,%d,0x%04x,0x%04x,%d,%d,%s,%s,%s,%.0f" % (
                    kname, data, k, cas, entry, a, e, "%.2f" % (a / e) if e else "-", plain, patched,
                    float(patched) / float(plain)))


if __name__ == "__main__":
    main()
