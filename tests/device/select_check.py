#!/usr/bin/env python3
"""GPU test: atomutil-profile's selection before measurement (-k, --launch-skip, --launch-count,
--launches-per-kernel, --profile-from-start off) measures exactly the selected launches and leaves
the program's results unchanged (docs/cli.md, docs/performance.md "Scale").

    select_check.py native PROFILE SELECT_OUTPUTS WORKDIR
    select_check.py train PROFILE TRAIN_PY WORKDIR

native: tests/device/select_outputs, whose launches are known in advance (kernel and grid of
each), so every selection's rows are checked against the expected launches, kernel and grid, and
every sel_hist row's shared-atomic jobs against N / 32; its checksum line must be the plain run's.
train: examples/python/train.py; one run measuring every launch gives the reference sequence; each
selection's rows must be the reference's selected launches (kernel, grid, block), the histogram
rows must have shared-atomic jobs, and the --check files must match the plain run's (histograms
exactly, the loss and parameter sums within 1e-6 relative).
In both, the counters file's "timing: launches measured=N" must be the number of rows.  Exit 77 without a
GPU (or, for train, without PyTorch with CUDA).
"""
import csv
import json
import os
import re
import subprocess
import sys

N_DATA = 1 << 16  # select_outputs.cu


class Fail(Exception):
    pass


def run(cmd, what):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode == 77:
        print(f"{what}: skipped ({p.stderr.strip()})")
        sys.exit(77)
    if p.returncode != 0:
        raise Fail(f"{what} exited {p.returncode}: {' '.join(cmd)}\n{p.stderr[-3000:]}")
    return p.stdout


def jobs(row):
    try:
        return float(row["jobs"])
    except (KeyError, ValueError):
        return float("nan")


def short(kernel):
    """The name without its return type and parameters: 'void ns::k<int>(int*)' -> 'ns::k<int>'."""
    name = kernel[5:] if kernel.startswith("void ") else kernel
    return name.split("(")[0]


def grid_of(text):
    """'(4, 1, 1)' -> (4, 1, 1)"""
    return tuple(int(v) for v in re.findall(r"\d+", text))


def profiled(prof, base, opts, program):
    """Runs PROGRAM under atomutil-profile with opts; (program's stdout, report rows)."""
    out = run([prof, "-q", "--csv", "--no-opcodes", "-o", base] + opts + ["--"] + program,
              f"atomutil-profile {' '.join(opts)}")
    with open(base + ".csv", newline="") as f:
        rows = list(csv.DictReader(f))
    measured = 0
    with open(base + ".counters.csv", errors="replace") as f:
        for line in f:
            m = re.search(r" timing: launches measured=(\d+)", line)
            if m:
                measured += int(m.group(1))
    if measured != len(rows):
        raise Fail(f"{' '.join(opts)}: the counters file says {measured} launches measured, the report has "
                   f"{len(rows)} rows")
    return out, rows


def expect_rows(label, rows, want):
    """rows (kernel name start, grid) must be want's, in order."""
    got = [(short(r["kernel"]), grid_of(r["grid"])) for r in rows]
    if got != want:
        raise Fail(f"{label}: measured {got}, want {want}")
    print(f"ok: {label}: {len(rows)} launches, as selected")


# ------------------------------------------------------------------ native

def native_launches(iters, every, lo=0, hi=None):
    """(kernel, grid) of select_outputs' launches in iterations lo..hi-1 (sel_init before them)."""
    seq, hists = ([("sel_init", (8, 1, 1))] if lo == 0 and hi is None else []), 0
    for i in range(iters):
        inside = lo <= i < (hi if hi is not None else iters)
        if inside:
            seq.append(("sel_mix", (1 + i % 5, 1, 1)))
        if i % every == 0:
            if inside:
                seq.append(("sel_hist", (1 << (hists % 4), 1, 1)))
            hists += 1
    return seq


