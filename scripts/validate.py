#!/usr/bin/env python3
"""Accuracy of atomutil's utilization against ground truth (docs/validation.md, issues 6 and 11).

usage: validate.py RESULT_DIR [--profile PATH] [--table FILE] [--doc FILE [--tag TAG]] [--img DIR]

Reads, in RESULT_DIR (scripts/validation_all.sh makes them):
  vtime.csv          validation --mode time: per point U_true, the atomics-only reference's cycles
                     per job (atom_cycles_per_job) and the unit_bound case of its jobs (ub_case)
  vop_points.csv     validation --mode profile: which launch of the profile run is which point/role
  vop.counters.csv   the raw counters of that profile run (atomutil-profile -o vop), with the
                     kernels' code in vop.cubins/ next to it
  unit_bound.csv     calibrate/tools/unit_bound: cycles per job of each case at the unit's rate
The report is made again from the raw counters, with the current model and tables:
  atomutil-profile --import RESULT_DIR/vop.counters.csv --opcodes --csv -q [--table FILE]
(--profile PATH, default build/bin/atomutil-profile of this repository), joined with the launch
list (in order, kernel names checked) and vtime.csv (by idx), and unit_bound.csv (by ub_case).

Per point: U_true from vtime.csv and U = util_pct / 100 of the full kernel's row; the atomics-only
launch is the saturated one (U_true = 1), which holds only if that reference launch is bound by
the unit.  Two measurements can show it:
  wavefronts  the reference's shared-memory wavefronts of every kind per active cycle of an SM
              (its counters: shared_wavefronts / sm_count / active_cycles, or the atomic
              wavefronts where the export lacks the former): the unit serves about one wavefront
              per cycle at saturation, for every operation (calibrate/tools/unit_bound.cu), so
              0.95 or more is a saturated unit;
  unit_bound  unit_bound's cycles per job of the same jobs / the reference's (from its clocks):
              1 = as fast as a kernel of nothing but those jobs; this proves a non-loop
              operation whose wavefronts cost more than a cycle (64-bit operations of few lanes).
A reference passes with wavefronts >= 0.95, or (not a CAS loop) unit_bound >= 0.95.  The
others are left out of every figure and listed with both numbers: CAS loops whose attempts wait
for each other (all lanes on one word, 64-bit) cannot keep the unit busy with 64 warps, so their
ground truth is unknown.  A point's family is the report's pricing family (opcode_classes, the
class of largest share).

Prints markdown tables (per family, lane pattern and work level, the proxy estimator, excluded
points, largest errors), writes them to RESULT_DIR/validation_tables.md and the per-point figures
to RESULT_DIR/validation_points.csv, and ends with exactly one line
  summary: points P families F MAE X max Y saturated K/N
P full-kernel points counted, F distinct families among them, X and Y the mean and largest
|U - U_true| in percentage points, K of the N counted atomics-only launches with U in 95-105 %.
With --doc FILE, the text between '<!-- validate.py TAG begin -->' and '<!-- validate.py TAG end -->'
(without TAG: '<!-- validate.py begin -->' ...) of FILE is replaced by the tables and the summary;
with --img DIR, validation_*.png go there (needs matplotlib).  Input files may be gzip-compressed
(NAME.gz).  Standard library only (matplotlib for the plots).
"""
import argparse
import csv
import gzip
import io
import os
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile

MARK = "<!-- validate.py%s %s -->"  # tag, begin|end
BOUND_MIN = 0.95  # a reference below this wavefront rate (and unit-bound ratio) is excluded
SAT_LO, SAT_HI = 95.0, 105.0
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LEVELS = {0: "family: L = 0 (no work)", 1: "family: level 1 (~70 % intended)",
          2: "family: level 2 (~40 % intended)", 3: "family: level 3 (~15 % intended)"}


def die(msg):
    print("validate.py: %s" % msg, file=sys.stderr)
    sys.exit(1)


# ------------------------------------------------------------------ reading


def exists(path):
    return os.path.exists(path) or os.path.exists(path + ".gz")


def open_text(path):
    """The file, or its gzip-compressed copy PATH.gz (docs/results keeps large files compressed)."""
    if not os.path.exists(path) and os.path.exists(path + ".gz"):
        return gzip.open(path + ".gz", "rt", newline="")
    return open(path, newline="")


def need(rd, name, what):
    path = os.path.join(rd, name)
    if not exists(path):
        die("missing %s (%s)" % (path, what))
    return path


