#!/usr/bin/env python3
"""Tables of the cluster-histogram case study (docs/case-study.md) from a validation/cluster_case_study.sh run.

usage: cluster_case_study.py OUT_DIR

Reads from OUT_DIR (every file optional; what is missing is named on stderr and in the output):
  cluster_time.txt                      examples/cluster_histogram alone (median of 3 launches a line)
  cluster_prof.txt, cluster_prof.csv    the same run under atomutil-profile, and its --csv report
  hist_time.txt, hist_prof.txt, hist_prof.csv             examples/histogram -i all, its defaults
  hist1024_time.txt, hist1024_prof.txt, hist1024_prof.csv the same with block 1024 and the grid of
                                        the cluster example's cluster=1 line
  ncu.csv                               ncu --csv --page raw of cluster_histogram --repeat 1
Prints markdown: per image, every cluster size and every per-block kernel with its time, Gpix/s,
atomutil's U, verdict and flags (of the last launch of each printed line); the ncu counters per
SM of each cluster case; last line `summary: ...`, the fastest variant per image.  Exit status 0
when any table was made, 1 when nothing could be read.  Input files may be gzip-compressed
(NAME.gz).  Standard library only (and case_study.py / validate.py beside it).
"""
import csv
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from case_study import HIST_RE, HKERNELS, IMAGES, fmt, fnum, kernel_base, parse_lines, read_rows  # noqa: E402
from validate import exists, open_text  # noqa: E402

CLUSTER_RE = re.compile(r"^cluster_hist image=(\w+) cluster=(\d+) blocks=(\d+) block=(\d+) "
                        r"ms=([\d.]+) gpix_per_s=([\d.]+) check=ok")
CLUSTERS = [1, 2, 4, 8]
# ncu metrics of the counter table, per SM: (column, metric)
NCU_COLS = [
    ("generic ATOM", "smsp__inst_executed_op_generic_atom.sum"),
    ("ATOMS", "smsp__inst_executed_op_shared_atom.sum"),
    ("shared-atom wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum"),
    ("dshared atom requests", "l1tex__t_requests_pipe_lsu_mem_dshared_op_atom.sum"),
    ("dshared atom wavefronts", "l1tex__t_output_wavefronts_pipe_lsu_mem_dshared_op_atom.sum"),
    ("xbar dshared cycles", "l1tex__m_l1tex2xbar_req_cycles_active_mem_dshared.sum"),
]

# ncu's unit scaling (--print-units auto): times to ns, K/M/G prefixes of counts and cycles
UNIT_SCALE = {"second": 1e9, "msecond": 1e6, "usecond": 1e3, "nsecond": 1, "s": 1e9, "ms": 1e6,
              "us": 1e3, "ns": 1}
PREFIX_SCALE = {"K": 1e3, "M": 1e6, "G": 1e9}


class Inputs:
    """OUT_DIR's files; notes what is missing or does not match instead of failing."""

    def __init__(self, rd):
        self.rd, self.missing = rd, []

    def path(self, name, what):
        p = os.path.join(self.rd, name)
        if exists(p):
            return p
        self.missing.append("%s missing (%s)" % (name, what))
        return None

    def lines(self, name, rx, what):
        p = self.path(name, what)
        return parse_lines(p, rx) if p else []

    def report(self, name, what):
        p = self.path(name, what)
        return read_rows(p) if p else None


def last_launches(ins, lines, report, name_of, grid_of, what):
    """The report row of the last launch of each printed line (launches in order, the same number
    for every line), or None for every line when they do not match."""
    if not lines or report is None:  # missing files are noted already
        return [None] * len(lines)
    names = {name_of(l) for l in lines}
    rows = [r for r in report if kernel_base(r["kernel"]) in names]
    if not rows or len(rows) % len(lines):
        ins.missing.append("%s: %d launches for %d lines, no U" % (what, len(rows), len(lines)))
        return [None] * len(lines)
    per = len(rows) // len(lines)
    out = []
    for i, l in enumerate(lines):
        r = rows[i * per + per - 1]
        if kernel_base(r["kernel"]) != name_of(l) or not r["grid"].startswith("(%s," % grid_of(l)):
            ins.missing.append("%s: line %d is %s grid %s, launch is %s grid %s, no U"
                               % (what, i + 1, name_of(l), grid_of(l), r["kernel"], r["grid"]))
            return [None] * len(lines)
        out.append(r)
    return out


