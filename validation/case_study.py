#!/usr/bin/env python3
"""Tables and figures of the case studies (docs/case-study.md) from a validation/validation_all.sh run.

Reads from RESULT_DIR:
  hist_time.txt           examples/histogram --sweep -i all (timings, medians)
  hist_prof.txt, hprof.csv          the same sweep with -r 1 under atomutil-profile, and its report
  hprof_popc_inc.csv      that report re-evaluated with --family popc_inc
  km_time.txt, km_prof.txt, kprof.csv, kprof_cast_spin.csv   the same for examples/kmeans --sweep
  hprof_queue.csv, hprof_popc_inc_queue.csv, kprof_cast_spin_queue.csv   optional: the same
                          reports with --busy queue (the source paper's pricing), for comparison
Each line a program prints stands for 1 + reps launches of one kernel; the last one is used.

usage: case_study.py RESULT_DIR [--doc docs/case-study.md [--tag TAG]] [--img DIR]
Writes RESULT_DIR/case_tables.md and RESULT_DIR/case_points.csv; with --doc, replaces the text
between '<!-- case_study.py NAME[ TAG] begin -->' and '<!-- case_study.py NAME[ TAG] end -->' for
every table NAME (hist_main, hist_rotation, hist_size, hist_time, hist_block, kmeans); with --img,
writes case_*.png there (needs matplotlib).  Input files may be gzip- or xz-compressed (NAME.gz, NAME.xz).
Standard library otherwise (and validate.py beside it, for reading compressed files).
"""
import argparse
import csv
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from validate import exists, open_text  # noqa: E402

HIST_RE = re.compile(r"^(\w+)\s+(\w+)\s+pixels=(\d+) grid=(\d+) block=(\d+) median_ms=([\d.]+)")
KM_RE = re.compile(r"^(\w+)\s+k=(\d+) rep=(\d+) pad=(\d+) points=(\d+) grid=(\d+) block=(\d+) "
                   r"smem=(\d+) median_ms=([\d.]+)")
IMAGES = ["solid", "uniform", "natural"]
HKERNELS = ["asread_add", "rotated_add", "asread_popc", "rotated_popc"]


def read_rows(path):
    with open_text(path) as f:
        lines = [l for l in f if l.strip() and not l.startswith("#") and not l.startswith("==")]
    return list(csv.DictReader(lines))


def kernel_base(name):
    name = name[5:] if name.startswith("void ") else name
    return name.split("(")[0].strip()


def parse_lines(path, rx):
    with open_text(path) as f:
        return [m.groups() for m in (rx.match(l) for l in f) if m]


