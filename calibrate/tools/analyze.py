#!/usr/bin/env python3
"""analyze.py - checks and summaries behind docs/calibration.md (no third-party modules).

  sass  SASS.txt                  ATOMS opcodes per kernel family (cuobjdump -sass) vs the family registry (model/include/atomutil/families.def),
                                  and instructions issued per job in the unrolled main loop
                                  (more than 3 per cycle of unit time: issue-bound); the dsmem
                                  families' one kernel (au_cal_dsmem_kernel): the generic ATOM of
                                  their descriptor and no other atomic
  ncu   NCU.csv POINTS.csv        per --point launch: ATOMS instructions and wavefronts per
                                  instruction (ncu --csv --page raw) vs what the point intends
  ops   TABLE.csv                 every family against add at equal n, a (c = 0)
  burst STEADY.csv BURST.csv      burst vs steady, family add, c = 0
  key   TABLE.csv                 the table's values at the points REFERENCE.md section 2 quotes

Exit status 1 when a check fails (sass, ncu), 0 otherwise.
"""
import csv
import os
import re
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # plot_calibration.py, beside this file
from plot_calibration import load_table  # noqa: E402


DSMEM_KERNEL = "dsmem"  # the key of au_cal_dsmem_kernel, the one kernel of the dsmem families


def families_def(with_pattern=False):
    """[(name, sass prefix)] from the family registry, model/include/atomutil/families.def (with_pattern: also wavefronts per pass
    and lane pattern, SPREAD for the dsmem families)."""
    out = []
    pat = re.compile(r'^AU_FAMILY\((\w+), "([^"]+)", \w+, (\d+), \d+, (\w+),')
    dsm = re.compile(r'^AU_DSMEM_FAMILY\((\w+), "([^"]+)",')
    with open(os.path.join(ROOT, "model", "include", "atomutil", "families.def")) as f:
        for line in f:
            m, d = pat.match(line), dsm.match(line)
            if m:
                out.append((m.group(1), m.group(2), int(m.group(3)), m.group(4)) if with_pattern
                           else (m.group(1), m.group(2)))
            elif d:
                out.append((d.group(1), d.group(2), 1, "SPREAD") if with_pattern
                           else (d.group(1), d.group(2)))
    return out


# An SM issues 4 warp-instructions per cycle (one per sub-partition) and the unit serves one
# single-pass job per cycle (a CAS-class pass: 2 cycles): a loop that issues 4 instructions per
# one-cycle job can just keep it saturated, and any stall of issue then shows in S.  3 per cycle
# of unit time leaves a margin of one issue slot per cycle.
MAX_ISSUE_PER_JOB = 3


def own_op(op, sass):
    return op == sass or (op.startswith(sass + ".") and sass != "ATOMS.CAS")


def issue_per_job(code, sass):
    """Instructions per job of the loop (a backward branch) with the most jobs of the family's own
    opcode per instruction, among loops with at least 2: the unrolled main loop (the loops
    around it hold the same jobs and more instructions).  (jobs, instructions) of that loop."""
    best = (0, 0)
    addr = {a: i for i, (a, _) in enumerate(code)}
    for i, (a, ins) in enumerate(code):
        m = re.match(r"BRA\s+(?:`\()?0x([0-9a-f]+)", ins)
        if not m:
            continue
        t = int(m.group(1), 16)
        if t >= a or t not in addr:
            continue
        body = code[addr[t]:i + 1]
        jobs = sum(1 for _, x in body if own_op(x.split()[0], sass))
        if jobs >= 2 and (best[0] == 0 or jobs * best[1] > best[0] * len(body)):
            best = (jobs, len(body))
    return best


# instructions that wait on the shared-memory (MIO) pipe or its special-register path
QUEUED = re.compile(r"\b(S2R|S2UR|LDS|LDSM|LDG|LDL|LD)\b[^;]*")


def start_paths(code):
    """Queued instructions between each barrier and the first shared atomic after it (linear SASS
    order), for the barriers that have an atomic before the next barrier: the release paths."""
    out = []
    bars = [i for i, ins in enumerate(code) if ins.startswith("BAR.SYNC")] + [len(code)]
    for b, nxt in zip(bars, bars[1:]):
        seg = code[b + 1:nxt]
        first = next((i for i, ins in enumerate(seg) if re.match(r"ATOMS?\.", ins)), None)
        if first is not None:
            out += [QUEUED.search(ins).group(0).strip() for ins in seg[:first] if QUEUED.search(ins)]
    return out


def in_flight(code, sass):
    """Jobs of the family's own opcode a warp issues before it first reads one of their results
    (the unrolled main loop): how many it keeps in flight."""
    first = next((i for i, ins in enumerate(code) if ins.startswith(sass + " ") or ins.startswith(sass + ".")), None)
    if first is None:
        return 0
    pending, count = set(), 0
    if re.match(r"ATOMS?\S*\s+(?:PT,\s*)?RZ", code[first]):
        return "all (no result)"
    for ins in code[first:]:
        regs = re.findall(r"\bR\d+\b", ins)
        if ins.startswith("ATOM"):
            if any(r in pending for r in regs[1:]):
                break
            count += 1
            if regs and regs[0] != "RZ":
                pending.add(regs[0])
        elif any(r in pending for r in regs[1:] if r) or (regs and regs[0] in pending):
            break
    return count


