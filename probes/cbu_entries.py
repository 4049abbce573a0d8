#!/usr/bin/env python3
"""Which opcodes the warp-level control-flow counters count, and whether one pass of them gives
a CAS loop's entries (probes/cbu_entries.sh writes OUT_DIR).

    cbu_entries.py OUT_DIR [--csv FILE]

Prints:
  membership  for pipe_cbu and op_branch, whether the executions of the opcodes named in MEMBERS
              sum to the counter on every launch without a CAS loop (their counts do not depend
              on timing; the loop bodies' do), and where not;
  per launch  of every kernel with a CAS loop: its entries (executions of the instruction before
              each loop's head, summed), the executions of BSSY, BRA and ATOMS in the source
              pass, and Q = pipe_cbu - op_branch + op_shared_atom from set d (one pass) beside
              BSSY - (BRA - ATOMS) from the source pass: equal when the loops' retries (a BRA and
              an ATOMS each, BSYNC in both counters) cancel within one pass;
  summary     "cbu-entries: ..." lines.
--csv writes those per-launch figures.
"""
import csv
import os
import re
import sys

from cas_loop_entries import num, pages as source_pages  # the same source CSV

FLOW = ["BRA", "BRX", "JMP", "JMX", "CALL", "RET", "EXIT", "BSSY", "BSYNC", "BREAK", "BMOV", "WARPSYNC",
        "BAR", "NANOSLEEP", "YIELD", "KILL", "BPT", "ACQBULK", "RPCMOV", "WARPGROUP", "ELECT", "VOTE", "NOP"]
MEMBERS = {"smsp__inst_executed_pipe_cbu.sum": ["EXIT", "BSSY", "BSYNC", "WARPSYNC"],
           "smsp__inst_executed_op_branch.sum": ["BRA", "EXIT", "BSYNC", "WARPSYNC"]}
CTRS = {"b": ["smsp__inst_executed_pipe_cbu.sum", "smsp__inst_executed_op_branch.sum",
              "smsp__inst_executed_pipe_adu.sum"],
        "c": ["smsp__inst_executed_pipe_cbu.sum", "smsp__inst_executed_pipe_cbu_pred_on_any.sum",
              "smsp__inst_executed_op_branch.sum", "smsp__inst_executed_pipe_adu.sum"],
        "d": ["smsp__inst_executed_pipe_cbu.sum", "smsp__inst_executed_op_branch.sum",
              "smsp__inst_executed_op_shared_atom.sum"]}


def raw_rows(path):
    rows = [r for r in csv.reader(open(path, newline="")) if r]
    hdr = rows[0]
    return [dict(zip(hdr, r)) for r in rows[2:]]


def page_stats(pg):
    h = pg["hdr"]
    ie = h.index("Instructions Executed")
    rows = pg["rows"]
    ops, addr = {}, []
    for r in rows:
        addr.append(int(r[0], 16))
        text = re.sub(r"^@!?U?P\w+\s+", "", r[1].strip())
        base = text.split()[0].split(".")[0] if text else "?"
        ops[base] = ops.get(base, 0) + (num(r[ie]) or 0)
    entries, loops = 0.0, 0
    for i, r in enumerate(rows):
        if not re.search(r"\bATOMS\.CAS", r[1]):
            continue
        for j in range(i + 1, min(i + 6, len(rows))):
            m = re.search(r"\bBRA\s+(?:`\(\.L_x_\d+\)\s*)?(0x[0-9a-f]+)", rows[j][1])
            if m and int(m.group(1), 16) <= addr[i] and int(m.group(1), 16) in addr:
                head = addr.index(int(m.group(1), 16))
                entries += num(rows[head - 1][ie]) or 0
                loops += 1
                break
    return ops, loops, entries


