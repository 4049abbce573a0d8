#!/usr/bin/env python3
"""Accuracy of atomutil-profile --opcodes against ground truth (docs/opcodes.md, docs/validation.md).

Joins, in RESULT_DIR (made by validation/validation_all.sh, step vop):
  vtime.csv        validation --mode time: U_true per point
  vop_points.csv   validation --mode profile: which launch is which point and role
  vop.csv          atomutil-profile --csv report of that profile run: util_pct (priced by the opcodes
                   of each kernel's code, the default) and util_pct_by_family (the same counters
                   priced as family 'add', what --no-opcodes reports)
and prints, per class of points and overall, the mean / maximum absolute error of U (percentage
points) of both pricings and of the proxy (shared-atomic wavefronts per active cycle, as in
validate.py) for the full kernels, the saturated launches (atomics-only kernels, U_true = 1) in
95-105 %, and the classes atomutil found per kernel.  With --doc FILE, replaces the
text between '<!-- validate_opcodes.py begin -->' and '<!-- validate_opcodes.py end -->' of FILE.
usage: validate_opcodes.py RESULT_DIR [--doc FILE]
"""
import argparse
import csv
import gzip
import lzma
import os
import statistics
import sys


def rows(path):
    if not os.path.exists(path) and os.path.exists(path + ".gz"):
        f = gzip.open(path + ".gz", "rt", newline="")
    elif not os.path.exists(path) and os.path.exists(path + ".xz"):
        f = lzma.open(path + ".xz", "rt", newline="")
    else:
        f = open(path, newline="")
    with f:
        lines = [l for l in f if l.strip() and not l.startswith("#") and not l.startswith("==")]
    return list(csv.DictReader(lines))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--doc")
    a = ap.parse_args()
    truth = {r["idx"]: r for r in rows(os.path.join(a.dir, "vtime.csv"))}
    points = rows(os.path.join(a.dir, "vop_points.csv"))
    # the vk_ launches of the report, in order, are the points' launches (as in validate.py)
    vk = [r for r in rows(os.path.join(a.dir, "vop.csv")) if r["kernel"].removeprefix("void ").startswith("vk_")]
    if len(vk) != len(points):
        sys.exit(f"validate_opcodes.py: vop.csv has {len(vk)} vk_ launches, the point list {len(points)}")
    recs = []
    for p, r in zip(points, vk):
        if r["kernel"].removeprefix("void ").split("(")[0] != p["kernel"]:
            sys.exit(f"validate_opcodes.py: launch {p['seq']} is {r['kernel']}, the points file says {p['kernel']}")
        if p["role"] == "warm":
            continue
        t = truth[p["idx"]]
        u_true = float(t["u_true"]) if p["role"] == "full" else 1.0
        recs.append({"name": t["name"], "class": t["class"], "role": p["role"], "kernel": p["kernel"],
                     "classes": r["opcode_classes"], "u_true": u_true,
                     "opcodes": float(r["util_pct"]) / 100, "add": float(r["util_pct_by_family"]) / 100,
                     "proxy": float(r["wavefronts"]) / float(r["sm_count"]) / float(r["active_cycles"]),
                     "flags": r["flags"]})
    out = []
    classes = []
    for r in recs:
        if r["class"] not in classes:
            classes.append(r["class"])
    out.append("Mean / maximum absolute error of U against U_true (full kernels), percentage points:\n")
    out.append("| class | points | proxy | --no-opcodes (family add) | default (--opcodes) | classes found |")
    out.append("|---|---|---|---|---|---|")

    def err(rs, key):
        e = [abs(r[key] - r["u_true"]) * 100 for r in rs]
        return f"{statistics.mean(e):.1f} / {max(e):.1f}" if e else "-"

    full = [r for r in recs if r["role"] == "full"]
    for c in classes + ["**all**"]:
        rs = full if c == "**all**" else [r for r in full if r["class"] == c]
        found = sorted(set(r["classes"] for r in rs)) if c != "**all**" else []
        out.append(f"| {c} | {len(rs)} | {err(rs, 'proxy')} | {err(rs, 'add')} | {err(rs, 'opcodes')} | "
                   f"{'; '.join(found)} |")
    atom = [r for r in recs if r["role"] == "atom"]
    out.append("")
    for key, label in (("add", "--no-opcodes (family add)"), ("opcodes", "default (--opcodes)")):
        u = [100 * r[key] for r in atom]
        inside = sum(95 <= x <= 105 for x in u)
        out.append(f"- saturated launches, {label}: min / median / max {min(u):.1f} / {statistics.median(u):.1f} / "
                   f"{max(u):.1f} %, {inside} of {len(u)} in 95-105 %")
    mae = {k: statistics.mean(abs(r[k] - r["u_true"]) * 100 for r in full) for k in ("add", "opcodes", "proxy")}
    flags = sorted(set(f for r in recs for f in r["flags"].split(",") if f))
    out.append(f"- flags seen: {', '.join(flags)}")
    out.append(f"- MAE over all {len(full)} points: --no-opcodes (family add) {mae['add']:.1f}, default (--opcodes) "
               f"{mae['opcodes']:.1f}; goals (docs/validation.md): <= 5 and <= half the proxy's "
               f"({mae['proxy']:.1f} / 2 = {mae['proxy'] / 2:.1f}): "
               f"{'met' if mae['opcodes'] <= min(5, mae['proxy'] / 2) else 'NOT met'} by the default")
    text = "\n".join(out) + "\n"
    print(text)
    if a.doc:
        doc = open(a.doc).read()
        b, e = "<!-- validate_opcodes.py begin -->", "<!-- validate_opcodes.py end -->"
        i, j = doc.index(b) + len(b), doc.index(e)
        open(a.doc, "w").write(doc[:i] + "\n" + text + doc[j:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