def check_native(prof, program, work):
    iters, every = 40, 4
    args = [program, "-n", str(iters), "--hist-every", str(every)]
    plain = run(args, "select_outputs alone")
    all_ = native_launches(iters, every)
    hist = [x for x in all_ if x[0] == "sel_hist"]
    ranged = native_launches(iters, every, 10, 20)
    cases = [
        ("all launches", [], args, all_),
        ("-k sel_hist --launch-count 2", ["-k", "sel_hist", "--launch-count", "2"], args, hist[:2]),
        ("-k sel_hist --launch-skip 3 --launch-count 2", ["-k", "sel_hist", "--launch-skip", "3", "--launch-count", "2"],
         args, hist[3:5]),
        ("--launches-per-kernel 2", ["--launches-per-kernel", "2"], args,
         [x for k, x in enumerate(all_) if [y[0] for y in all_[:k]].count(x[0]) < 2]),
        ("--profile-from-start off, iterations 10-19", ["--profile-from-start", "off"],
         args + ["--profile-range", "10:20"], ranged),
        ("--profile-from-start off -k sel_hist, iterations 10-19", ["--profile-from-start", "off", "-k", "sel_hist"],
         args + ["--profile-range", "10:20"], [x for x in ranged if x[0] == "sel_hist"]),
    ]
    fails = 0
    for n, (label, opts, program_args, want) in enumerate(cases):
        try:
            out, rows = profiled(prof, os.path.join(work, f"native{n}"), opts, program_args)
            if out != plain:
                raise Fail(f"{label}: the program printed {out.strip()!r}, alone {plain.strip()!r}")
            expect_rows(label, rows, want)
            for r in rows:
                if short(r["kernel"]) == "sel_hist" and jobs(r) != N_DATA / 32:
                    raise Fail(f"{label}: a sel_hist launch measured {r['jobs']} shared-atomic jobs, want {N_DATA // 32}")
        except Fail as e:
            print(f"FAIL: {e}")
            fails += 1
    return fails


# ------------------------------------------------------------------ train

def compare_checks(label, a_path, b_path):
    with open(a_path) as f:
        a = json.load(f)
    with open(b_path) as f:
        b = json.load(f)
    for key in ("hist_last", "hist_total"):
        if a[key] != b[key]:
            raise Fail(f"{label}: {key} differs from the plain run's")
    floats = [("loss", a["loss"], b["loss"])] + [(f"params {k}", x, y) for k in a["params"]
                                                   for x, y in zip(a["params"][k], b["params"].get(k, [None, None]))]
    for name, x, y in floats:
        if y is None or abs(x - y) > 1e-6 * max(abs(x), abs(y), 1e-30):
            raise Fail(f"{label}: {name} {y} against the plain run's {x}")
    same = all(x == y for _, x, y in floats)
    print(f"ok: {label}: outputs match the plain run's ({'bit for bit' if same else 'within 1e-6'})")


