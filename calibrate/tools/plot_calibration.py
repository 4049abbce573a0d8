#!/usr/bin/env python3
"""plot_calibration.py - plots of an atomutil service-time table (format v1).

Draws S over n and over a at c = 0 (each family) and c = n (all CAS), S over the CAS share for
`add`, and, when given, burst against steady and every operation against `add`.  The figures of
docs/calibration.md are made with:

  python3 calibrate/tools/plot_calibration.py tables/nvidia-h200.csv --out docs/img \
      --burst burst.csv --ops all-families.csv

Needs matplotlib (not numpy).  load_table() is shared with calibrate/tools/analyze.py.
"""
import argparse
import os
import sys


def load_table(path):
    """Returns (meta dict, rows dict {(family, n, a, c): (S, min, max, mad)})."""
    meta, rows = {}, {}
    with open(path) as f:
        header = None
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            if line.startswith("#"):
                if ":" in line:
                    k, v = line[1:].split(":", 1)
                    meta[k.strip()] = v.strip()
                continue
            if header is None:
                header = line.split(",")
                continue
            p = line.split(",")
            rows[(p[0], int(p[1]), int(p[2]), int(p[3]))] = tuple(float(x) for x in p[4:8])
    return meta, rows


def families(rows):
    seen = []
    for k in rows:
        if k[0] not in seen:
            seen.append(k[0])
    return sorted(seen, key=lambda f: (f != "add", f))


def series(rows, fam, ns=None, a=None, c=None, cfun=None):
    """S along n for fixed a (c fixed, or cfun(n))."""
    xs, ys = [], []
    for n in ns:
        cc = cfun(n) if cfun else c
        v = rows.get((fam, n, a, cc))
        if v:
            xs.append(n)
            ys.append(v[0])
    return xs, ys


def grid_n(rows, fam):
    return sorted({k[1] for k in rows if k[0] == fam})


def grid_a(rows, fam):
    return sorted({k[2] for k in rows if k[0] == fam})


A_SHOW = [1, 2, 4, 8, 16, 32]
N_SHOW = [1, 2, 4, 8, 16, 32, 48, 64]


def subplots(plt, count, title):
    cols = min(3, count)
    rows = (count + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.6 * cols, 3.4 * rows), squeeze=False)
    fig.suptitle(title)
    flat = [ax for r in axes for ax in r]
    for ax in flat[count:]:
        ax.axis("off")
    return fig, flat


def plot_over_n(plt, meta, rows, out, cas):
    fams = ["add"] if cas else families(rows)
    what = "c = n (all ATOMS.CAS)" if cas else "c = 0"
    fig, axes = subplots(plt, len(fams), f"S over n at {what}, {meta.get('gpu_name', '')}, "
                                         f"{meta.get('method', '')}")
    for ax, fam in zip(axes, fams):
        ns = grid_n(rows, fam)
        for a in A_SHOW:
            xs, ys = series(rows, fam, ns, a, cfun=(lambda n: n) if cas else (lambda n: 0))
            if xs:
                ax.plot(xs, ys, label=f"a={a}")
        ax.set_yscale("log")
        ax.set_xlabel("n (warp-instructions queued)")
        ax.set_ylabel("S (cycles per job)")
        ax.set_title("ATOMS.CAS (32-bit)" if cas else fam)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    name = "S_over_n_c_eq_n.png" if cas else "S_over_n_c0.png"
    fig.savefig(os.path.join(out, name), dpi=90)
    plt.close(fig)
    return name


