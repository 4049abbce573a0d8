#!/usr/bin/env python3
"""Accuracy of atomutil's utilization against ground truth (docs/validation.md, issue 6).

Joins the three outputs of scripts/validation_all.sh in RESULT_DIR:
  vtime.csv           validation --mode time: T_full, T_atom, U_true per point
  vprof_points.csv    validation --mode profile: which launch is which point and role
  vprof.csv           atomutil-profile --csv report of that profile run (default family add)
  vprof_<family>.csv  the same counters re-evaluated with --family <family> (--import)
  vncu.csv            optional: ncu export of the profile run with the LSU-queue metrics
and compares, per point, U_true with
  --busy queue      U of the profile run's report, priced at S(N) (the paper's pricing), family add
  ... --family      the same with --family matching the point's operation (popc_inc, cas, cas64,
                    cast_spin, cast_spin64)
  proxy             shared-atomic wavefronts per active cycle of an SM
  cap               S at the table's largest n (the unit's saturated cost): atomutil's default
                    pricing (--busy saturated), with family add ("atomutil (default)") and with
                    the matched family ("atomutil --family")
  lsu, lsu_res      model variants from the ncu run: N = LSU shared-pipe queue (Little's law),
                    and the same ncu counters with N = resident warps (like-for-like reference)
The model is re-evaluated here with a port of model/src/interp.c; the script checks the port
against atomutil's own U and prints the largest difference.

usage: validate.py RESULT_DIR [--tables DIR] [--doc docs/validation.md [--tag TAG]] [--img DIR]
Writes RESULT_DIR/validation_points.csv and RESULT_DIR/validation_tables.md; with --doc, replaces
the text between the markers '<!-- validate.py TAG begin -->' and '<!-- validate.py TAG end -->'
(without TAG: '<!-- validate.py begin -->' ...) of that file by the tables; with --img, writes
validation_*.png there (needs matplotlib).  Files may be gzip-compressed (NAME.gz).
Standard library only (matplotlib for the plots).
"""
import argparse
import csv
import glob
import gzip
import math
import os
import re
import statistics
import sys

MARK = "<!-- validate.py%s %s -->"  # tag, begin|end


# ------------------------------------------------------------------ reading


def open_text(path):
    """The file, or its gzip-compressed copy PATH.gz (docs/results keeps large files compressed)."""
    if not os.path.exists(path) and os.path.exists(path + ".gz"):
        return gzip.open(path + ".gz", "rt", newline="")
    return open(path, newline="")


def exists(path):
    return os.path.exists(path) or os.path.exists(path + ".gz")


def read_rows(path):
    """CSV rows as dicts, skipping '#' comment lines and ==PROF==/==ATOMUTIL== lines."""
    with open_text(path) as f:
        lines = [l for l in f if l.strip() and not l.startswith("#") and not l.startswith("==")]
    return list(csv.DictReader(lines))


def header_meta(path):
    """key=value pairs of the first '#' line (gpu="...", sm_count=..., ...)."""
    with open_text(path) as f:
        for line in f:
            if line.startswith("#"):
                return dict((k, v.strip('"')) for k, v in re.findall(r'(\w+)=("[^"]*"|\S+)', line))
    return {}


def kernel_base(name):
    name = name[5:] if name.startswith("void ") else name
    return name.split("(")[0].strip()


SCALE = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9}


def ncu_number(value, unit):
    v = value.replace(",", "").strip()
    if v in ("", "n/a"):
        return None
    try:
        x = float(v)
    except ValueError:
        return None
    m = re.match(r"^([KMG]?)", unit or "")
    # ncu scales units only without --print-units base; a prefix on a counter unit means that
    if m and m.group(1) and unit not in ("Kernel",):
        x *= SCALE[m.group(1)]
    return x