def cmd_sass(path):
    """cuobjdump prints 'Function : <mangled>' then the SASS; kernels are au_cal_kernel<au_op_X>
    and, for every dsmem family, au_cal_dsmem_kernel."""
    found, code, cur = {}, {}, None
    # kernels whose jobs are generic atomics (ATOM.E.*): the dsmem kernel and the generic family's
    generic = {n for n, sass in families_def() if sass.startswith("ATOM.")} | {DSMEM_KERNEL}
    with open(path) as f:
        for line in f:
            m = re.search(r"Function : (\S+)", line)
            if m:
                fm = re.search(r"au_op_([a-z0-9_]+?)E", m.group(1))
                cur = fm.group(1) if fm else DSMEM_KERNEL if "au_cal_dsmem_kernel" in m.group(1) else None
                if cur:
                    found.setdefault(cur, {})
                    code.setdefault(cur, [])
                continue
            ins = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(?:@!?U?P\w+\s+)?([^;]+);", line)
            if cur and ins:
                code[cur].append((int(ins.group(1), 16), ins.group(2).strip()))
                # shared atomics; in the kernels of generic atomics the generic ATOM too
                for op in re.findall(r"\b(ATOMS?\.[A-Z0-9.]+)" if cur in generic
                                     else r"\b(ATOMS\.[A-Z0-9.]+)", line):
                    found[cur][op] = found[cur].get(op, 0) + 1
    bad = 0
    print("family,expected,atoms_opcodes_in_kernel,queued_before_first_job,jobs_in_flight,"
          "main_loop_jobs,main_loop_instructions,issue_per_job,verdict")
    for name, sass, wf_per_way, pattern in families_def(with_pattern=True):
        kernel = DSMEM_KERNEL if pattern == "SPREAD" else name
        ops = found.get(kernel, {})
        # the family's own op must be there; besides it only the c warps' CAS: ATOMS.CAS, the
        # generic ATOM.E.CAS in a family of generic atomics (the dsmem kernel: nothing besides
        # its generic ATOM)
        own = [o for o in ops if own_op(o, sass)]
        mix = "ATOM.E.CAS" if sass.startswith("ATOM.") else "ATOMS.CAS"
        extra = [o for o in ops if o not in own and (o.split(".STRONG")[0] != mix or pattern == "SPREAD")]
        ok = bool(own) and not extra
        lines = [x for _, x in code.get(kernel, [])]
        jobs, instrs = issue_per_job(code.get(kernel, []), sass)
        per = instrs / jobs if jobs else float("nan")
        # CAS loops (the DISTINCT families) issue a load, the CAS, a compare and a branch per
        # attempt by construction: reported, not judged
        if pattern != "DISTINCT" and not per <= MAX_ISSUE_PER_JOB * wf_per_way:
            ok = False
        bad += not ok
        desc = " ".join(f"{o}x{c}" for o, c in sorted(ops.items()))
        queued = " | ".join(q.replace(",", "") for q in start_paths(lines)) or "none"
        print(f"{name},{sass},{desc},{queued},{in_flight(lines, sass)},{jobs},{instrs},{per:.2f},"
              f"{'ok' if ok else 'FAIL'}")
    return 1 if bad else 0


def read_ncu(path):
    """Rows of `ncu --csv --page raw`: a header, maybe a units row, then one row per launch."""
    with open(path) as f:
        lines = [ln for ln in f if ln.startswith('"')]
    rows = list(csv.reader(lines))
    head = rows[0]
    return [dict(zip(head, r)) for r in rows[1:] if r and r[0].strip().isdigit()]


def num(s):
    return float(s.replace(",", "")) if s not in ("", "n/a") else float("nan")


def cmd_ncu(ncu_path, points_path):
    launches = read_ncu(ncu_path)
    with open(points_path) as f:
        points = list(csv.DictReader(f))
    if len(launches) != len(points):
        print(f"ncu has {len(launches)} launches, points file {len(points)}: cannot pair them")
        return 1
    bad = 0
    print("family,pattern,n,a,c,lanes,atoms_expected,atoms_ncu,retries_per_job,cas_ncu,"
          "wavefronts_expected,wavefronts_ncu,wavefronts_per_inst,verdict")
    for p, l in zip(points, launches):
        inst = num(l["smsp__inst_executed_op_shared_atom.sum"])
        wf = num(l["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum"])
        cas = num(l["smsp__inst_executed_op_shared_atom_dot_cas.sum"])
        want = int(p["launch_atoms"])
        per = wf / inst if inst else float("nan")
        # a family's own pattern is the calibration's: exactly the intended jobs (no CAS-loop
        # retries) and the intended wavefronts; other patterns are reported, not judged
        if p["own_pattern"] == "yes":
            wwant = int(p["launch_wavefronts"])
            ok = inst == want and abs(wf - wwant) <= 0.01 * wwant
            verdict = "ok" if ok else "FAIL"
            bad += not ok
        else:
            wwant, verdict = "", "info"
        print(f"{p['family']},{p['pattern']},{p['n']},{p['a']},{p['c']},{p['lanes_op']},{want},"
              f"{inst:.0f},{inst / want - 1:.2f},{cas:.0f},{wwant},{wf:.0f},{per:.3f},{verdict}")
    return 1 if bad else 0