def plot_over_a(plt, meta, rows, out):
    fams = families(rows)
    fig, axes = subplots(plt, len(fams) + 1, f"S over a, {meta.get('gpu_name', '')}, "
                                             f"{meta.get('method', '')}")
    panels = [(f, False) for f in fams] + [("add", True)]
    for ax, (fam, cas) in zip(axes, panels):
        avals = grid_a(rows, fam)
        for n in N_SHOW:
            ys = [rows.get((fam, n, a, n if cas else 0), (None,))[0] for a in avals]
            pts = [(a, y) for a, y in zip(avals, ys) if y is not None]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], label=f"n={n}")
        ax.set_yscale("log")
        ax.set_xlabel("a (serialized wavefronts per job)")
        ax.set_ylabel("S (cycles per job)")
        ax.set_title("c = n: ATOMS.CAS (32-bit)" if cas else f"{fam}, c = 0")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "S_over_a.png"), dpi=90)
    plt.close(fig)
    return "S_over_a.png"


def plot_over_c(plt, meta, rows, out):
    fig, axes = subplots(plt, 3, f"add: S over the CAS share c/n, {meta.get('gpu_name', '')}")
    for ax, a in zip(axes, [1, 8, 32]):
        for n in [4, 8, 16, 32, 64]:
            cs = sorted(k[3] for k in rows if k[0] == "add" and k[1] == n and k[2] == a)
            if cs:
                ax.plot([c / n for c in cs], [rows[("add", n, a, c)][0] for c in cs], label=f"n={n}")
        ax.set_xlabel("c / n")
        ax.set_ylabel("S (cycles per job)")
        ax.set_title(f"a = {a}")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "S_over_c_add.png"), dpi=90)
    plt.close(fig)
    return "S_over_c_add.png"


def plot_burst(plt, meta, rows, burst_rows, out):
    fig, axes = subplots(plt, 3, f"add, c = 0: burst (one job per warp) vs steady, "
                                 f"{meta.get('gpu_name', '')}")
    for ax, a in zip(axes, [1, 8, 32]):
        for label, r, style in [("steady", rows, "-"), ("burst", burst_rows, "--")]:
            xs, ys = series(r, "add", grid_n(r, "add"), a, c=0)
            ax.plot(xs, ys, style, label=label)
        ax.set_yscale("log")
        ax.set_xlabel("n")
        ax.set_ylabel("S (cycles per job)")
        ax.set_title(f"a = {a}")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "burst_vs_steady.png"), dpi=90)
    plt.close(fig)
    return "burst_vs_steady.png"


def plot_ops(plt, ops_rows, out):
    fams = [f for f in families(ops_rows) if f != "add"]
    fig, axes = subplots(plt, len(fams), "S(op) / S(add) at c = 0, equal n and a")
    for ax, fam in zip(axes, fams):
        for a in [1, 8, 32]:
            xs, ys = [], []
            for n in grid_n(ops_rows, fam):
                x, y = ops_rows.get((fam, n, a, 0)), ops_rows.get(("add", n, a, 0))
                if x and y:
                    xs.append(n)
                    ys.append(x[0] / y[0])
            ax.plot(xs, ys, label=f"a={a}")
        ax.axhline(1.0, color="k", lw=0.6)
        ax.set_xlabel("n")
        ax.set_ylabel("S / S(add)")
        ax.set_title(fam)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "ops_vs_add.png"), dpi=90)
    plt.close(fig)
    return "ops_vs_add.png"


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("table", help="steady table (format v1)")
    ap.add_argument("--out", default="docs/img", help="output folder (default: docs/img)")
    ap.add_argument("--burst", help="burst table of family add, for the burst-vs-steady plot")
    ap.add_argument("--ops", help="table with all families (--families all), for ops_vs_add")
    args = ap.parse_args(argv)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(args.out, exist_ok=True)
    meta, rows = load_table(args.table)
    made = [plot_over_n(plt, meta, rows, args.out, False), plot_over_n(plt, meta, rows, args.out, True),
            plot_over_a(plt, meta, rows, args.out), plot_over_c(plt, meta, rows, args.out)]
    if args.burst:
        made.append(plot_burst(plt, meta, rows, load_table(args.burst)[1], args.out))
    if args.ops:
        made.append(plot_ops(plt, load_table(args.ops)[1], args.out))
    for m in made:
        print(os.path.join(args.out, m))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