def rows_of(lines):
    """CSV rows as dicts, skipping '#' comment lines and ==PROF==/==ATOMUTIL== lines."""
    return list(csv.DictReader([l for l in lines if l.strip() and not l.startswith("#") and not l.startswith("==")]))


def read_rows(path, required=()):
    with open_text(path) as f:
        rows = rows_of(f)
    for col in required:
        if rows and col not in rows[0]:
            die("%s has no column '%s'" % (path, col))
    return rows


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


def fnum(x):
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if v == v else None  # NaN: absent


def top_family(classes, fallback):
    """The family of largest share in opcode_classes ("cast_spin 98%, popc_inc 2%"); ties: the
    first listed.  Empty (no opcodes): the report's --family."""
    best, share = None, -1.0
    for item in classes.split(","):
        m = re.match(r"\s*([a-z][a-z0-9_]*)\s+([0-9.]+)\s*%\s*$", item)
        if m and float(m.group(2)) > share:
            best, share = m.group(1), float(m.group(2))
    return best if best else (fallback or "?")


# ------------------------------------------------------------------ the report, remade


def remake_report(rd, profile, table):
    """Rows of `atomutil-profile --import RD/vop.counters.csv --opcodes --csv -q`.  The results
    directory may hold the counters compressed (vop.counters.csv.gz) and the kernels' listings as
    one archive (vop.cubins.tar.gz, as docs/results keeps them); they are unpacked to a temporary
    directory first."""
    counters = os.path.join(rd, "vop.counters.csv")
    cubins = os.path.join(rd, "vop.cubins")
    archive = cubins + ".tar.gz"
    if not exists(counters):
        die("missing %s (the raw counters of the profile run, step vop of validation_all.sh)" % counters)
    have_dir = os.path.isdir(cubins) and any(n.endswith((".sass", ".cubin")) for n in os.listdir(cubins))
    if not have_dir and not os.path.isfile(archive):
        die("missing %s/ or %s (the kernels' code of the profile run: *.sass or *.cubin)" % (cubins, archive))
    if not (os.path.isfile(profile) and os.access(profile, os.X_OK)):
        die("atomutil-profile not found at %s (build it, or pass --profile PATH)" % profile)
    if table and not os.path.isfile(table):
        die("missing table %s (--table)" % table)
    tmp = None
    try:
        if not os.path.exists(counters) or not have_dir:
            # the importer needs the file itself, with BASE.cubins/ beside it
            tmp = tempfile.mkdtemp(prefix="validate-")
            dst = os.path.join(tmp, "vop.counters.csv")
            if os.path.exists(counters):
                shutil.copyfile(counters, dst)
            else:
                with gzip.open(counters + ".gz", "rb") as fi, open(dst, "wb") as fo:
                    shutil.copyfileobj(fi, fo)
            if have_dir:
                os.symlink(os.path.abspath(cubins), os.path.join(tmp, "vop.cubins"))
            else:
                with tarfile.open(archive, "r:gz") as tf:
                    members = [m for m in tf.getmembers() if m.isfile() and
                               os.path.dirname(m.name).rstrip("/") in ("vop.cubins", "./vop.cubins")]
                    if not members:
                        die("%s holds no vop.cubins/ files" % archive)
                    tf.extractall(tmp, members=members)
            counters = dst
        cmd = [profile, "--import", counters, "--opcodes", "--csv", "-q"] + (["--table", table] if table else [])
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    if r.returncode != 0:
        err = (r.stderr.strip().splitlines() or ["no message"])[0]
        die("%s failed (exit %d): %s" % (" ".join(cmd), r.returncode, err))
    rows = rows_of(io.StringIO(r.stdout))
    for col in ("kernel", "util_pct", "opcode_classes", "family", "wavefronts", "sm_count", "active_cycles"):
        if not rows or col not in rows[0]:
            die("the report of %s has no column '%s'" % (counters, col))
    return rows


def align(points, rows):
    """The report's vk_ launches, in order, are the launch list's (kernel names checked)."""
    vk = [r for r in rows if kernel_base(r["kernel"]).startswith("vk_")]
    if len(vk) != len(points):
        die("the report of vop.counters.csv has %d vk_ launches, vop_points.csv %d" % (len(vk), len(points)))
    for p, r in zip(points, vk):
        if kernel_base(r["kernel"]) != p["kernel"]:
            die("launch %s of vop_points.csv is %s, the report's is %s" % (p["seq"], p["kernel"], r["kernel"]))
    return vk