def read_ncu(path):
    """Launches of an ncu --csv export in order: list of (kernel, {metric: value})."""
    launches, index = [], {}
    with open_text(path) as f:
        lines = [l for l in f if l.startswith('"')]
    for r in csv.DictReader(lines):
        key = r["ID"]
        if key not in index:
            index[key] = len(launches)
            launches.append((r["Kernel Name"], {}))
        val = ncu_number(r["Metric Value"], r.get("Metric Unit", ""))
        if val is not None:
            launches[index[key]][1][r["Metric Name"]] = val
    return launches


# ------------------------------------------------------------------ the table (port of interp.c)


class Table:
    def __init__(self, path):
        self.path, self.meta, self.cells = path, {}, {}
        with open(path, newline="") as f:
            lines = []
            for line in f:
                if line.startswith("#"):
                    m = re.match(r"#\s*(\w+):\s*(.*)", line)
                    if m:
                        self.meta[m.group(1)] = m.group(2).strip()
                elif line.strip():
                    lines.append(line)
        for r in csv.DictReader(lines):
            key = (r["family"], int(r["n"]), int(r["a"]))
            self.cells.setdefault(key, []).append((int(r["c"]), float(r["service_cycles"])))
        self.nv, self.av = {}, {}
        for (fam, n, a), rows in self.cells.items():
            rows.sort()
            self.nv.setdefault(fam, set()).add(n)
            self.av.setdefault(fam, set()).add(a)
        self.nv = {k: sorted(v) for k, v in self.nv.items()}
        self.av = {k: sorted(v) for k, v in self.av.items()}

    @staticmethod
    def _bracket(v, x):
        if len(v) == 1:
            return 0, 0.0
        if x >= v[-1]:
            return len(v) - 2, 1.0
        k = 0
        while k + 1 < len(v) - 1 and v[k + 1] <= x:
            k += 1
        return k, (x - v[k]) / (v[k + 1] - v[k])

    def _at(self, fam, n, a, share):
        rows = self.cells[(fam, n, a)]
        c = share * n
        if len(rows) == 1:
            return rows[0][1]
        k = 0
        while k + 2 < len(rows) and rows[k + 1][0] <= c:
            k += 1
        (pc, ps), (qc, qs) = rows[k], rows[k + 1]
        if c <= pc:
            return ps
        if c >= qc:
            return qs
        w = (c - pc) / (qc - pc)
        return ps * (1 - w) + qs * w

    def interp(self, fam, n, a, c):
        share = c / n if n > 0 else 0.0
        share = min(max(share, 0.0), 1.0)
        nv, av = self.nv[fam], self.av[fam]
        n = min(max(n, nv[0]), nv[-1])
        a = min(max(a, av[0]), av[-1])
        i, wn = self._bracket(nv, n)
        j, wa = self._bracket(av, a)
        i1 = i + 1 if len(nv) > 1 else i
        j1 = j + 1 if len(av) > 1 else j
        s0 = self._at(fam, nv[i], av[j], share) * (1 - wa) + self._at(fam, nv[i], av[j1], share) * wa
        s1 = self._at(fam, nv[i1], av[j], share) * (1 - wa) + self._at(fam, nv[i1], av[j1], share) * wa
        return (nv[i] * s0 * (1 - wn) + nv[i1] * s1 * wn) / n

    def model(self, fam, jobs_sm, cas_sm, wave_sm, n, t):
        """U, S, a as model/src/queue.c evaluates one SM's counters."""
        if not jobs_sm > 0 or not t > 0:
            return 0.0, 0.0, 0.0
        share = min(max(cas_sm / jobs_sm, 0.0), 1.0)
        a = wave_sm / (jobs_sm * (1 + share)) if wave_sm > 0 else 1.0
        cq = 0.0 if fam.startswith("cas") else n * share
        a_eval = 32.0 if 32 < a <= 32.32 else a
        s = self.interp(fam, n, a_eval, cq)
        return jobs_sm * s / t, s, a


