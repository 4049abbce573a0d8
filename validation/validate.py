#!/usr/bin/env python3
"""Accuracy of atomutil's utilization against ground truth (docs/validation.md, issues 6 and 11).

usage: validate.py RESULT_DIR [--profile PATH] [--table FILE] [--out DIR] [--doc FILE [--tag TAG]]
                   [--img DIR] [--dsmem-truth event|sm]

Reads, in RESULT_DIR (validation/validation_all.sh makes them):
  vtime.csv          validation --mode time: per point U_true, the atomics-only reference's cycles
                     per job (atom_cycles_per_job) and the unit_bound case of its jobs (ub_case)
  vop_points.csv     validation --mode profile: which launch of the profile run is which point/role
  vop.counters.csv   the raw counters of that profile run (atomutil-profile -o vop), with the
                     kernels' code in vop.cubins/ next to it
  unit_bound.csv     calibrate/tools/unit_bound: cycles per job of each case at the unit's rate
                     (not needed when no point names a case: a run of the dsmem class alone)
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

DSMEM points (class dsmem of vtime.csv; their report rows carry a flag dsmem...) are family
"dsmem".  Neither measurement above exists for them (the cluster counter set has no shared-atomic
wavefronts, unit_bound no cluster case); their reference passes on
  warps       its cycles per job with 32 warps per block / those of the same jobs per SM with 16
              warps per block (vtime.csv: atom_cycles_per_job, half_cycles_per_job) >= 0.95:
              twice the warps do not raise the throughput, so the path is saturated.
They have no proxy (the proxy table leaves them out); where the report gives U a range
(util_pct_lo..util_pct_hi) the DSMEM table says whether U_true lies in it.  A DSMEM launch the
report could not price by the DSMEM path (flag dsmem_uncalibrated: the table has no dsmem
families; or no flag dsmem) is listed as not priced and not counted.  Their U_true is u_true
(event times) as for every class, or with --dsmem-truth sm vtime.csv's u_true_sm (the SMs' clock
windows: the reference's summed / the full kernel's, the mean SM's) but for the hot points (target
hot: one SM per cluster serves it, in both kernels, and sets their times); the DSMEM table shows both.

Prints markdown tables (per family, lane pattern and work level, the proxy estimator, excluded
points, largest errors; after the family table, how many of the points whose U has a range hold
U_true in it), writes them to OUT/validation_tables.md and the per-point figures to
OUT/validation_points.csv, and ends with exactly one line
  summary: points P families F MAE X max Y saturated K/N
P full-kernel points counted, F distinct families among them, X and Y the mean and largest
|U - U_true| in percentage points, K of the N counted atomics-only launches with U in 95-105 %.
Before it, the tables end with the line (issue 36: are generic and DSMEM atomics priced exactly?)
  exact: generic points P MAE M max X uncertain U dsmem points P MAE M max X uncertain U
over the counted points of family generic and of family dsmem: P points, M and X the mean and
largest |U - U_true| in points ("-" without points), U of them with the report's verdict
`uncertain`.
OUT is --out DIR (made if missing; validation/validation_all.sh gives RESULT_DIR itself), else a new
temporary directory named on stderr: RESULT_DIR is only read, so that a rerun on committed
results (docs/results/...) leaves them as they are.
With --doc FILE, the text between '<!-- validate.py TAG begin -->' and '<!-- validate.py TAG end -->'
(without TAG: '<!-- validate.py begin -->' ...) of FILE is replaced by the tables and the summary;
with --img DIR, validation_*.png go there (needs matplotlib).  Input files may be gzip- or
xz-compressed (NAME.gz, NAME.xz).  Standard library only (matplotlib for the plots).
"""
import argparse
import csv
import gzip
import io
import lzma
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
DLEVELS = {0: "dsmem: L = 0 (no work)", 1: "dsmem: level 1 (~70 % intended)",
           2: "dsmem: level 2 (~40 % intended)", 3: "dsmem: level 3 (~15 % intended)"}