def check_train(prof, train_py, work):
    steps, every = 6, 2  # histograms at steps 0, 2, 4
    base_args = [sys.executable, train_py, "--steps", str(steps), "--hist-every", str(every)]
    plain_check = os.path.join(work, "plain.json")
    run(base_args + ["--check", plain_check], "train.py alone")

    def key(r):
        return (r["kernel"], grid_of(r["grid"]), grid_of(r["block"]))

    _, ref = profiled(prof, os.path.join(work, "train-all"), [], base_args + ["--check", os.path.join(work, "all.json")])
    compare_checks("all launches", plain_check, os.path.join(work, "all.json"))
    ref_keys = [key(r) for r in ref]
    hist = [k for k in ref_keys if "kernelHistogram1D" in k[0]]
    if len(hist) != 3:
        raise Fail(f"all launches: {len(hist)} kernelHistogram1D launches, want 3 (steps 0, 2, 4)")
    first = []
    for k in ref_keys:
        if k[0] not in [f[0] for f in first]:
            first.append(k)
    atomic = sorted({short(r["kernel"]) for r in ref if jobs(r) > 0})
    print(f"note: {len(ref)} launches of {len(first)} kernels; with shared-atomic jobs: {', '.join(atomic)}")
    cases = [
        ("-k kernelHistogram1D --launch-count 2", ["-k", "kernelHistogram1D", "--launch-count", "2"], [], hist[:2]),
        ("--launches-per-kernel 1", ["--launches-per-kernel", "1"], [], first),
        ("--profile-from-start off -k kernelHistogram1D, steps 2-4",
         ["--profile-from-start", "off", "-k", "kernelHistogram1D"], ["--profile-range", "2:5"], hist[1:]),
    ]
    fails = 0
    for n, (label, opts, extra, want) in enumerate(cases):
        try:
            check = os.path.join(work, f"train{n}.json")
            _, rows = profiled(prof, os.path.join(work, f"train{n}"), opts, base_args + extra + ["--check", check])
            got = [key(r) for r in rows]
            if got != want:
                raise Fail(f"{label}: measured {len(got)} launches {[g[0][:40] for g in got][:8]}..., want {len(want)} "
                           f"{[w[0][:40] for w in want][:8]}...")
            for r in rows:
                if "kernelHistogram1D" in r["kernel"] and not jobs(r) >= 2048 / 32:
                    raise Fail(f"{label}: a kernelHistogram1D launch measured {r['jobs']} shared-atomic jobs, "
                               f"want at least {2048 // 32}")
            print(f"ok: {label}: {len(rows)} launches, as selected")
            compare_checks(label, plain_check, check)
        except Fail as e:
            print(f"FAIL: {e}")
            fails += 1
    try:
        check_kept_modules(prof, base_args, work)
    except Fail as e:
        print(f"FAIL: {e}")
        fails += 1
    return fails


def check_kept_modules(prof, base_args, work):
    """-k with a plain identifier keeps only the modules that name it, and the selected kernel's code
    is still read (its launches priced by their opcodes); a -k that is not one keeps every module."""
    for label, regex, want_skip in (("identifier", "kernelHistogram1D", True), ("pattern", "kernelHisto.ram1D", False)):
        base = os.path.join(work, f"kept-{label}")
        check = base + ".json"
        run([prof, "-q", "--json", "-o", base, "-k", regex, "--launch-count", "1", "--"] + base_args +
            ["--check", check], f"atomutil-profile -k {regex} with its opcodes")
        with open(base + ".counters.csv", errors="replace") as f:
            line = next((ln for ln in f if " timing: modules " in ln), "")
        m = re.search(r" timing: modules kept=(\d+) mb=[0-9.]+ not_kept=(\d+)", line)
        if not m:
            raise Fail(f"-k {regex}: no modules timing line in {base}.counters.csv")
        kept, skipped = int(m.group(1)), int(m.group(2))
        if want_skip and not (kept >= 1 and skipped >= 1):
            raise Fail(f"-k {regex}: {kept} modules kept, {skipped} not kept; want the histogram's kept, others not")
        if not want_skip and skipped:
            raise Fail(f"-k {regex} (not an identifier): {skipped} modules not kept, want every one kept")
        with open(base + ".json") as f:
            launches = json.load(f)["launches"]
        if len(launches) != 1 or not launches[0].get("opcodes") or "opcodes" not in launches[0]["flags"]:
            raise Fail(f"-k {regex}: the measured launch's code was not read: {str(launches)[:300]}")
        print(f"ok: -k {regex}: {kept} modules kept, {skipped} not; the histogram's opcodes read "
              f"({launches[0]['opcodes'].get('classes')})")


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in ("native", "train"):
        print(__doc__, file=sys.stderr)
        return 2
    kind, prof, program, work = sys.argv[1:]
    try:
        gpu = subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
    except OSError:
        gpu = False
    if not gpu:
        print("no GPU: skipped")
        return 77
    os.makedirs(work, exist_ok=True)
    try:
        fails = check_native(prof, program, work) if kind == "native" else check_train(prof, program, work)
    except Fail as e:
        print(f"FAIL: {e}")
        return 1
    except FileNotFoundError as e:
        print(f"FAIL: {e}")
        return 1
    print("PASS" if fails == 0 else f"FAIL: {fails} selections")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