def pick_table(tables_dir, gpu, hint):
    if hint and os.path.exists(hint):
        return Table(hint)
    for path in sorted(glob.glob(os.path.join(tables_dir, "*.csv"))):
        with open(path) as f:
            head = f.read(400)
        if re.search(r"#\s*gpu_name:\s*" + re.escape(gpu) + r"\s*$", head, re.M | re.I):
            return Table(path)
    sys.exit("validate.py: no table for GPU '%s' in %s" % (gpu, tables_dir))


# ------------------------------------------------------------------ joining


def align(points, launches, what):
    """launches: list of (kernel, data) for the vk_ kernels, in order; points: the profile list."""
    vk = [l for l in launches if kernel_base(l[0]).startswith("vk_")]
    if len(vk) != len(points):
        sys.exit("validate.py: %s has %d vk_ launches, the point list %d" % (what, len(vk), len(points)))
    for p, (k, _) in zip(points, vk):
        if kernel_base(k) != p["kernel"]:
            sys.exit("validate.py: %s: launch %s is %s, expected %s" % (what, p["seq"], k, p["kernel"]))
    return [d for _, d in vk]


def fnum(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


def stats(errs):
    errs = [e for e in errs if e is not None]
    if not errs:
        return None, None, 0
    return sum(errs) / len(errs), max(errs), len(errs)


def fmt(v, digits=1):
    return "" if v is None else "%.*f" % (digits, v)


# ------------------------------------------------------------------ main


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("result_dir")
    ap.add_argument("--tables", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tables"))
    ap.add_argument("--doc")
    ap.add_argument("--tag", default="")
    ap.add_argument("--img")
    args = ap.parse_args()
    rd = args.result_dir

    vtime = {int(r["idx"]): r for r in read_rows(os.path.join(rd, "vtime.csv"))}
    meta = header_meta(os.path.join(rd, "vtime.csv"))
    plist = read_rows(os.path.join(rd, "vprof_points.csv"))
    rep_rows = read_rows(os.path.join(rd, "vprof.csv"))
    rep = align(plist, [(r["kernel"], r) for r in rep_rows], "vprof.csv")
    fam_reps = {}
    for path in glob.glob(os.path.join(rd, "vprof_*.csv")) + glob.glob(os.path.join(rd, "vprof_*.csv.gz")):
        path = path[:-3] if path.endswith(".gz") else path
        fam = os.path.basename(path)[len("vprof_"):-4]
        if fam == "points":
            continue
        rows = read_rows(path)
        fam_reps[fam] = align(plist, [(r["kernel"], r) for r in rows], os.path.basename(path))
    fam_reps["add"] = rep
    # the ncu run has its own launch list (vncu_points.csv, without warm-up launches)
    ncu = None
    if exists(os.path.join(rd, "vncu.csv")) and exists(os.path.join(rd, "vncu_points.csv")):
        try:
            nlist = read_rows(os.path.join(rd, "vncu_points.csv"))
            nl = read_ncu(os.path.join(rd, "vncu.csv"))
            # a run cut short by its time limit: use the launches it finished
            nvk = sum(1 for k, _ in nl if kernel_base(k).startswith("vk_"))
            if nvk < len(nlist):
                print("validate.py: ncu covered %d of %d launches" % (nvk, len(nlist)), file=sys.stderr)
                nlist = nlist[:nvk]
            data = align(nlist, nl, "vncu.csv")
            by_key = {(p["idx"], p["role"]): d for p, d in zip(nlist, data)}
            ncu = [by_key.get((p["idx"], p["role"])) for p in plist]
        except SystemExit as e:
            print("validate.py: ncu data not used: %s" % e, file=sys.stderr)
            ncu = None

    gpu = rep[0]["device"] if rep else meta.get("gpu", "")
    table = pick_table(args.tables, gpu, rep[0]["table"] if rep else None)
    nmax = table.nv["add"][-1]

    # one record per (point, role)
    recs, port_diff = [], 0.0
    for i, p in enumerate(plist):
        if p["role"] == "warm":
            continue
        idx = int(p["idx"])
        t = vtime.get(idx)
        if t is None:
            continue
        r = rep[i]
        fam = t["family"]
        fr = fam_reps.get(fam, [None] * len(plist))[i]
        sm = fnum(r["sm_count"]) or float(meta.get("sm_count", 132))
        jobs, cas, wave = fnum(r["jobs"]), fnum(r["cas_jobs"]), fnum(r["wavefronts"])
        T, N = fnum(r["active_cycles"]), fnum(r["queue_len"])
        rec = {
            "idx": idx, "name": t["name"], "class": t["class"], "role": p["role"], "family": fam,
            "kernel": p["kernel"], "u_true": float(t["u_true"]) if p["role"] == "full" else 1.0,
            "u_atomutil": fnum(r["util_pct"]) / 100 if fnum(r["util_pct"]) is not None else None,
            "u_family": fnum(fr["util_pct"]) / 100 if fr and fnum(fr["util_pct"]) is not None else None,
            "a": fnum(r["a_passes_per_job"]), "n_warps": N, "active_cycles": T,
            "jobs_per_sm": jobs / sm if jobs else None,
            "blocks_per_sm_max": t["blocks_per_sm_max"], "blocks_per_sm_min": t["blocks_per_sm_min"],
        }
        if fam == "add":
            rec["u_family"] = rec["u_atomutil"]
        rec["proxy"] = wave / sm / T if wave is not None and T else None
        if jobs and T:
            u_py, _, _ = table.model(fam, jobs / sm, cas / sm, wave / sm, N, T)
            if rec["u_family"] is not None:
                port_diff = max(port_diff, abs(u_py - rec["u_family"]))
            rec["cap"] = table.model(fam, jobs / sm, cas / sm, wave / sm, nmax, T)[0]
            rec["cap_add"] = table.model("add", jobs / sm, cas / sm, wave / sm, nmax, T)[0]
        if ncu and ncu[i]:
            m = ncu[i]
            cyc_sum = m.get("sm__cycles_active.sum")
            pend = m.get("sm__inst_pending_pipe_lsu_mem_shared_cmd_read.sum")
            lat = m.get("sm__average_inst_latency_pipe_lsu_mem_shared_cmd_read.ratio")
            lsu_inst = m.get("sm__inst_executed_pipe_lsu_mem_shared_cmd_read.sum")
            nj, nc, nw = (m.get("smsp__inst_executed_op_shared_atom.sum"),
                          m.get("smsp__inst_executed_op_shared_atom_dot_cas.sum"),
                          m.get("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum"))
            nT, nN = m.get("sm__cycles_active.avg"), m.get("sm__warps_active.avg.per_cycle_active")
            if None not in (cyc_sum, pend, nj, nc, nw, nT, nN) and cyc_sum > 0 and nj > 0:
                rec["n_lsu"] = pend / cyc_sum
                if lat is not None and lsu_inst is not None:
                    rec["n_little"] = lat * lsu_inst / cyc_sum
                rec["lsu"] = table.model(fam, nj / sm, nc / sm, nw / sm, rec["n_lsu"], nT)[0]
                rec["lsu_res"] = table.model(fam, nj / sm, nc / sm, nw / sm, nN, nT)[0]
                cmax = m.get("sm__cycles_active.max")
                rec["t_max_over_avg"] = cmax / nT if cmax else None
        recs.append(rec)

    est = ["u_atomutil", "u_family", "proxy", "cap_add", "cap", "lsu", "lsu_res"]
    # atomutil prices jobs at the saturated service time by default ("cap", --busy saturated);
    # the profile run's report (vprof.csv) was made with --busy queue, the paper's pricing
    labels = {"u_atomutil": "--busy queue", "u_family": "--busy queue --family", "proxy": "proxy",
              "cap_add": "atomutil (default)", "cap": "atomutil --family",
              "lsu": "queue, LSU-queue N --family", "lsu_res": "queue, warps N --family (ncu run)"}
    full = [r for r in recs if r["role"] == "full"]
    atom = [r for r in recs if r["role"] == "atom"]
    for r in recs:
        for e in est:
            v = r.get(e)
            r["err_" + e] = abs(v - r["u_true"]) * 100 if v is not None else None

    # ---------------- points CSV
    cols = ["idx", "name", "class", "role", "family", "kernel", "u_true"] + est + [
        "a", "n_warps", "n_lsu", "n_little", "jobs_per_sm", "active_cycles", "t_max_over_avg",
        "blocks_per_sm_max", "blocks_per_sm_min"]
    with open(os.path.join(rd, "validation_points.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for r in recs:
            w.writerow([("%.4f" % r[c]) if isinstance(r.get(c), float) else r.get(c, "") for c in cols])

    # ---------------- tables
    have = [e for e in est if any(r.get(e) is not None for r in full)]
    classes = []
    for r in full:
        if r["class"] not in classes:
            classes.append(r["class"])
    out = []
    out.append("GPU: %s (%s SMs), table `%s`, %d points, %s timed launches per kernel (medians).\n"
               % (gpu, meta.get("sm_count", "?"), os.path.relpath(table.path, os.path.dirname(
                   os.path.abspath(args.tables))) if table.path else "?", len(full), meta.get("reps", "?")))
    out.append("Mean / maximum absolute error of U against U_true, percentage points, per class:\n")
    hdr = "| class | points | U_true range | " + " | ".join(labels[e] for e in have) + " |"
    out.append(hdr)
    out.append("|" + "---|" * (3 + len(have)))
    for cls in classes + ["**all**", "all but occupancy"]:
        rows = (full if cls == "**all**" else [r for r in full if r["class"] != "occupancy"]
                if cls == "all but occupancy" else [r for r in full if r["class"] == cls])
        ut = [r["u_true"] for r in rows]
        cells = []
        for e in have:
            mae, mx, n = stats([r["err_" + e] for r in rows])
            cells.append("%s / %s" % (fmt(mae), fmt(mx)) if n else "")
        out.append("| %s | %d | %.0f-%.0f %% | %s |" % (cls, len(rows), 100 * min(ut), 100 * max(ut), " | ".join(cells)))
    out.append("")
    # goals
    mae_p = stats([r["err_proxy"] for r in full])[0]
    out.append("Goals (issue 6) over all %d points: MAE <= 5 points and <= half the proxy's (%.1f / 2 = %.1f):\n"
               % (len(full), mae_p, mae_p / 2))
    for e in have:
        if e == "proxy":
            continue
        mae = stats([r["err_" + e] for r in full])[0]
        out.append("- %s: MAE %.1f: **%s**" % (labels[e], mae, "met" if mae <= 5 and mae <= mae_p / 2 else "not met"))
    out.append("")
    # saturated
    out.append("Saturated launches (the atomics-only kernel of every point, U_true = 1 by construction), "
               "U in %:\n")
    sat = [e for e in ("u_atomutil", "u_family", "proxy", "cap_add", "cap") if e in have]
    out.append("| class | launches | " + " | ".join("%s: min / median / max, in 95-105" % labels[e]
                                                for e in sat) + " |")
    out.append("|---|---|" + "---|" * len(sat))
    for cls in classes + ["**all**"]:
        rows = atom if cls == "**all**" else [r for r in atom if r["class"] == cls]
        cells = []
        for e in sat:
            v = [100 * r[e] for r in rows if r.get(e) is not None]
            if not v:
                cells.append("")
                continue
            inside = sum(1 for x in v if 95 <= x <= 105)
            cells.append("%.1f / %.1f / %.1f, %d of %d" % (min(v), statistics.median(v), max(v), inside, len(v)))
        out.append("| %s | %d | %s |" % (cls, len(rows), " | ".join(cells)))
    out.append("")
    # worst points
    worst = sorted(full, key=lambda r: -(r.get("err_cap") or 0))[:12]
    out.append("Largest errors of atomutil --family (full kernels):\n")
    out.append("| point | class | U_true | --busy queue | --busy queue --family | proxy | atomutil --family "
               "| a | N warps | N LSU |")
    out.append("|---|---|---|---|---|---|---|---|---|---|")
    for r in worst:
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["name"], r["class"], fmt(100 * r["u_true"]),
            fmt(100 * r["u_atomutil"]) if r["u_atomutil"] is not None else "",
            fmt(100 * r["u_family"]) if r["u_family"] is not None else "",
            fmt(100 * r["proxy"]) if r["proxy"] is not None else "",
            fmt(100 * r["cap"]) if r.get("cap") is not None else "",
            fmt(r["a"], 2), fmt(r["n_warps"]), fmt(r.get("n_lsu"), 2)))
    out.append("")
    out.append("Model port check: largest |U(python) - U(atomutil --family)| = %.2f points." % (100 * port_diff))
    text = "\n".join(out) + "\n"
    with open(os.path.join(rd, "validation_tables.md"), "w") as f:
        f.write(text)
    print(text)

    if args.doc:
        with open(args.doc) as f:
            doc = f.read()
        tag = " " + args.tag if args.tag else ""
        BEGIN, END = MARK % (tag, "begin"), MARK % (tag, "end")
        if BEGIN in doc and END in doc:
            a, b = doc.index(BEGIN) + len(BEGIN), doc.index(END)
            doc = doc[:a] + "\n" + text + doc[b:]
            with open(args.doc, "w") as f:
                f.write(doc)
        else:
            print("validate.py: %s has no markers; not changed" % args.doc, file=sys.stderr)

    if args.img:
        plot(full, atom, classes, have, labels, args.img, gpu)


def plot(full, atom, classes, have, labels, img, gpu):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("validate.py: no matplotlib, no plots", file=sys.stderr)
        return
    os.makedirs(img, exist_ok=True)
    show = [e for e in ("u_atomutil", "u_family", "proxy", "cap_add", "cap") if e in have]
    fig, axes = plt.subplots(1, len(show), figsize=(4.2 * len(show), 4.2), sharey=True)
    markers = "osD^v<>ph*Xd"
    for ax, e in zip(axes, show):
        for k, cls in enumerate(classes):
            rows = [r for r in full if r["class"] == cls and r.get(e) is not None]
            ax.scatter([100 * r["u_true"] for r in rows], [100 * r[e] for r in rows], s=16,
                       marker=markers[k % len(markers)], label=cls)
        ax.plot([0, 110], [0, 110], "k-", lw=0.8)
        ax.set_xlim(0, 110)
        ax.set_ylim(0, 160)
        ax.set_xlabel("U_true (%)")
        ax.set_title(labels[e])
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("U (%)")
    axes[-1].legend(fontsize=7, loc="upper left")
    fig.suptitle("Utilization against ground truth, %s" % gpu)
    fig.tight_layout()
    fig.savefig(os.path.join(img, "validation_scatter.png"), dpi=110)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(10, 4))
    width = 0.8 / len(have)
    for j, e in enumerate(have):
        vals = [stats([r["err_" + e] for r in full if r["class"] == c])[0] or 0 for c in classes]
        ax.bar([i + j * width for i in range(len(classes))], vals, width, label=labels[e])
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(classes))])
    ax.set_xticklabels(classes, rotation=20)
    ax.set_ylabel("mean |U - U_true| (points)")
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    ax.set_title("Mean absolute error per class, %s" % gpu)
    fig.tight_layout()
    fig.savefig(os.path.join(img, "validation_mae.png"), dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    main()