# ------------------------------------------------------------------ figures


def pct(x):
    return None if x is None else 100.0 * x


def fmt(v, digits=1):
    return "-" if v is None else "%.*f" % (digits, v)


def err_stats(rs, key="u"):
    e = [abs(r[key] - r["u_true"]) * 100 for r in rs if r.get(key) is not None]
    return (sum(e) / len(e), max(e)) if e else (None, None)


def sat_cells(rs, key="u_atom"):
    v = [100 * r[key] for r in rs if r.get(key) is not None]
    if not v:
        return "-", "-"
    inside = sum(1 for x in v if SAT_LO <= x <= SAT_HI)
    return "%.1f / %.1f / %.1f" % (min(v), statistics.median(v), max(v)), "%d of %d" % (inside, len(v))


def urange(rs):
    u = [100 * r["u_true"] for r in rs]
    return "%.0f-%.0f %%" % (min(u), max(u)) if u else "-"


def group(rs, key):
    out = {}
    for r in rs:
        out.setdefault(r[key], []).append(r)
    return out


def pattern_label(t):
    ub = t.get("ub_case") or ""
    if "/" in ub:
        return ub.split("/", 1)[1]
    pat, d = t.get("pattern", ""), t.get("d", "")
    if pat == "same_addr":
        return "word"
    if pat == "same_bank":
        return "distinct" if d == "1" else "bank%s" % d
    return pat or "?"


def level_label(t):
    lv = (t.get("level") or "").strip()
    if lv.isdigit() and int(lv) in LEVELS:
        return LEVELS[int(lv)]
    if (fnum(t.get("alu")) or 0) == 0 and (fnum(t.get("loads")) or 0) == 0:
        return "other classes: no work"
    return "other classes: with work"