def u_cell(r):
    """U in percent, with its range where atomutil gives one."""
    if r is None:
        return ""
    u, lo, hi = fnum(r.get("util_pct")), fnum(r.get("util_pct_lo")), fnum(r.get("util_pct_hi"))
    if u is None:
        return ""
    return fmt(u) + (" (%s-%s)" % (fmt(lo), fmt(hi)) if lo is not None and hi is not None else "")


def cluster_rows(ins):
    """Rows of the cluster histogram: (image, variant, grid, block, ms, gpix, report row)."""
    timing = ins.lines("cluster_time.txt", CLUSTER_RE, "cluster_histogram timings")
    prof = ins.lines("cluster_prof.txt", CLUSTER_RE, "cluster_histogram under atomutil")
    rep = ins.report("cluster_prof.csv", "atomutil report of cluster_histogram")
    reps = last_launches(ins, prof, rep, lambda l: "cluster_hist", lambda l: l[2], "cluster_prof.csv")
    by_case = {(l[0], int(l[1])): r for l, r in zip(prof, reps)}
    cases = [(l[0], int(l[1])) for l in (timing or prof)]
    times = {(l[0], int(l[1])): l for l in timing}
    out = []
    for case in cases:
        l = times.get(case) or next(p for p in prof if (p[0], int(p[1])) == case)
        t = times.get(case)
        out.append((case[0], "cluster %d" % case[1], int(l[2]), int(l[3]),
                    float(t[4]) if t else None, float(t[5]) if t else None, by_case.get(case)))
    return out


def hist_rows(ins, base, what):
    """Rows of examples/histogram, run BASE (hist or hist1024)."""
    timing = ins.lines(base + "_time.txt", HIST_RE, what + " timings")
    prof = ins.lines(base + "_prof.txt", HIST_RE, what + " under atomutil")
    rep = ins.report(base + "_prof.csv", "atomutil report of " + what)
    reps = last_launches(ins, prof, rep, lambda l: "hist_" + l[0], lambda l: l[3], base + "_prof.csv")
    by_case = {(l[1], l[0]): r for l, r in zip(prof, reps)}
    out = []
    for k, img, px, g, b, ms in timing or [l[:5] + (None,) for l in prof]:
        t = float(ms) if ms else None
        out.append((img, "per-block " + k, int(g), int(b), t, int(px) / t / 1e6 if t else None,
                    by_case.get((img, k))))
    return out