def main():
    d = sys.argv[1]
    launches = []
    for prog in ("adv", "ub"):
        pages = source_pages(os.path.join(d, "src_%s.csv" % prog))
        sets = {s: raw_rows(os.path.join(d, "%s_%s.csv" % (s, prog))) for s in CTRS}
        n = len(sets["b"])
        if len(pages) == 2 * n:  # ncu 2025.3 prints each launch's page twice
            pages = pages[::2]
        if len(pages) != n or any(len(v) != n for v in sets.values()):
            sys.exit("cbu_entries: %s: %d source pages, launches %s" % (prog, len(pages),
                                                                      {s: len(v) for s, v in sets.items()}))
        for k in range(n):
            ops, loops, entries = page_stats(pages[k])
            l = {"prog": prog, "k": k, "name": sets["b"][k]["Kernel Name"][:40], "ops": ops, "loops": loops,
                 "entries": entries}
            for s in CTRS:
                l[s] = {m: num(sets[s][k].get(m, "")) for m in CTRS[s]}
                if sets[s][k]["Kernel Name"] != sets["b"][k]["Kernel Name"]:
                    sys.exit("cbu_entries: %s launch %d: kernels differ between sets" % (prog, k))
            launches.append(l)
    det = [l for l in launches if l["loops"] == 0]
    cas = [l for l in launches if l["loops"] > 0]
    present = [o for o in FLOW if any(l["ops"].get(o, 0) for l in launches)]
    print("launches %d (%d without a CAS loop, %d with); control-flow opcodes seen: %s"
          % (len(launches), len(det), len(cas), " ".join(present)))
    print("\nmembership, on the launches without a CAS loop (their counts do not depend on timing):")
    for m, sub in MEMBERS.items():
        exact, off = 0, []
        for l in det:
            for s in CTRS:
                if m not in l[s]:
                    continue
                diff = l[s][m] - sum(l["ops"].get(o, 0) for o in sub)
                exact += diff == 0
                if diff and l["name"] not in [o[0] for o in off]:
                    off.append((l["name"], diff))
        n = sum(m in l[s] for l in det for s in CTRS)
        print("  %s = %s: exact in %d of %d (launch, set)%s" % (m, " + ".join(sub), exact, n, "".join(
            "\n    not in %s: counter - opcodes = %.0f" % o for o in off)))
    print("\nper launch with a CAS loop (set d: one pass with the shared-atomic counters):")
    cols = ("prog", "launch", "kernel", "loops", "entries", "BSSY", "BRA", "ATOMS", "BSSY-BRA+ATOMS", "Q_set_d")
    print("  %-4s %-6s %-34s %5s %9s %9s %9s %9s %14s %9s" % cols)
    rows, q_equal = [], 0
    for l in cas:
        o = l["ops"]
        d = l["d"]
        src_q = o.get("BSSY", 0) - o.get("BRA", 0) + o.get("ATOMS", 0)
        q = d["smsp__inst_executed_pipe_cbu.sum"] - d["smsp__inst_executed_op_branch.sum"] + \
            d["smsp__inst_executed_op_shared_atom.sum"]
        q_equal += q == src_q
        rows.append((l["prog"], l["k"], l["name"].split("(")[0], l["loops"], l["entries"], o.get("BSSY", 0),
                     o.get("BRA", 0), o.get("ATOMS", 0), src_q, q))
        print("  %-4s %-6d %-34s %5d %9.0f %9.0f %9.0f %9.0f %14.0f %9.0f" % (rows[-1][:2] + (rows[-1][2][:34],) +
                                                                         rows[-1][3:]))
    if "--csv" in sys.argv:
        with open(sys.argv[sys.argv.index("--csv") + 1], "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(cols)
            w.writerows([r[:4] + tuple("%.0f" % v for v in r[4:]) for r in rows])
    print()
    for m, sub in MEMBERS.items():
        n = sum(m in l[s] for l in det for s in CTRS)
        k = sum(m in l[s] and l[s][m] == sum(l["ops"].get(o, 0) for o in sub) for l in det for s in CTRS)
        print("cbu-entries: %s = %s exact %d/%d" % (m.split("__")[1].split(".")[0], "+".join(sub), k, n))
    extra = [l for l in cas if l["ops"].get("BSSY", 0) != l["entries"]]
    print("cbu-entries: CAS-loop launches %d BSSY-equals-entries %d Q-equals-source %d"
          % (len(cas), len(cas) - len(extra), q_equal))

if __name__ == "__main__":
    main()