GLEVELS = {0: "generic: L = 0 (no work)", 1: "generic: level 1 (~70 % intended)",
           2: "generic: level 2 (~40 % intended)", 3: "generic: level 3 (~15 % intended)"}


def die(msg):
    print("validate.py: %s" % msg, file=sys.stderr)
    sys.exit(1)


# ------------------------------------------------------------------ reading


def packed(path):
    """PATH's compressed copy, PATH.gz or PATH.xz, and the module that reads it, where PATH itself is
    missing (docs/results keeps large files compressed); else (None, None)."""
    for ext, module in ((".gz", gzip), (".xz", lzma)):
        if not os.path.exists(path) and os.path.exists(path + ext):
            return path + ext, module
    return None, None


def exists(path):
    return os.path.exists(path) or packed(path)[0] is not None


def open_text(path):
    """The file, or its compressed copy PATH.gz or PATH.xz."""
    copy, module = packed(path)
    return module.open(copy, "rt", newline="") if copy else open(path, newline="")


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
    directory may hold the counters compressed (vop.counters.csv.gz or .xz) and the kernels' listings
    as one archive (vop.cubins.tar.gz or .tar.xz, as docs/results keeps them); they are unpacked to a
    temporary directory first."""
    counters = os.path.join(rd, "vop.counters.csv")
    cubins = os.path.join(rd, "vop.cubins")
    archive = cubins + (".tar.xz" if os.path.isfile(cubins + ".tar.xz") else ".tar.gz")
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
                copy, module = packed(counters)
                with module.open(copy, "rb") as fi, open(dst, "wb") as fo:
                    shutil.copyfileobj(fi, fo)
            if have_dir:
                os.symlink(os.path.abspath(cubins), os.path.join(tmp, "vop.cubins"))
            else:
                with tarfile.open(archive, "r:*") as tf:
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


def range_line(out, rs):
    """One line on the points whose U the report gives a range (util_pct_lo..util_pct_hi: generic
    atomics' wavefronts of unknown passes, CAS loops' loads; DSMEM points have their own table):
    how many hold U_true."""
    rg = [r for r in rs if r["in_range"] is not None]
    if not rg:
        return
    flags = sorted(set(f for r in rg for f in r.get("flags", "").split(",")
                       if f in ("unpriced_wavefronts", "loop_loads_estimated")))
    out.append("U ranges (the report's util_pct_lo..util_pct_hi%s): U_true lies in the range at %d of %d "
               "points.\n" % ("; flags " + ", ".join(flags) if flags else "", sum(1 for r in rg if r["in_range"]),
                               len(rg)))


def urange(rs):
    u = [100 * r["u_true"] for r in rs]
    return "%.0f-%.0f %%" % (min(u), max(u)) if u else "-"


def group(rs, key):
    out = {}
    for r in rs:
        out.setdefault(r[key], []).append(r)
    return out


def is_dsmem_flags(flags):
    return any(f.strip().startswith("dsmem") for f in (flags or "").split(","))


def pattern_label(t):
    if t.get("class") == "dsmem":
        return "dsmem:%s" % (t.get("pattern") or "?")
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
        return {"dsmem": DLEVELS, "generic": GLEVELS}.get(t.get("class"), LEVELS)[int(lv)]
    if (fnum(t.get("alu")) or 0) == 0 and (fnum(t.get("loads")) or 0) == 0:
        return "other classes: no work"
    return "other classes: with work"


def generic_table(out, title, what, groups):
    out.append(title + "\n")
    out.append("| %s | points | U_true range | MAE | max | ranged |" % what)
    out.append("|---|---|---|---|---|---|")
    for key, rs in sorted(groups.items()):
        mae, mx = err_stats(rs)
        ranged = sum(1 for r in rs if r["u_lo"] is not None and r["u_hi"] is not None and r["u_hi"] > r["u_lo"])
        out.append("| %s | %d | %s | %s | %s | %d |" % (key, len(rs), urange(rs), fmt(mae, 2), fmt(mx, 2), ranged))
    out.append("")


def exact_line(counted):
    """`exact: generic points P MAE M max X uncertain U dsmem points ...` (the module's doc)."""
    parts = ["exact:"]
    for fam in ("generic", "dsmem"):
        rs = [r for r in counted if r["family"] == fam]
        mae, mx = err_stats(rs)
        parts.append("%s points %d MAE %s max %s uncertain %d" % (
            fam, len(rs), fmt(mae, 2), fmt(mx, 2), sum(1 for r in rs if r.get("verdict") == "uncertain")))
    return " ".join(parts)


# ------------------------------------------------------------------ main


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("result_dir")
    ap.add_argument("--profile", default=os.path.join(REPO, "build", "bin", "atomutil-profile"),
                    help="atomutil-profile to remake the report with (default: build/bin/atomutil-profile)")
    ap.add_argument("--table", help="service-time table for atomutil-profile (default: the one it picks)")
    ap.add_argument("--out", help="directory for validation_tables.md and validation_points.csv "
                                  "(default: a new temporary directory, named on stderr)")
    ap.add_argument("--doc")
    ap.add_argument("--tag", default="")
    ap.add_argument("--img")
    ap.add_argument("--dsmem-truth", choices=("event", "sm"), default="event",
                    help="U_true of the dsmem points: event (default, as every class: from the launches' "
                         "event times) or sm (u_true_sm: the SMs' own clock windows summed, the mean SM's)")
    args = ap.parse_args()
    rd = args.result_dir
    if not os.path.isdir(rd):
        die("no directory %s" % rd)
    if args.out:
        try:
            os.makedirs(args.out, exist_ok=True)
        except OSError as e:
            die("cannot create the output directory %s: %s" % (args.out, e.strerror))

    vt_path = need(rd, "vtime.csv", "validation --mode time")
    pl_path = need(rd, "vop_points.csv", "validation --mode profile's launch list, step vop")
    vtime = {}
    for r in read_rows(vt_path, ("idx", "name", "class", "u_true", "atom_cycles_per_job", "ub_case")):
        vtime[r["idx"]] = r
    meta = header_meta(vt_path)
    plist = read_rows(pl_path, ("seq", "idx", "role", "kernel"))
    ub = {}
    # unit_bound.csv is needed where a point names a unit_bound case (not by a run of the dsmem
    # class alone, validation -f dsmem)
    if any(r.get("ub_case") for r in vtime.values()) or exists(os.path.join(rd, "unit_bound.csv")):
        ub_path = need(rd, "unit_bound.csv", "unit_bound's cycles per job, step unit_bound")
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
        flags = r.get("flags", "") or ""
        flagset = set(f.strip() for f in flags.split(","))
        dsm = t["class"] == "dsmem" or is_dsmem_flags(flags)
        # a DSMEM launch the report could not price by the DSMEM path: listed, not counted
        unpriced = dsm and (u is None or "dsmem_uncalibrated" in flagset or "dsmem" not in flagset)
        if u is None and not unpriced:
            die("launch %s (%s, point %s) has no util_pct in the report (flags: %s)"
                % (p["seq"], p["kernel"], t["name"], flags))
        sm, wave, T = fnum(r["sm_count"]), fnum(r["wavefronts"]), fnum(r["active_cycles"])
        proxy = wave / sm / T if wave is not None and sm and T else None
        # every shared wavefront (the loads of CAS loops too) per active cycle
        allw = fnum(r.get("shared_wavefronts")) or wave
        wfc = allw / sm / T if allw is not None and sm and T else None
        if dsm:  # the cluster counter set has no shared-atomic wavefronts: no proxy, no rate
            proxy = wfc = None
        rec = recs.setdefault(p["idx"], {"idx": int(p["idx"]), "name": t["name"], "class": t["class"],
                                         "op": t.get("op", ""), "pattern": pattern_label(t),
                                         "level": level_label(t), "alu": t.get("alu", ""),
                                         "u_true": fnum(t["u_true"]), "ub_case": t.get("ub_case", ""),
                                         "atom_cpj": fnum(t.get("atom_cycles_per_job")),
                                         "dsmem": dsm, "cluster": t.get("cluster_size", "") or "",
                                         "target": t.get("target", "") or "",
                                         "half_cpj": fnum(t.get("half_cycles_per_job")), "unpriced": "",
                                         "u_true_event": fnum(t["u_true"]), "u_true_sm": fnum(t.get("u_true_sm")),
                                         "spread": fnum(t.get("atom_spread"))})
        # a hot receiver sets the launch's time in the reference and the full kernel alike, and the
        # report's U is its SM's: the event times are its U_true (docs/validation.md)
        if dsm and args.dsmem_truth == "sm" and p["role"] == "full" and rec["target"] != "hot":
            if rec["u_true_sm"] is None:
                die("vtime.csv: dsmem point %s has no u_true_sm (--dsmem-truth sm)" % t["name"])
            rec["u_true"] = rec["u_true_sm"]
        if rec["u_true"] is None:
            die("vtime.csv: point %s has no u_true" % t["name"])
        if unpriced:
            rec["unpriced"] = (rec["unpriced"] + "; " if rec["unpriced"] else "") + "%s: %s" % (
                p["role"], ", ".join(f for f in flags.split(",") if f and f != "opcodes") or "no flag dsmem")
        uu = None if unpriced else u / 100
        if p["role"] == "full":
            rec.update(u=uu, proxy=proxy, classes=r["opcode_classes"],
                       family="dsmem" if dsm else top_family(r["opcode_classes"], r["family"]), flags=flags,
                       u_lo=fnum(r.get("util_pct_lo")), u_hi=fnum(r.get("util_pct_hi")),
                       u_local=fnum(r.get("util_pct_local")), u_dsmem=fnum(r.get("util_pct_dsmem")),
                       verdict=r.get("verdict"))
        elif p["role"] == "atom":
            rec.update(u_atom=uu, proxy_atom=proxy, wfc_atom=wfc, classes_atom=r["opcode_classes"])
        else:
            die("vop_points.csv: unknown role '%s'" % p["role"])
    recs = [recs[k] for k in sorted(recs, key=lambda k: int(k))]
    for r in recs:
        if "u" not in r or "u_atom" not in r:
            die("point %s lacks its full or its atomics-only launch in vop_points.csv" % r["name"])
        r["err"] = abs(r["u"] - r["u_true"]) * 100 if r["u"] is not None else None
        # boundness of the reference: its wavefronts per active cycle, and unit_bound's cycles per
        # job / the reference's; DSMEM: its cycles per job / those with half the warps (see the
        # module's doc)
        r["ub_cpj"], r["bound"] = None, None
        r["wfc"] = r.get("wfc_atom")
        if r["dsmem"]:
            if r["atom_cpj"] and r["half_cpj"]:
                r["bound"] = r["atom_cpj"] / r["half_cpj"]
            r["excluded"] = not (r["bound"] is not None and r["bound"] >= BOUND_MIN)
        else:
            if r["ub_case"]:
                if r["ub_case"] not in ub:
                    die("unit_bound.csv has no case %s (point %s)" % (r["ub_case"], r["name"]))
                r["ub_cpj"] = ub[r["ub_case"]]
                if r["ub_cpj"] and r["atom_cpj"]:
                    r["bound"] = r["ub_cpj"] / r["atom_cpj"]
            loop = r.get("family", "").startswith("cast_spin")
            by_wf = r["wfc"] is not None and r["wfc"] >= BOUND_MIN
            by_ub = not loop and r["bound"] is not None and r["bound"] >= BOUND_MIN
            r["excluded"] = not (by_wf or by_ub)
        # in the report's range (DSMEM launches whose local passes or row layout are unknown)
        r["in_range"] = None
        if r["u_lo"] is not None and r["u_hi"] is not None:
            r["in_range"] = r["u_lo"] <= 100 * r["u_true"] <= r["u_hi"]

    counted = [r for r in recs if not r["excluded"] and not r["unpriced"]]
    excluded = [r for r in recs if r["excluded"]]
    unpriced = [r for r in recs if r["unpriced"] and not r["excluded"]]
    dsrecs = [r for r in recs if r["dsmem"]]
    if not counted:
        die("no point left to count (%d points: %d excluded, %d not priced%s)" % (
            len(recs), len(excluded), len(unpriced),
            " (dsmem_uncalibrated: the table has no dsmem families)"
            if any("dsmem_uncalibrated" in r["unpriced"] for r in unpriced) else ""))
    gpu = report[0].get("device", "") or meta.get("gpu", "?")
    table = report[0].get("table", "")
    if table.startswith(REPO + os.sep):
        table = os.path.relpath(table, REPO)

    out = []
    out.append("GPU: %s (%s SMs), table `%s`, %d points (%d counted, %d excluded: reference not shown to be "
               "bound by the unit%s%s), %s timed launches per kernel (medians); U from the report remade from "
               "vop.counters.csv with the default pricing (each kernel's opcodes).\n"
               % (gpu, report[0].get("sm_count", "?"), table, len(recs), len(counted), len(excluded),
                  " or the DSMEM path" if dsrecs else "",
                  ", %d not priced: DSMEM launches the report could not price by the DSMEM path" % len(unpriced)
                  if unpriced else "", meta.get("reps", "?")))

    # ---- per family
    out.append("Per family (the report's pricing family of the full kernel), full kernels: mean / largest "
               "|U - U_true| in points; saturated = the atomics-only launches (U_true = 1), U in %%; "
               "boundness = unit_bound's cycles per job / the reference's%s:\n"
               % ("; dsmem: the reference's cycles per job with 32 warps per block / with 16 (the same jobs "
                  "per SM)" if dsrecs else ""))
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
    range_line(out, [r for r in counted if not r["dsmem"]])

    # ---- generic atomics per operation and per lane pattern (docs/opcodes.md, "Generic atomics")
    gen = [r for r in counted if r["family"] == "generic"]
    if gen:
        generic_table(out, "Generic atomics per operation (family generic), full kernels; ranged: U given a range:",
                      "operation", group(gen, "op"))
        generic_table(out, "Generic atomics per lane pattern (family generic; the generic class's patterns and "
                      "the family class's), full kernels:", "pattern", group(gen, "pattern"))

    # ---- per lane pattern
    out.append("Per lane pattern (unit_bound's names; d lanes per bank = bankD):\n")
    out.append("| pattern | points | U_true range | MAE | max | saturated in 95-105 % |")
    out.append("|---|---|---|---|---|---|")
    for pat, rs in sorted(group(counted, "pattern").items()):
        mae, mx = err_stats(rs)
        out.append("| %s | %d | %s | %s | %s | %s |" % (pat, len(rs), urange(rs), fmt(mae), fmt(mx), sat_cells(rs)[1]))
    out.append("")

    # ---- per work level
    out.append("Per work level (family class: L chosen per operation and pattern for the intended U_true%s):\n"
               % ("; dsmem class: per target, cluster size and pattern" if dsrecs else ""))
    out.append("| work level | points | L range | U_true range | MAE | max |")
    out.append("|---|---|---|---|---|---|")
    order = (list(LEVELS.values()) + list(GLEVELS.values()) + list(DLEVELS.values())
             + ["other classes: no work", "other classes: with work"])
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
    # (DSMEM points have no proxy: the cluster counter set has no shared-atomic wavefronts)
    pcounted = [r for r in counted if not r["dsmem"]]
    out.append("For comparison, the proxy estimator (shared-atomic wavefronts per active cycle per SM, from the "
               "counters: wavefronts / sm_count / active_cycles), same points%s:\n"
               % (" but the DSMEM ones (their counter set has no shared-atomic wavefronts)" if dsrecs else ""))
    out.append("| family | points | proxy MAE / max | atomutil MAE / max | saturated proxy min / median / max "
               "| proxy in 95-105 % | atomutil in 95-105 % |")
    out.append("|---|---|---|---|---|---|---|")
    for fam in sorted(by_fam):
        if fam == "dsmem":
            continue
        rs = by_fam[fam]
        pm, px = err_stats(rs, "proxy")
        am, ax = err_stats(rs)
        ps3, psin = sat_cells(rs, "proxy_atom")
        out.append("| %s | %d | %s / %s | %s / %s | %s | %s | %s |" % (
            fam, len(rs), fmt(pm), fmt(px), fmt(am), fmt(ax), ps3, psin, sat_cells(rs)[1]))
    if pcounted:
        pm, px = err_stats(pcounted, "proxy")
        am, ax = err_stats(pcounted)
        ps3, psin = sat_cells(pcounted, "proxy_atom")
        out.append("| **all**%s | %d | %s / %s | %s / %s | %s | %s | %s |" % (
            " but dsmem" if dsrecs else "", len(pcounted), fmt(pm), fmt(px), fmt(am), fmt(ax), ps3, psin,
            sat_cells(pcounted)[1]))
    else:
        out.append("| (none) | | | | | | |")
    out.append("")

    # ---- boundness and excluded points
    wv = [r["wfc"] for r in recs if r["wfc"] is not None]
    bv = [r["bound"] for r in recs if r["bound"] is not None and not r["dsmem"]]
    dv = [r["bound"] for r in dsrecs if r["bound"] is not None]
    def span(v):
        return "min / median / max %.3f / %.3f / %.3f" % (min(v), statistics.median(v), max(v)) if v else "none"
    out.append("Reference boundness: shared wavefronts per active cycle of the atomics-only launch, %d points "
               "(%s); unit_bound's cycles per job of the same jobs / the reference's, %d points with a "
               "unit_bound case (%s)%s. A reference passes with %.2f wavefronts per cycle, or (not a CAS "
               "loop) %.2f of the unit-bound rate%s; %d of %d points did not and are excluded.\n" % (
                   len(wv), span(wv), len(bv), span(bv),
                   "; DSMEM: the reference's cycles per job with 32 warps per block / with 16 warps per block "
                   "and the same jobs per SM, %d points (%s)" % (len(dv), span(dv)) if dsrecs else "",
                   BOUND_MIN, BOUND_MIN,
                   " (DSMEM: with 32 warps at least %.2f of the 16-warp rate, i.e. twice the warps raise the "
                   "throughput by less than %.0f %%)" % (BOUND_MIN, 100 * (1 / BOUND_MIN - 1)) if dsrecs else "",
                   len(excluded), len(recs)))
    out.append("Excluded points (reference not shown to be bound by the unit%s):\n"
               % ("; DSMEM points: the 16-warp reference in place of unit_bound" if dsrecs else ""))
    out.append("| point | class | family | wavefronts per cycle | ub_case | unit_bound cycles/job "
               "| reference cycles/job | unit_bound / reference |")
    out.append("|---|---|---|---|---|---|---|---|")
    for r in sorted(excluded, key=lambda r: (r["wfc"] or 0)):
        if r["dsmem"]:
            out.append("| %s | %s | %s | - | 16 warps per block | %s | %s | %s |" % (
                r["name"], r["class"], r["family"], fmt(r["half_cpj"], 3), fmt(r["atom_cpj"], 3),
                fmt(r["bound"], 3)))
            continue
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

    # ---- DSMEM
    if dsrecs:
        dsmem_tables(out, dsrecs, args.dsmem_truth)

    # ---- summary
    out.append(exact_line(counted))
    out.append("")
    errs = [r["err"] for r in counted]
    sat = [100 * r["u_atom"] for r in counted]
    fams = set(r["family"] for r in counted)
    summary = "summary: points %d families %d MAE %.1f max %.1f saturated %d/%d" % (
        len(counted), len(fams), sum(errs) / len(errs), max(errs),
        sum(1 for x in sat if SAT_LO <= x <= SAT_HI), len(sat))
    text = "\n".join(out) + "\n"

    cols = ["idx", "name", "class", "op", "family", "classes", "pattern", "alu", "level", "u_true", "u", "err",
            "proxy", "u_atom", "proxy_atom", "wfc", "ub_case", "ub_cpj", "atom_cpj", "bound", "excluded", "flags",
            "cluster", "target", "half_cpj", "u_lo", "u_hi", "in_range", "u_local", "u_dsmem", "unpriced",
            "u_true_event", "u_true_sm", "spread", "verdict"]
    out_dir = args.out or tempfile.mkdtemp(prefix="validate-")
    with open(os.path.join(out_dir, "validation_points.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for r in recs:
            w.writerow([("%.4f" % r[c]) if isinstance(r.get(c), float) else r.get(c, "") for c in cols])
    with open(os.path.join(out_dir, "validation_tables.md"), "w") as f:
        f.write(text + summary + "\n")
    if not args.out:
        print("validate.py: validation_tables.md and validation_points.csv written to %s (--out DIR)" % out_dir,
              file=sys.stderr)
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


def dsmem_tables(out, recs, truth):
    """The DSMEM points (class dsmem): per target and cluster size, then every point."""
    def state(r):
        return "excluded" if r["excluded"] else "not priced" if r["unpriced"] else "yes"
    def key(r):
        return ({"own": 0, "ring": 1}.get(r["target"], 2), int(r["cluster"]) if str(r["cluster"]).isdigit() else 0)
    other = "u_true_sm" if truth == "event" else "u_true_event"
    def err_other(rs):
        e = [abs(r["u"] - r[other]) * 100 for r in rs if r.get("u") is not None and r.get(other) is not None]
        return (sum(e) / len(e), max(e)) if e else (None, None)
    out.append("DSMEM points (class dsmem: thread block clusters, one block of 32 warps per SM, atomicAdd "
               "through cluster.map_shared_rank, the generic ATOM; target own = the block's own rank, ring = "
               "rank (r + 1) %% C, hot = rank 0 for every block, all lanes on one word), full kernels, U in %%. U_true here is %s; U_true per SM (u_true_sm) = "
               "the reference's SM clock windows summed / the full kernel's, the mean SM's (the figure the "
               "rollup counters describe), and U_true (events) that of every class, from the launches' event "
               "times (the slowest SM's); they differ where the SMs of a launch ran at different rates "
               "(spread = the reference's longest SM window / its median one). Boundness = the reference's "
               "cycles per job with 32 warps per block / with 16 (the same requests per SM); U_true in "
               "range = within the report's util_pct_lo..util_pct_hi, of the counted points with a range:\n"
               % ("U_true per SM (--dsmem-truth sm)" if truth == "sm" else "from the event times (as every class; "
                  "--dsmem-truth sm takes the per-SM one)"))
    out.append("| target | C | points | U_true range | MAE | max | MAE / max against U_true %s | saturated min / "
               "median / max | in 95-105 %% | U_true in range | boundness min | spread max | excluded "
               "| not priced |" % ("per SM" if truth == "event" else "(events)"))
    out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    groups = {}
    for r in recs:
        groups.setdefault(key(r), []).append(r)
    def row(label_t, label_c, rs):
        cnt = [r for r in rs if state(r) == "yes"]
        mae, mx = err_stats(cnt)
        om, ox = err_other(cnt)
        s3, sin = sat_cells(cnt)
        rg = [r for r in cnt if r["in_range"] is not None]
        b = [r["bound"] for r in rs if r["bound"] is not None]
        sp = [r["spread"] for r in rs if r.get("spread") is not None]
        out.append("| %s | %s | %d | %s | %s | %s | %s / %s | %s | %s | %s | %s | %s | %d | %d |" % (
            label_t, label_c, len(cnt), urange(cnt), fmt(mae), fmt(mx), fmt(om), fmt(ox), s3, sin,
            "%d of %d" % (sum(1 for r in rg if r["in_range"]), len(rg)) if rg else "-",
            fmt(min(b), 3) if b else "-", fmt(max(sp), 3) if sp else "-",
            sum(1 for r in rs if state(r) == "excluded"), sum(1 for r in rs if state(r) == "not priced")))
    for k in sorted(groups):
        rs = groups[k]
        row(rs[0]["target"] or "?", rs[0]["cluster"] or "?", rs)
    row("**all**", "", recs)
    out.append("")
    # the verdicts a user reads, against U_true's verdict (default thresholds)
    def truth_verdict(u):
        return "atomic-bound" if u >= 0.8 else "significant" if u >= 0.4 else "not-limiting"
    cnt = [r for r in recs if state(r) == "yes" and r.get("verdict")]
    right = [r for r in cnt if r["verdict"] == truth_verdict(r["u_true"])]
    unc = [r for r in cnt if r["verdict"] == "uncertain"]
    wrong = [r for r in cnt if r not in right and r not in unc]
    out.append("Verdicts of the counted DSMEM points (the report's, default thresholds 80 / 40 %%, against the "
               "verdict of U_true): %d right, %d `uncertain` (U's range spans two verdicts; the report's "
               "\"Uncertain U\" names both), %d wrong%s.\n" % (
                   len(right), len(unc), len(wrong),
                   (": " + ", ".join("%s (%s, U_true %.1f %%)" % (r["name"], r["verdict"], 100 * r["u_true"])
                                     for r in wrong)) if wrong else ""))
    out.append("Every DSMEM point (U range: the report's util_pct_lo..util_pct_hi where it gives one; U local / "
               "U dsmem: util_pct_local, util_pct_dsmem, the two resources whose larger is U; error against "
               "the U_true used):\n")
    out.append("| point | target | C | pattern | L | U_true (events) | U_true per SM | U | error | U range | in range "
               "| U local | U dsmem | ref cycles/job, 32 warps | 16 warps | boundness | spread | counted | flags |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in sorted(recs, key=lambda r: (key(r), r["idx"])):
        flags = ", ".join(f for f in r.get("flags", "").split(",") if f and f != "opcodes")
        rng = "%.1f-%.1f" % (r["u_lo"], r["u_hi"]) if r["u_lo"] is not None and r["u_hi"] is not None else "-"
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s "
                   "| %s |" % (
                       r["name"], r["target"] or "-", r["cluster"] or "-", r["pattern"].split(":", 1)[-1], r["alu"],
                       fmt(pct(r["u_true_event"])), fmt(pct(r["u_true_sm"])), fmt(pct(r["u"])), fmt(r["err"]), rng,
                       "-" if r["in_range"] is None else "yes" if r["in_range"] else "no", fmt(r.get("u_local")),
                       fmt(r.get("u_dsmem")), fmt(r["atom_cpj"], 3), fmt(r["half_cpj"], 3), fmt(r["bound"], 3),
                       fmt(r.get("spread"), 3), state(r), flags))
    unp = [r for r in recs if r["unpriced"]]
    if unp:
        out.append("")
        out.append("Not priced by the DSMEM path (%d points; flag dsmem_uncalibrated: the table has no dsmem "
                   "families, measure them with atomutil-calibrate --families dsmem_local,dsmem_remote,... "
                   "--merge, docs/calibration.md): %s" % (
                       len(unp), "; ".join("%s (%s)" % (r["name"], r["unpriced"]) for r in unp[:8])
                       + (" ..." if len(unp) > 8 else "")))
    out.append("")


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
