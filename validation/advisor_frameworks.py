#!/usr/bin/env python3
"""The advisor on framework kernels nobody here wrote (docs/validation.md, "Framework pairs"):
PyTorch's and CuPy's histograms on conflict-heavy keys predict the same kernel on uniform keys,
and PyTorch's bincount predicts its cure `native` (32-bit counters), written here.

usage: advisor_frameworks.py RESULT_DIR [BUILD_DIR] [--elements N]... [--reps R] [--ncu] [--ops OP,...]
       advisor_frameworks.py --score RESULT_DIR
       advisor_frameworks.py --rescore RUN OUT_DIR [BUILD_DIR]

Runs each op of validation/advisor/frameworks.py whose framework imports (frameworks.py --list;
--ops: those named only)
on each input (one, skew, rand), a process each, under atomutil-profile (-k: its histogram kernel
only; R timed calls after a warm-up, default 5) and, with --ncu, under Nsight Compute as well
(AtomicUnit and SourceCounters, the CAS loops' entries: docs/nsight-compute.md; ncu on PATH or in
ATOMUTIL_NCU, its sections in NCU_SECTIONS or found by validation/ncu_sections.sh), once per
size N (default 16777216).  BUILD_DIR (default build) is configured if needed and
atomutil-profile (and, for --ncu, the AtomicUnit section) built.  RESULT_DIR receives
  fw_N_OP_INPUT.csv, .log        atomutil-profile --csv of a run, and its output
  fw_N_OP_INPUT.counters.csv     its raw counters (the cubins are not kept)
  fw_ncu_N_OP_INPUT.ncu-rep, .csv  with --ncu: the report and its import
  pages/fw_ncu_N_OP_INPUT.PAGE.csv  the pages of the report that its import read (raw, opcodes,
                                 source: validation/ncu_pages.sh), small beside the report
  fw_N.csv, fw_ncu_N.csv         the histogram kernel's launches of every run of size N, the
                                 kernel named OP__INPUT
  pairs.csv                      the pairs (advisor.py's columns): OP_one_rand and OP_skew_rand,
                                 set data-only, cure hashed (uniform keys spread the lanes of a
                                 warp over the banks at random); and cupy_bincount32_native_INPUT,
                                 set code: torch_bincount against its cure native written here
  advisor_fw.log, advisor_fw_ncu.log  validation/advisor.py over every size
  env.txt, steps.txt             the GPU and the versions; each step's exit status and seconds
and prints advisor.py's summary lines (live, then "under ncu:").  --score redoes the last three
steps from the runs' CSVs already in RESULT_DIR (no GPU).  --rescore imports the kept pages of
RUN/pages (PAGE.csv or PAGE.csv.xz; RUN a result folder, or a tar file that holds one, its pairs.csv
beside pages/) again with BUILD_DIR's atomutil-profile, this checkout's model and tables, into
OUT_DIR, and scores them there (no GPU, no ncu).  Exit status 1 if a step
failed, 2 on a usage error.
"""
import csv
import glob
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PAGES = os.path.join(HERE, "ncu_pages.sh")  # keeps the pages each import of a report exports
INPUTS = ("one", "skew", "rand")
KERNELS = {"torch_bincount": "kernelHistogram1D", "torch_weighted": "kernelHistogram1D",
           "torch_histc": "kernelHistogram1D", "cupy_histogram": "DeviceHistogramSweep",
           "cupy_bincount32": "bincount32"}
# code pairs (baseline op, variant op, cure): a framework's kernel against its cure written here
CODE = (("torch_bincount", "cupy_bincount32", "native"),)
DATA_OPS = ("torch_bincount", "torch_weighted", "torch_histc", "cupy_histogram")
# CUB's sweep adds up runs of equal keys in registers before its atomics (docs/validation.md)
ADDS_WORK = {"cupy_histogram": "CUB adds runs of equal keys before its atomics: uniform keys leave more atomics"}
RUN = re.compile(r"^fw_(ncu_)?(\d+)_(%s)_(%s)\.csv$" % ("|".join(KERNELS), "|".join(INPUTS)))


def usage(msg):
    print("advisor_frameworks.py: %s" % msg, file=sys.stderr)
    print("usage: advisor_frameworks.py RESULT_DIR [BUILD_DIR] [--elements N]... [--reps R] [--ncu] [--ops OP,...]\n"
          "       advisor_frameworks.py --score RESULT_DIR", file=sys.stderr)
    sys.exit(2)