# ------------------------------------------------------------------ main


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("result_dir")
    ap.add_argument("--profile", default=os.path.join(REPO, "build", "bin", "atomutil-profile"),
                    help="atomutil-profile to remake the report with (default: build/bin/atomutil-profile)")
    ap.add_argument("--table", help="service-time table for atomutil-profile (default: the one it picks)")
    ap.add_argument("--doc")
    ap.add_argument("--tag", default="")
    ap.add_argument("--img")
    args = ap.parse_args()
    rd = args.result_dir
    if not os.path.isdir(rd):
        die("no directory %s" % rd)

    vt_path = need(rd, "vtime.csv", "validation --mode time")
    pl_path = need(rd, "vop_points.csv", "validation --mode profile's launch list, step vop")
    ub_path = need(rd, "unit_bound.csv", "unit_bound's cycles per job, step unit_bound")
    vtime = {}
    for r in read_rows(vt_path, ("idx", "name", "class", "u_true", "atom_cycles_per_job", "ub_case")):
        vtime[r["idx"]] = r
    meta = header_meta(vt_path)
    plist = read_rows(pl_path, ("seq", "idx", "role", "kernel"))
    ub = {}
    for r in read_rows(ub_path, ("case", "cycles_per_job")):
        ub[r["case"]] = fnum(r["cycles_per_job"])
    ub_meta = header_meta(ub_path)
    if meta.get("gpu") and ub_meta.get("gpu") and meta["gpu"] != ub_meta["gpu"]:
        die("vtime.csv was measured on %s, unit_bound.csv on %s" % (meta["gpu"], ub_meta["gpu"]))
    report = remake_report(rd, args.profile, args.table)
    rows = align(plist, report)

    # one record per point: its full kernel's row and its atomics-only kernel's row
    recs = {}
    for p, r in zip(plist, rows):
        if p["role"] == "warm":
            continue
        t = vtime.get(p["idx"])
        if t is None:
            die("vop_points.csv names point %s, which vtime.csv lacks" % p["idx"])
        u = fnum(r["util_pct"])
        if u is None:
            die("launch %s (%s, point %s) has no util_pct in the report (flags: %s)"
                % (p["seq"], p["kernel"], t["name"], r.get("flags", "")))
        sm, wave, T = fnum(r["sm_count"]), fnum(r["wavefronts"]), fnum(r["active_cycles"])
        proxy = wave / sm / T if wave is not None and sm and T else None
        # every shared wavefront (the loads of CAS loops too) per active cycle
        allw = fnum(r.get("shared_wavefronts")) or wave
        wfc = allw / sm / T if allw is not None and sm and T else None
        rec = recs.setdefault(p["idx"], {"idx": int(p["idx"]), "name": t["name"], "class": t["class"],
                                         "op": t.get("op", ""), "pattern": pattern_label(t),
                                         "level": level_label(t), "alu": t.get("alu", ""),
                                         "u_true": fnum(t["u_true"]), "ub_case": t.get("ub_case", ""),
                                         "atom_cpj": fnum(t.get("atom_cycles_per_job"))})
        if rec["u_true"] is None:
            die("vtime.csv: point %s has no u_true" % t["name"])
        if p["role"] == "full":
            rec.update(u=u / 100, proxy=proxy, classes=r["opcode_classes"],
                       family=top_family(r["opcode_classes"], r["family"]), flags=r.get("flags", ""))
        elif p["role"] == "atom":
            rec.update(u_atom=u / 100, proxy_atom=proxy, wfc_atom=wfc, classes_atom=r["opcode_classes"])
        else:
            die("vop_points.csv: unknown role '%s'" % p["role"])
    recs = [recs[k] for k in sorted(recs, key=lambda k: int(k))]
    for r in recs:
        if "u" not in r or "u_atom" not in r:
            die("point %s lacks its full or its atomics-only launch in vop_points.csv" % r["name"])
        r["err"] = abs(r["u"] - r["u_true"]) * 100
        # boundness of the reference: its wavefronts per active cycle, and unit_bound's cycles per
        # job / the reference's (see the module's doc)
        r["ub_cpj"], r["bound"] = None, None
        if r["ub_case"]:
            if r["ub_case"] not in ub:
                die("unit_bound.csv has no case %s (point %s)" % (r["ub_case"], r["name"]))
            r["ub_cpj"] = ub[r["ub_case"]]
            if r["ub_cpj"] and r["atom_cpj"]:
                r["bound"] = r["ub_cpj"] / r["atom_cpj"]
        r["wfc"] = r.get("wfc_atom")
        loop = r.get("family", "").startswith("cast_spin")
        by_wf = r["wfc"] is not None and r["wfc"] >= BOUND_MIN
        by_ub = not loop and r["bound"] is not None and r["bound"] >= BOUND_MIN
        r["excluded"] = not (by_wf or by_ub)

    counted = [r for r in recs if not r["excluded"]]
    excluded = [r for r in recs if r["excluded"]]
    if not counted:
        die("no point left to count (%d points, all excluded)" % len(recs))
    gpu = report[0].get("device", "") or meta.get("gpu", "?")
    table = report[0].get("table", "")
    if table.startswith(REPO + os.sep):
        table = os.path.relpath(table, REPO)

    out = []
    out.append("GPU: %s (%s SMs), table `%s`, %d points (%d counted, %d excluded: reference not shown to be "
               "bound by the unit), %s timed launches per kernel (medians); U from the report remade from "
               "vop.counters.csv with the default pricing (each kernel's opcodes).\n"
               % (gpu, report[0].get("sm_count", "?"), table, len(recs), len(counted), len(excluded),
                  meta.get("reps", "?")))

    # ---- per family
    out.append("Per family (the report's pricing family of the full kernel), full kernels: mean / largest "
               "|U - U_true| in points; saturated = the atomics-only launches (U_true = 1), U in %; "
               "boundness = unit_bound's cycles per job / the reference's:\n")
    out.append("| family | points | U_true range | MAE | max | saturated min / median / max | in 95-105 % "
               "| boundness min | excluded |")
    out.append("|---|---|---|---|---|---|---|---|---|")
    by_fam = group(counted, "family")
    ex_fam = group(excluded, "family")
    for fam in sorted(set(by_fam) | set(ex_fam)):
        rs = by_fam.get(fam, [])
        mae, mx = err_stats(rs)
        s3, sin = sat_cells(rs)
        b = [r["bound"] for r in rs if r["bound"] is not None]
        out.append("| %s | %d | %s | %s | %s | %s | %s | %s | %d |" % (
            fam, len(rs), urange(rs), fmt(mae), fmt(mx), s3, sin, fmt(min(b), 2) if b else "-",
            len(ex_fam.get(fam, []))))
    mae, mx = err_stats(counted)
    s3, sin = sat_cells(counted)
    b = [r["bound"] for r in counted if r["bound"] is not None]
    out.append("| **all** | %d | %s | %s | %s | %s | %s | %s | %d |" % (
        len(counted), urange(counted), fmt(mae), fmt(mx), s3, sin, fmt(min(b), 2) if b else "-", len(excluded)))
    out.append("")

    # ---- per lane pattern
    out.append("Per lane pattern (unit_bound's names; d lanes per bank = bankD):\n")
    out.append("| pattern | points | U_true range | MAE | max | saturated in 95-105 % |")
    out.append("|---|---|---|---|---|---|")
    for pat, rs in sorted(group(counted, "pattern").items()):
        mae, mx = err_stats(rs)
        out.append("| %s | %d | %s | %s | %s | %s |" % (pat, len(rs), urange(rs), fmt(mae), fmt(mx), sat_cells(rs)[1]))
    out.append("")

    # ---- per work level
    out.append("Per work level (family class: L chosen per operation and pattern for the intended U_true):\n")
    out.append("| work level | points | L range | U_true range | MAE | max |")
    out.append("|---|---|---|---|---|---|")
    order = list(LEVELS.values()) + ["other classes: no work", "other classes: with work"]
    levels = group(counted, "level")
    for lv in order:
        rs = levels.get(lv)
        if not rs:
            continue
        L = [int(fnum(r["alu"]) or 0) for r in rs]
        mae, mx = err_stats(rs)
        out.append("| %s | %d | %d-%d | %s | %s | %s |" % (lv, len(rs), min(L), max(L), urange(rs), fmt(mae), fmt(mx)))
    out.append("")

    # ---- the proxy
    out.append("For comparison, the proxy estimator (shared-atomic wavefronts per active cycle per SM, from the "
               "counters: wavefronts / sm_count / active_cycles), same points:\n")
    out.append("| family | points | proxy MAE / max | atomutil MAE / max | saturated proxy min / median / max "
               "| proxy in 95-105 % | atomutil in 95-105 % |")
    out.append("|---|---|---|---|---|---|---|")
    for fam in sorted(by_fam):
        rs = by_fam[fam]
        pm, px = err_stats(rs, "proxy")
        am, ax = err_stats(rs)
        ps3, psin = sat_cells(rs, "proxy_atom")
        out.append("| %s | %d | %s / %s | %s / %s | %s | %s | %s |" % (
            fam, len(rs), fmt(pm), fmt(px), fmt(am), fmt(ax), ps3, psin, sat_cells(rs)[1]))
    pm, px = err_stats(counted, "proxy")
    am, ax = err_stats(counted)
    ps3, psin = sat_cells(counted, "proxy_atom")
    out.append("| **all** | %d | %s / %s | %s / %s | %s | %s | %s |" % (
        len(counted), fmt(pm), fmt(px), fmt(am), fmt(ax), ps3, psin, sat_cells(counted)[1]))
    out.append("")

    # ---- boundness and excluded points
    wv = [r["wfc"] for r in recs if r["wfc"] is not None]
    bv = [r["bound"] for r in recs if r["bound"] is not None]
    def span(v):
        return "min / median / max %.3f / %.3f / %.3f" % (min(v), statistics.median(v), max(v)) if v else "none"
    out.append("Reference boundness: shared wavefronts per active cycle of the atomics-only launch, %d points "
               "(%s); unit_bound's cycles per job of the same jobs / the reference's, %d points with a "
               "unit_bound case (%s). A reference passes with %.2f wavefronts per cycle, or (not a CAS "
               "loop) %.2f of the unit-bound rate; %d of %d points did not and are excluded.\n" % (
                   len(wv), span(wv), len(bv), span(bv), BOUND_MIN, BOUND_MIN, len(excluded), len(recs)))
    out.append("Excluded points (reference not shown to be bound by the unit):\n")
    out.append("| point | class | family | wavefronts per cycle | ub_case | unit_bound cycles/job "
               "| reference cycles/job | unit_bound / reference |")
    out.append("|---|---|---|---|---|---|---|---|")
    for r in sorted(excluded, key=lambda r: (r["wfc"] or 0)):
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["name"], r["class"], r["family"], fmt(r["wfc"], 3), r["ub_case"] or "-", fmt(r["ub_cpj"], 3),
            fmt(r["atom_cpj"], 3), fmt(r["bound"], 3)))
    if not excluded:
        out.append("| (none) | | | | | | | |")
    out.append("")

    # ---- largest errors
    out.append("The 15 largest errors (full kernels, counted points), U in %:\n")
    out.append("| point | class | family | pattern | L | U_true | U | error | proxy | boundness | flags |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in sorted(counted, key=lambda r: -r["err"])[:15]:
        flags = ", ".join(f for f in r.get("flags", "").split(",") if f and f != "opcodes")
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["name"], r["class"], r["family"], r["pattern"], r["alu"], fmt(pct(r["u_true"])), fmt(pct(r["u"])),
            fmt(r["err"]), fmt(pct(r["proxy"])), fmt(r["bound"], 3), flags))
    out.append("")

    # ---- summary
    errs = [r["err"] for r in counted]
    sat = [100 * r["u_atom"] for r in counted]
    fams = set(r["family"] for r in counted)
    summary = "summary: points %d families %d MAE %.1f max %.1f saturated %d/%d" % (
        len(counted), len(fams), sum(errs) / len(errs), max(errs),
        sum(1 for x in sat if SAT_LO <= x <= SAT_HI), len(sat))
    text = "\n".join(out) + "\n"

    cols = ["idx", "name", "class", "op", "family", "classes", "pattern", "alu", "level", "u_true", "u", "err",
            "proxy", "u_atom", "proxy_atom", "wfc", "ub_case", "ub_cpj", "atom_cpj", "bound", "excluded", "flags"]
    with open(os.path.join(rd, "validation_points.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for r in recs:
            w.writerow([("%.4f" % r[c]) if isinstance(r.get(c), float) else r.get(c, "") for c in cols])
    with open(os.path.join(rd, "validation_tables.md"), "w") as f:
        f.write(text + summary + "\n")
    if args.doc:
        with open(args.doc) as f:
            doc = f.read()
        tag = " " + args.tag if args.tag else ""
        begin, end = MARK % (tag, "begin"), MARK % (tag, "end")
        if begin in doc and end in doc and doc.index(begin) < doc.index(end):
            a, b = doc.index(begin) + len(begin), doc.index(end)
            with open(args.doc, "w") as f:
                f.write(doc[:a] + "\n" + text + "\n" + summary + "\n" + doc[b:])
        else:
            print("validate.py: %s has no markers %s ... %s; not changed" % (args.doc, begin, end), file=sys.stderr)
    if args.img:
        try:
            plot(counted, args.img, gpu)
        except Exception as e:  # the figures are optional: never lose the summary to them
            print("validate.py: no plots: %s" % e, file=sys.stderr)
    sys.stdout.write(text)
    print(summary)
    return 0


def plot(rs, img, gpu):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("validate.py: no matplotlib, no plots", file=sys.stderr)
        return
    os.makedirs(img, exist_ok=True)
    fams = sorted(set(r["family"] for r in rs))
    markers = "osD^v<>ph*Xd8P"
    fig, ax = plt.subplots(figsize=(6.5, 6))
    for k, fam in enumerate(fams):
        f = [r for r in rs if r["family"] == fam]
        ax.scatter([100 * r["u_true"] for r in f], [100 * r["u"] for r in f], s=14,
                   marker=markers[k % len(markers)], label=fam)
    ax.plot([0, 110], [0, 110], "k-", lw=0.8)
    ax.set_xlim(0, 110)
    ax.set_ylim(0, max([125.0] + [100 * r["u"] + 5 for r in rs]))
    ax.set_xlabel("U_true (%)")
    ax.set_ylabel("U, atomutil default (%)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", ncol=2)
    ax.set_title("Utilization against ground truth, %s" % gpu)
    fig.tight_layout()
    fig.savefig(os.path.join(img, "validation_scatter.png"), dpi=110)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(10, 4))
    pm = [err_stats([r for r in rs if r["family"] == f], "proxy")[0] or 0 for f in fams]
    am = [err_stats([r for r in rs if r["family"] == f])[0] or 0 for f in fams]
    x = range(len(fams))
    ax.bar([i - 0.2 for i in x], am, 0.4, label="atomutil (default)")
    ax.bar([i + 0.2 for i in x], pm, 0.4, label="proxy")
    ax.set_xticks(list(x))
    ax.set_xticklabels(fams, rotation=30)
    ax.set_ylabel("mean |U - U_true| (points)")
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    ax.set_title("Mean absolute error per family, %s" % gpu)
    fig.tight_layout()
    fig.savefig(os.path.join(img, "validation_mae.png"), dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())