def fnum(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


def launches_for(lines, report, prefix, name_of, what):
    """Last launch of each printed line: report rows of kernels starting with prefix, in order."""
    rows = [r for r in report if kernel_base(r["kernel"]).startswith(prefix)]
    if not lines or len(rows) % len(lines):
        sys.exit("case_study.py: %s: %d launches for %d lines" % (what, len(rows), len(lines)))
    per = len(rows) // len(lines)
    out = []
    for i, l in enumerate(lines):
        r = rows[i * per + per - 1]
        if kernel_base(r["kernel"]) != name_of(l):
            sys.exit("case_study.py: %s: line %d is %s, launch is %s" % (what, i, name_of(l), r["kernel"]))
        out.append(r)
    return out


def util(r):
    v = fnum(r["util_pct"]) if r else None
    return v


def queue_rows(rd, name, prof, prefix, namef):
    """The last launch of each printed line in report NAME (a --busy queue re-import), or None
    for every line when the file is absent."""
    if not exists(os.path.join(rd, name)):
        return [None] * len(prof)
    return launches_for(prof, read_rows(os.path.join(rd, name)), prefix, namef, name)


def queue_util(r):
    """U priced at S(N) of the estimated queue length (atomutil --busy queue, the source paper's
    pricing) from such a row, in percent; None without it."""
    return util(r) if r is not None else None


def fmt(v, d=1):
    return "" if v is None else "%.*f" % (d, v)


def size_label(n):
    n = int(n)
    for unit, div in (("M", 1 << 20), ("K", 1 << 10)):
        if n >= div and n % div == 0:
            return "%d%s" % (n // div, unit)
    return str(n)


def hist(rd):
    timing = parse_lines(os.path.join(rd, "hist_time.txt"), HIST_RE)
    prof = parse_lines(os.path.join(rd, "hist_prof.txt"), HIST_RE)
    rep = read_rows(os.path.join(rd, "hprof.csv"))
    rep_fam = read_rows(os.path.join(rd, "hprof_popc_inc.csv"))
    name = lambda l: "hist_" + l[0]
    r0 = launches_for(prof, rep, "hist_", name, "hprof.csv")
    r1 = launches_for(prof, rep_fam, "hist_", name, "hprof_popc_inc.csv")
    q0 = queue_rows(rd, "hprof_queue.csv", prof, "hist_", name)
    q1 = queue_rows(rd, "hprof_popc_inc_queue.csv", prof, "hist_", name)
    t = {(k, img, int(px), int(b)): float(ms) for k, img, px, g, b, ms in timing}
    pts = []
    for l, ra, rf, qa, qf in zip(prof, r0, r1, q0, q1):
        k, img, px, g, b, _ = l
        key = (k, img, int(px), int(b))
        sm = fnum(ra["sm_count"]) or 132
        T = fnum(ra["active_cycles"])
        wave = fnum(ra["wavefronts"])
        pts.append({
            "kernel": k, "image": img, "pixels": int(px), "grid": int(g), "block": int(b),
            "time_ms": t.get(key), "u_add": util(ra), "u": util(rf) if k.endswith("popc") else util(ra),
            "u_queue": queue_util(qf if k.endswith("popc") else qa),
            "a": fnum(ra["a_passes_per_job"]), "n": fnum(ra["queue_len"]),
            "jobs_per_sm": fnum(ra["jobs_per_sm"]), "active_cycles": T,
            "proxy": 100 * wave / sm / T if wave is not None and T else None,
            "verdict": (rf if k.endswith("popc") else ra)["verdict"],
        })
    return pts


def km(rd):
    timing = parse_lines(os.path.join(rd, "km_time.txt"), KM_RE)
    prof = parse_lines(os.path.join(rd, "km_prof.txt"), KM_RE)
    rep = read_rows(os.path.join(rd, "kprof.csv"))
    rep_fam = read_rows(os.path.join(rd, "kprof_cast_spin.csv"))
    name = lambda l: l[0]
    r0 = launches_for(prof, rep, "kmeans_", name, "kprof.csv")
    r1 = launches_for(prof, rep_fam, "kmeans_", name, "kprof_cast_spin.csv")
    q1 = queue_rows(rd, "kprof_cast_spin_queue.csv", prof, "kmeans_", name)
    t = {(v, int(k), int(r), int(p)): float(ms) for v, k, r, p, n, g, b, smem, ms in timing}
    pts = []
    for l, ra, rf, qf in zip(prof, r0, r1, q1):
        v, k, r, p, n, g, b, smem, _ = l
        sm = fnum(ra["sm_count"]) or 132
        T = fnum(ra["active_cycles"])
        wave = fnum(ra["wavefronts"])
        pts.append({
            "variant": v, "k": int(k), "rep": int(r), "pad": int(p), "smem": int(smem),
            "time_ms": t.get((v, int(k), int(r), int(p))), "u_add": util(ra), "u_cast_spin": util(rf),
            # the range of U where the loops' loads were estimated (flag loop_loads_estimated)
            "u_lo": fnum(rf.get("util_pct_lo")), "u_hi": fnum(rf.get("util_pct_hi")),
            "u_queue": queue_util(qf),
            "a": fnum(ra["a_passes_per_job"]), "n": fnum(ra["queue_len"]),
            "jobs_per_sm": fnum(ra["jobs_per_sm"]),
            "cas_share": (fnum(ra["cas_jobs"]) or 0) / fnum(ra["jobs"]) if fnum(ra["jobs"]) else None,
            "active_cycles": T, "proxy": 100 * wave / sm / T if wave is not None and T else None,
        })
    return pts


def hist_tables(pts):
    tabs = {}
    sizes = sorted({p["pixels"] for p in pts})
    blocks = sorted({p["block"] for p in pts})
    big = sizes[-1]
    ref_block = 256 if 256 in blocks else blocks[0]
    idx = {(p["kernel"], p["image"], p["pixels"], p["block"]): p for p in pts}
    # main table: largest image, block 256
    out = ["%s pixels, block %d (grid %s):\n" % (size_label(big), ref_block,
                                                 idx.get((HKERNELS[0], IMAGES[0], big, ref_block), {}).get("grid", "?")),
           "| image | kernel | time ms | Gpx/s | a | N | U % | verdict | U queue % | proxy % |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for img in IMAGES:
        for k in HKERNELS:
            p = idx.get((k, img, big, ref_block))
            if not p:
                continue
            gpx = big / p["time_ms"] / 1e6 if p["time_ms"] else None
            out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                img, k, fmt(p["time_ms"], 3), fmt(gpx, 1), fmt(p["a"], 2), fmt(p["n"], 1), fmt(p["u"]),
                p["verdict"], fmt(p["u_queue"]), fmt(p["proxy"])))
    tabs["hist_main"] = "\n".join(out) + "\n\nU for the POPC kernels with `--family popc_inc`, for the ADD kernels with the default `add`.\n"
    # rotation speedup over block sizes at the largest size
    out = ["Speedup of rotation, time(as read) / time(rotated), %s pixels:\n" % size_label(big),
           "| image | op | " + " | ".join("block %d" % b for b in blocks) + " |",
           "|---|---|" + "---|" * len(blocks)]
    for img in IMAGES:
        for op in ("add", "popc"):
            cells = []
            for b in blocks:
                a, r = idx.get(("asread_" + op, img, big, b)), idx.get(("rotated_" + op, img, big, b))
                cells.append(fmt(a["time_ms"] / r["time_ms"], 2) if a and r and a["time_ms"] and r["time_ms"] else "")
            out.append("| %s | %s | %s |" % (img, op, " | ".join(cells)))
    tabs["hist_rotation"] = "\n".join(out) + "\n"
    # U over size, block 256
    out = ["U (%%) over image size, block %d:\n" % ref_block,
           "| image | kernel | " + " | ".join(size_label(s) for s in sizes) + " |",
           "|---|---|" + "---|" * len(sizes)]
    for img in IMAGES:
        for k in HKERNELS:
            out.append("| %s | %s | %s |" % (img, k, " | ".join(
                fmt(idx[(k, img, s, ref_block)]["u"], 0) if (k, img, s, ref_block) in idx else "" for s in sizes)))
    tabs["hist_size"] = "\n".join(out) + "\n"
    # time per pixel over size, block 256
    out = ["Time per pixel (ns) over image size, block %d:\n" % ref_block,
           "| image | kernel | " + " | ".join(size_label(s) for s in sizes) + " |",
           "|---|---|" + "---|" * len(sizes)]
    for img in IMAGES:
        for k in HKERNELS:
            cells = []
            for s in sizes:
                p = idx.get((k, img, s, ref_block))
                cells.append(fmt(1e6 * p["time_ms"] / s, 3 if s >= 1 << 16 else 1) if p and p["time_ms"] else "")
            out.append("| %s | %s | %s |" % (img, k, " | ".join(cells)))
    tabs["hist_time"] = "\n".join(out) + "\n"
    # block size at the largest size
    out = ["Block size at %s pixels: time ms / U %%:\n" % size_label(big),
           "| image | kernel | " + " | ".join("block %d" % b for b in blocks) + " |",
           "|---|---|" + "---|" * len(blocks)]
    for img in IMAGES:
        for k in HKERNELS:
            cells = []
            for b in blocks:
                p = idx.get((k, img, big, b))
                cells.append("%s / %s" % (fmt(p["time_ms"], 3), fmt(p["u"], 0)) if p else "")
            out.append("| %s | %s | %s |" % (img, k, " | ".join(cells)))
    tabs["hist_block"] = "\n".join(out) + "\n"
    return tabs


def km_tables(pts):
    out = ["| k | kernel | copies R | pad | shared B | time ms | speedup | a | CAS share | jobs/SM | N | U % (add) "
           "| U % (cast_spin) | its range % | U queue % (cast_spin) | proxy % |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    base = {p["k"]: p["time_ms"] for p in pts if p["rep"] == 1}
    for p in pts:
        sp = base.get(p["k"]) / p["time_ms"] if base.get(p["k"]) and p["time_ms"] else None
        rng = "%s-%s" % (fmt(p["u_lo"]), fmt(p["u_hi"])) if p["u_lo"] is not None and p["u_hi"] is not None else "exact"
        out.append("| %d | %s | %d | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            p["k"], p["variant"], p["rep"], "yes" if p["pad"] else "no", p["smem"], fmt(p["time_ms"], 3),
            fmt(sp, 2), fmt(p["a"], 2), fmt(p["cas_share"], 2), fmt(p["jobs_per_sm"], 0), fmt(p["n"], 1),
            fmt(p["u_add"]), fmt(p["u_cast_spin"]), rng, fmt(p["u_queue"]), fmt(p["proxy"])))
    return {"kmeans": "\n".join(out) + "\n"}


def plots(hp, kp, img_dir):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("case_study.py: no matplotlib, no plots", file=sys.stderr)
        return
    os.makedirs(img_dir, exist_ok=True)
    if hp:
        sizes = sorted({p["pixels"] for p in hp})
        blocks = sorted({p["block"] for p in hp})
        ref_block = 256 if 256 in blocks else blocks[0]
        idx = {(p["kernel"], p["image"], p["pixels"], p["block"]): p for p in hp}
        styles = {"asread_add": "C0-o", "rotated_add": "C0--s", "asread_popc": "C1-o", "rotated_popc": "C1--s"}
        for what, ylabel, fname in (("u", "U (%)", "case_hist_U_over_size.png"),
                                    ("ns_per_px", "time per pixel (ns)", "case_hist_time_over_size.png")):
            fig, axes = plt.subplots(1, 3, figsize=(14, 4), sharey=True)
            for ax, img in zip(axes, IMAGES):
                for k in HKERNELS:
                    xs, ys = [], []
                    for s in sizes:
                        p = idx.get((k, img, s, ref_block))
                        if not p:
                            continue
                        y = p["u"] if what == "u" else (1e6 * p["time_ms"] / s if p["time_ms"] else None)
                        if y is not None:
                            xs.append(s), ys.append(y)
                    ax.plot(xs, ys, styles[k], label=k, ms=4)
                ax.set_xscale("log", base=2)
                if what != "u":
                    ax.set_yscale("log")
                else:
                    ax.axhline(80, color="grey", lw=0.6, ls=":")
                    ax.axhline(40, color="grey", lw=0.6, ls=":")
                ax.set_title("%s image, block %d" % (img, ref_block))
                ax.set_xlabel("pixels")
                ax.grid(alpha=0.3)
            axes[0].set_ylabel(ylabel)
            axes[0].legend(fontsize=8)
            fig.tight_layout()
            fig.savefig(os.path.join(img_dir, fname), dpi=110)
            plt.close(fig)
        fig, axes = plt.subplots(1, 3, figsize=(14, 4), sharey=True)
        for ax, img in zip(axes, IMAGES):
            for op, col in (("add", "C0"), ("popc", "C1")):
                for b, ls in ((ref_block, "-"), (blocks[0], ":"), (blocks[-1], "--")):
                    xs, ys = [], []
                    for s in sizes:
                        a, r = idx.get(("asread_" + op, img, s, b)), idx.get(("rotated_" + op, img, s, b))
                        if a and r and a["time_ms"] and r["time_ms"]:
                            xs.append(s), ys.append(a["time_ms"] / r["time_ms"])
                    ax.plot(xs, ys, col + ls, label="%s, block %d" % (op, b))
            ax.axhline(1, color="k", lw=0.6)
            ax.set_xscale("log", base=2)
            ax.set_title("%s image" % img)
            ax.set_xlabel("pixels")
            ax.grid(alpha=0.3)
        axes[0].set_ylabel("speedup of rotation (as read / rotated)")
        axes[0].legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(os.path.join(img_dir, "case_hist_rotation_speedup.png"), dpi=110)
        plt.close(fig)
    if kp:
        ks = sorted({p["k"] for p in kp})
        fig, axes = plt.subplots(2, len(ks), figsize=(4.6 * len(ks), 6.5))
        if len(ks) == 1:
            axes = [[axes[0]], [axes[1]]]
        for j, k in enumerate(ks):
            rows = [p for p in kp if p["k"] == k]
            labels = ["R%d%s" % (p["rep"], "p" if p["pad"] else "") for p in rows]
            x = range(len(rows))
            axes[0][j].bar(x, [p["time_ms"] or 0 for p in rows], color=["C2" if p["pad"] else "C0" for p in rows])
            axes[0][j].set_title("k = %d" % k)
            axes[0][j].set_ylabel("time (ms)")
            axes[1][j].plot(x, [p["u_cast_spin"] for p in rows], "C3-o", label="U, --family cast_spin")
            # its range where the CAS loops' loads were estimated
            lo = [p["u_lo"] if p.get("u_lo") is not None else p["u_cast_spin"] for p in rows]
            hi = [p["u_hi"] if p.get("u_hi") is not None else p["u_cast_spin"] for p in rows]
            axes[1][j].fill_between(x, lo, hi, color="C3", alpha=0.15, label="its range")
            axes[1][j].plot(x, [p["u_add"] for p in rows], "C0-s", label="U, default family add")
            axes[1][j].plot(x, [p["proxy"] for p in rows], "k:^", label="proxy")
            axes[1][j].set_ylabel("%")
            for ax in (axes[0][j], axes[1][j]):
                ax.set_xticks(list(x))
                ax.set_xticklabels(labels, rotation=60, fontsize=7)
                ax.grid(alpha=0.3)
        axes[1][0].legend(fontsize=7)
        fig.suptitle("k-means centroid update: R copies (p = padded)")
        fig.tight_layout()
        fig.savefig(os.path.join(img_dir, "case_kmeans.png"), dpi=110)
        plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("result_dir")
    ap.add_argument("--doc")
    ap.add_argument("--tag", default="")
    ap.add_argument("--img")
    args = ap.parse_args()
    rd = args.result_dir
    tabs, hp, kp = {}, [], []
    if exists(os.path.join(rd, "hprof.csv")):
        hp = hist(rd)
        tabs.update(hist_tables(hp))
    if exists(os.path.join(rd, "kprof.csv")):
        kp = km(rd)
        tabs.update(km_tables(kp))
    with open(os.path.join(rd, "case_points.csv"), "w", newline="") as f:
        w = csv.writer(f)
        for rows in (hp, kp):
            if rows:
                cols = list(rows[0].keys())
                w.writerow(cols)
                for r in rows:
                    w.writerow([("%.4f" % r[c]) if isinstance(r[c], float) else r[c] for c in cols])
    text = "".join("### %s\n\n%s\n" % (k, v) for k, v in tabs.items())
    with open(os.path.join(rd, "case_tables.md"), "w") as f:
        f.write(text)
    print(text)
    if args.doc:
        with open(args.doc) as f:
            doc = f.read()
        for k, v in tabs.items():
            name = k + (" " + args.tag if args.tag else "")
            b, e = "<!-- case_study.py %s begin -->" % name, "<!-- case_study.py %s end -->" % name
            if b in doc and e in doc:
                doc = doc[:doc.index(b) + len(b)] + "\n" + v + doc[doc.index(e):]
        with open(args.doc, "w") as f:
            f.write(doc)
    if args.img:
        plots(hp, kp, args.img)


if __name__ == "__main__":
    main()