class Steps:
    """Runs the steps, logging each one's exit status and seconds to steps.txt."""

    def __init__(self, res):
        self.path = os.path.join(res, "steps.txt")
        self.failed = False
        open(self.path, "w").close()

    def run(self, name, limit, cmd, out=None, env=None, err=None):
        """cmd's stdout into out; its stderr there too, or appended to err."""
        t0 = time.time()
        with open(out, "w") if out else open(os.devnull, "w") as f, open(err or os.devnull, "a") as e:
            try:
                rc = subprocess.run(cmd, stdout=f, stderr=e if err else subprocess.STDOUT, timeout=limit,
                                    env=env).returncode
            except subprocess.TimeoutExpired:
                rc = 124
            except OSError as e:
                print("%s: %s" % (name, e), file=f)
                rc = 127
        with open(self.path, "a") as f:
            f.write("%s: rc %d, %d s\n" % (name, rc, time.time() - t0))
        self.failed |= rc != 0
        return rc == 0


def merge(res):
    """fw_N.csv and fw_ncu_N.csv from the runs' CSVs, and pairs.csv; the merged files' paths by mode."""
    groups = {}
    for path in sorted(glob.glob(os.path.join(res, "fw_*.csv"))):
        m = RUN.match(os.path.basename(path))
        if not m or path.endswith(".counters.csv"):
            continue
        if os.path.getsize(path) == 0:  # a run that wrote nothing (its step failed): the others still count
            print("advisor_frameworks.py: %s: empty, left out" % path, file=sys.stderr)
            continue
        mode, n, op, inp = m.group(1) or "", m.group(2), m.group(3), m.group(4)
        groups.setdefault((mode, int(n)), []).append((op, inp, path))
    merged = {"": [], "ncu_": []}
    ops = set()
    for (mode, n), runs in sorted(groups.items()):
        rows, fields = [], None
        for op, inp, path in runs:
            with open(path, newline="") as f:
                reader = csv.DictReader(f)
                if not reader.fieldnames or "kernel" not in reader.fieldnames:
                    print("advisor_frameworks.py: %s: no column kernel" % path, file=sys.stderr)
                    sys.exit(1)
                fields = fields or reader.fieldnames
                for r in reader:
                    if KERNELS[op] in r["kernel"]:
                        rows.append(dict(r, kernel="%s__%s" % (op, inp)))
                        ops.add(op)
        out = os.path.join(res, "fw_%s%d.csv" % (mode, n))
        with open(out, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
            w.writeheader()
            w.writerows(rows)
        merged[mode].append(out)
    with open(os.path.join(res, "pairs.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["pair", "set", "cure", "base_kernel", "variant_kernel", "adds_work"])
        for op in (o for o in DATA_OPS if o in ops):
            for base in ("one", "skew"):
                w.writerow(["%s_%s_rand" % (op, base), "data-only", "hashed", "%s__%s" % (op, base),
                            "%s__rand" % op, ADDS_WORK.get(op, "none")])
        for base, var, cure in CODE:
            if base in ops and var in ops:
                for inp in INPUTS:
                    w.writerow(["%s_%s_%s" % (var, cure, inp), "code", cure, "%s__%s" % (base, inp),
                                "%s__%s" % (var, inp), "none"])
    return merged


def score(res, steps):
    merged = merge(res)
    pairs = os.path.join(res, "pairs.csv")
    lines = []
    for mode, log, title in (("", "advisor_fw.log", None), ("ncu_", "advisor_fw_ncu.log", "under ncu:")):
        if not merged[mode]:
            continue
        args = [a for m in merged[mode] for a in (m, pairs)]
        steps.run("advisor_fw" + ("_ncu" if mode else ""), 60,
                  [sys.executable, os.path.join(HERE, "advisor.py")] + args, os.path.join(res, log))
        if title:
            lines.append(title)
        with open(os.path.join(res, log)) as f:
            got = [l.rstrip("\n") for l in f if l.startswith("advisor:")]
        lines += got or ["(not scored: %s)" % os.path.join(res, log)]
    if not any(merged.values()):
        print("advisor_frameworks.py: %s: no run's CSV (fw_N_OP_INPUT.csv)" % res, file=sys.stderr)
        steps.failed = True
    return lines


def rescore(run, out, build):
    """The kept pages of run/pages imported again (ncu_pages.sh replays them) into out, and scored;
    run may be a tar file that holds such a folder."""
    if os.path.isfile(run):
        tmp = tempfile.mkdtemp()
        try:
            try:
                with tarfile.open(run) as t:
                    t.extractall(tmp, filter="data") if hasattr(tarfile, "data_filter") else t.extractall(tmp)
            except (tarfile.TarError, OSError) as e:
                print("advisor_frameworks.py: %s: not a tar file of a run (%s)" % (run, e), file=sys.stderr)
                return 1
            found = sorted(os.path.dirname(d) for d, _, files in os.walk(tmp)
                           if os.path.basename(d) == "pages" and any(f.startswith("fw_ncu_") for f in files))
            return rescore(found[0] if found else tmp, out, build)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    prof = os.path.join(build, "bin", "atomutil-profile")
    pages = os.path.join(run, "pages")
    names = sorted({m.group(1) for m in (re.match(r"^(fw_ncu_.*)\.raw\.csv(\.xz)?$", f)
                                         for f in (os.listdir(pages) if os.path.isdir(pages) else [])) if m})
    if not os.access(prof, os.X_OK) or not names:
        print("advisor_frameworks.py: %s" % ("%s is missing (cmake --build %s --target atomutil-profile)" % (prof, build)
                                             if names else "no kept pages in %s (pages/fw_ncu_*.raw.csv)" % run),
              file=sys.stderr)
        return 1
    os.makedirs(out, exist_ok=True)
    steps = Steps(out)
    env = dict(os.environ, ATOMUTIL_NCU=PAGES, NCU_PAGES_DIR=os.path.abspath(pages))
    env.pop("NCU_PAGES_NCU", None)
    for name in names:
        rep = os.path.join(out, name)
        open(rep + ".ncu-rep", "w").close()  # a name for the import; ncu_pages.sh prints its pages
        steps.run("import_" + name, 300, [prof, "--import", rep + ".ncu-rep", "--csv"], rep + ".csv", env,
                  rep + ".log")
        os.remove(rep + ".ncu-rep")
    for line in score(out, steps):
        print(line)
    return 1 if steps.failed else 0


def ncu_sections(ncu):
    p = subprocess.run([os.path.join(HERE, "ncu_sections.sh"), ncu], stdout=subprocess.PIPE, text=True)
    return p.stdout.strip() if p.returncode == 0 else None


def measure(res, build, sizes, reps, with_ncu, only, steps):
    targets = ["atomutil-profile"] + (["atomutil_python"] if with_ncu else [])
    if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
        if not steps.run("configure", 300, ["cmake", "-S", ROOT, "-B", build, "-DATOMUTIL_ENABLE_TESTS=OFF"],
                         os.path.join(res, "build.log")):
            return
    if not steps.run("build", 600, ["cmake", "--build", build, "-j", "--target"] + targets,
                     os.path.join(res, "build.log.2")):
        return
    prof = os.path.join(build, "bin", "atomutil-profile")
    work = [sys.executable, os.path.join(HERE, "advisor", "frameworks.py")]
    p = subprocess.run(work + ["--list"], stdout=subprocess.PIPE, text=True)
    ops = [op for op in p.stdout.split() if not only or op in only]
    with open(os.path.join(res, "env.txt"), "w") as f:
        for cmd in (["nvidia-smi", "--query-gpu=name,driver_version,clocks.sm,clocks.max.sm", "--format=csv,noheader"],
                    ["git", "-C", ROOT, "describe", "--always", "--dirty"],
                    [sys.executable, "-c", "import importlib\nfor m in ('torch', 'cupy'):\n try: print(m, "
                     "importlib.import_module(m).__version__)\n except Exception as e: print(m, 'absent:', e)"]):
            try:
                f.write(subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout)
            except OSError as e:
                f.write("%s: %s\n" % (cmd[0], e))
        f.write("ops: %s\n%s\n" % (" ".join(ops), time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())))
    if not ops:
        print("advisor_frameworks.py: no framework of validation/advisor/frameworks.py imports here", file=sys.stderr)
        steps.failed = True
        return
    ncu = secs = None
    if with_ncu:
        ncu = os.environ.get("ATOMUTIL_NCU") or shutil.which("ncu")
        secs = ncu and ncu_sections(ncu)
        if not secs:
            print("advisor_frameworks.py: --ncu needs ncu (PATH or ATOMUTIL_NCU) and its sections folder",
                  file=sys.stderr)
            steps.failed = True
            ncu = None
    ours = os.path.join(os.path.abspath(build), "share", "atomutil", "ncu")
    for n in sizes:
        for op in ops:
            for inp in INPUTS:
                name = "%d_%s_%s" % (n, op, inp)
                base = os.path.join(res, "fw_" + name)
                args = [op, inp, "--elements", str(n), "--reps", str(reps)]
                steps.run("profile_" + name, 300, [prof, "-q", "--csv", "-k", KERNELS[op], "-o", base, "--"] + work + args,
                          base + ".log")
                for d in glob.glob(base + ".cubins"):
                    subprocess.run(["rm", "-rf", d])
                if not ncu:
                    continue
                rep = os.path.join(res, "fw_ncu_" + name)
                if steps.run("ncu_" + name, 600, [ncu, "--section-folder", secs, "--section-folder", ours, "--section",
                                                  "AtomicUnit", "--section", "SourceCounters", "--metrics",
                                                  "sass__inst_executed_per_opcode_with_modifier_all", "-k",
                                                  "regex:" + KERNELS[op], "--cache-control", "none", "--clock-control",
                                                  "none", "-f", "-o", rep] + work + args, rep + ".log"):
                    steps.run("import_ncu_" + name, 300, [prof, "--import", rep + ".ncu-rep", "--csv"], rep + ".csv",
                              dict(os.environ, ATOMUTIL_NCU=PAGES, NCU_PAGES_NCU=ncu,
                                   NCU_PAGES_DIR=os.path.join(res, "pages")), rep + ".log")


def main(argv):
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__)
        return 0
    if argv[:1] == ["--rescore"]:
        if not 3 <= len(argv) <= 4:
            usage("--rescore takes RUN OUT_DIR [BUILD_DIR]")
        return rescore(argv[1], argv[2], argv[3] if len(argv) > 3 else "build")
    if argv[:1] == ["--score"]:
        if len(argv) != 2:
            usage("--score takes RESULT_DIR alone")
        res = argv[1]
        if not os.path.isdir(res):
            print("advisor_frameworks.py: %s: no such folder" % res, file=sys.stderr)
            return 1
        steps = Steps(res)
        for line in score(res, steps):
            print(line)
        return 1 if steps.failed else 0
    pos, sizes, reps, with_ncu, only, i = [], [], 5, False, None, 0
    while i < len(argv):
        a = argv[i]
        if a in ("--elements", "--reps"):
            try:
                v = int(argv[i + 1])
            except (IndexError, ValueError):
                usage("%s needs an integer" % a)
            if v < (1 if a == "--elements" else 0):
                usage("%s: out of range: %d" % (a, v))
            if a == "--elements":
                sizes.append(v)
            else:
                reps = v
            i += 2
        elif a == "--ncu":
            with_ncu, i = True, i + 1
        elif a == "--ops":
            if i + 1 >= len(argv):
                usage("--ops needs a list")
            only = argv[i + 1].split(",")
            bad = [op for op in only if op not in KERNELS]
            if bad:
                usage("--ops: unknown op %s (ops: %s)" % (bad[0], " ".join(KERNELS)))
            i += 2
        elif a.startswith("-"):
            usage("unknown option %s" % a)
        else:
            pos.append(a)
            i += 1
    if not 1 <= len(pos) <= 2:
        usage("RESULT_DIR [BUILD_DIR] expected")
    res, build = pos[0], pos[1] if len(pos) > 1 else "build"
    try:
        os.makedirs(res, exist_ok=True)
    except OSError as e:
        print("advisor_frameworks.py: %s: %s" % (res, e.strerror), file=sys.stderr)
        return 1
    steps = Steps(res)
    measure(res, build, sizes or [1 << 24], reps, with_ncu, only, steps)
    lines = score(res, steps)
    with open(steps.path) as f:
        sys.stdout.write(f.read())
    for line in lines:
        print(line)
    return 1 if steps.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