def ncu_table(ins):
    """The ncu counters per SM of each cluster case, as markdown lines (empty without ncu.csv)."""
    p = ins.path("ncu.csv", "ncu reference counters")
    if not p:
        return []
    with open_text(p) as f:
        text = f.read().splitlines()
    cases = [m.groups() for m in (CLUSTER_RE.match(l) for l in text) if m]
    head = next((i for i, l in enumerate(text) if l.startswith('"ID"')), None)
    if head is None:
        ins.missing.append("ncu.csv has no counter table (see ncu.log)")
        return []
    table = list(csv.DictReader(l for l in text[head:] if l.startswith('"')))
    units = next((r for r in table if not r.get("ID")), {})  # the units row
    rows = [r for r in table if r.get("ID") and kernel_base(r.get("Kernel Name", "")) == "cluster_hist"]
    per = len(rows) // len(cases) if cases and len(rows) % len(cases) == 0 else 0
    if not per:
        ins.missing.append("ncu.csv: %d launches for %d program lines, rows unlabelled" % (len(rows), len(cases)))

    def num(r, m):
        """The metric in base units (ns, cycles, counts) whatever ncu's unit scaling."""
        v = fnum((r.get(m) or "").replace(",", ""))
        u = units.get(m) or ""
        scale = UNIT_SCALE.get(u, PREFIX_SCALE.get(u[:1], 1) if u[1:2].islower() else 1)
        return v * scale if v is not None else None

    out = ["ncu counters of cluster_histogram --repeat 1, per SM (sums / SM count); xbar % = xbar "
           "dshared cycles per SM / active cycles:\n",
           "| image | cluster | launch__cluster_size | grid | time us | active cycles | "
           + " | ".join(c[0] for c in NCU_COLS) + " | xbar % |",
           "|---|---|---|---|---|---|" + "---|" * len(NCU_COLS) + "---|"]
    for i, r in enumerate(rows):
        img, c = (cases[i // per][0], cases[i // per][1]) if per else ("?", "?")
        sm = num(r, "device__attribute_multiprocessor_count") or None
        act = num(r, "sm__cycles_active.avg")
        dur = num(r, "gpu__time_duration.sum")
        cells = []
        for _, m in NCU_COLS:
            v = num(r, m)
            cells.append(fmt(v / sm if v is not None and sm else None, 0))
        xbar = num(r, "l1tex__m_l1tex2xbar_req_cycles_active_mem_dshared.sum")
        xpct = 100 * xbar / sm / act if xbar is not None and sm and act else None
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            img, c, r.get("launch__cluster_size", ""), r.get("Grid Size", "").split(",")[0].strip("( "),
            fmt(dur / 1e3 if dur is not None else None, 1), fmt(act, 0), " | ".join(cells), fmt(xpct)))
    return out


def main():
    if len(sys.argv) != 2 or sys.argv[1].startswith("-"):
        sys.exit(__doc__.split("\n\n")[1])
    ins = Inputs(sys.argv[1])
    rows = cluster_rows(ins) + hist_rows(ins, "hist", "histogram") + \
        hist_rows(ins, "hist1024", "histogram, block 1024")
    order = {v: i for i, v in enumerate(["cluster %d" % c for c in CLUSTERS])}
    rows.sort(key=lambda r: (IMAGES.index(r[0]) if r[0] in IMAGES else len(IMAGES),
                             0 if r[1] in order else 1, order.get(r[1], 0), r[3],
                             HKERNELS.index(r[1][10:]) if r[1][10:] in HKERNELS else 0))
    out = []
    if rows:
        out += ["Cluster histogram (distributed shared memory) and per-block histograms, same images; "
                "U, verdict and flags of the last launch of each case (atomutil-profile, default pricing):\n",
                "| image | variant | grid | block | time ms | Gpix/s | U % | verdict | flags |",
                "|---|---|---|---|---|---|---|---|---|"]
        for img, var, g, b, ms, gpx, r in rows:
            out.append("| %s | %s | %d | %d | %s | %s | %s | %s | %s |" % (
                img, var, g, b, fmt(ms, 3), fmt(gpx, 1), u_cell(r), r["verdict"] if r else "",
                r["flags"] if r else ""))
    nt = ncu_table(ins)
    if nt:
        out += [""] + nt
    for m in ins.missing:
        print("cluster_case_study.py: %s" % m, file=sys.stderr)
    if ins.missing:
        out += ["", "Not in these tables: " + "; ".join(ins.missing) + "."]
    best = []
    for img in IMAGES:
        timed = [r for r in rows if r[0] == img and r[4]]
        if timed:
            r = min(timed, key=lambda r: r[4])
            text = "%s: %s block %d (%s ms, %s Gpix/s)" % (img, r[1], r[3], fmt(r[4], 3), fmt(r[5], 1))
            cl = [c for c in timed if c[1] in order]
            if cl and r[1] not in order:
                c = min(cl, key=lambda c: c[4])
                text += ", best cluster size: %s (%s ms)" % (c[1][8:], fmt(c[4], 3))
            best.append(text)
    out += ["", "summary: fastest per image: " + ("; ".join(best) if best else "none (no timings)")]
    print("\n".join(out))
    return 0 if rows or nt else 1


if __name__ == "__main__":
    sys.exit(main())