def rel(x, y):
    return abs(x - y) / y


def cmd_ops(path):
    _, rows = load_table(path)
    fams = sorted({k[0] for k in rows})
    print("family,cells,median_ratio_to_add,median_abs_diff_pct,p95_abs_diff_pct,max_abs_diff_pct,"
          "saturated_median_ratio")
    for fam in fams:
        if fam == "add":
            continue
        ratios, sat = [], []
        if fam.startswith("dsmem"):
            continue  # generic ATOMs on distributed shared memory: not an operation of the unit's
        for (f, n, a, c), v in rows.items():
            if f != fam or c != 0 or ("add", n, a, 0) not in rows:
                continue
            r = v[0] / rows[("add", n, a, 0)][0]
            ratios.append(r)
            if n >= 16:
                sat.append(r)
        if not ratios:
            continue
        d = sorted(abs(r - 1) * 100 for r in ratios)
        print(f"{fam},{len(ratios)},{statistics.median(ratios):.4f},{statistics.median(d):.2f},"
              f"{d[int(0.95 * (len(d) - 1))]:.2f},{d[-1]:.2f},{statistics.median(sat):.4f}")
    return 0


def cmd_burst(steady_path, burst_path):
    _, s = load_table(steady_path)
    _, b = load_table(burst_path)
    print("n,a,steady,burst,burst_over_steady")
    ratios = []
    for (f, n, a, c), v in sorted(b.items()):
        if f != "add" or c != 0 or (f, n, a, c) not in s:
            continue
        r = v[0] / s[(f, n, a, c)][0]
        ratios.append(r)
        if n in (1, 2, 4, 8, 16, 32, 48, 64) and a in (1, 4, 8, 16, 32):
            print(f"{n},{a},{s[(f, n, a, c)][0]:.2f},{v[0]:.2f},{r:.3f}")
    if ratios:
        print(f"# burst / steady over {len(ratios)} points (add, c = 0): median "
              f"{statistics.median(ratios):.3f}, min {min(ratios):.3f}, max {max(ratios):.3f}")
    return 0


# (family, n, a, c, REFERENCE.md section 2 value, what the reference row says)
KEY = [
    ("add", 1, 32, 0, 73.7, "ATOMS.ADD same bank a=32, n=1"),
    ("add", 8, 32, 0, 32.1, "ATOMS.ADD same bank a=32, n=8"),
    ("add", 32, 32, 0, 32.0, "ATOMS.ADD same bank a=32, n=32"),
    ("add", 32, 4, 0, 4.0, "ATOMS.ADD a=4, n=32"),
    ("add", 32, 16, 0, 16.0, "ATOMS.ADD a=16, n=32"),
    ("popc_inc", 1, 32, 0, 59.1, "POPC.INC same bank a=32, n=1"),
    ("popc_inc", 8, 32, 0, 31.4, "POPC.INC same bank a=32, n=8"),
    ("popc_inc", 32, 32, 0, 31.9, "POPC.INC same bank a=32, n=32"),
    ("cas", 1, 32, 0, 166.6, "ATOMS.CAS same addr/bank a=32, n=1"),
    ("cas", 8, 32, 0, 64.1, "ATOMS.CAS same addr/bank a=32, n=8"),
    ("cas", 32, 32, 0, 64.0, "ATOMS.CAS same addr/bank a=32, n=32"),
    ("cas64", 32, 32, 0, 64.05, "ATOMS.CAS.64 same addr a=32, n=32"),
    ("exch", 32, 32, 0, 32.05, "ATOMS.EXCH same addr a=32, n=32"),
]


def cmd_key(path):
    _, rows = load_table(path)
    print("family,n,a,c,measured,reference,ratio,reference_row")
    for fam, n, a, c, ref, what in KEY:
        v = rows.get((fam, n, a, c))
        if v:
            print(f"{fam},{n},{a},{c},{v[0]:.2f},{ref},{v[0] / ref:.3f},{what}")
    return 0


def main(argv):
    cmds = {"sass": (cmd_sass, 1), "ncu": (cmd_ncu, 2), "ops": (cmd_ops, 1),
            "burst": (cmd_burst, 2), "key": (cmd_key, 1)}
    if not argv or argv[0] not in cmds or len(argv) - 1 != cmds[argv[0]][1]:
        sys.stderr.write(__doc__)
        return 2
    return cmds[argv[0]][0](*argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
