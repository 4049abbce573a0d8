#!/usr/bin/env python3
"""The summary of bench/bench_scale.sh from its output directory (docs/performance.md, "Scale"):

    python3 bench/bench_scale.py DIR [DIR ...]

Reads DIR/raw.csv (mode,rep,seconds,launches[,gpu]; modes plain, all, selected, capped and, when
they ran, counted and control: the plain program again, an A/A pair whose change is chance alone),
DIR/env.txt (a "parallel:" line when the modes of a rep ran at once), DIR/floor.txt
(bench/cupti_floor.c's output) and DIR/check-MODE-REP.json (examples/python/train.py --check).
Prints, when a DIR ran --parallel, how each DIR's reps ran; per mode the runs, the median and range
of their seconds and the launches measured; whether each profiled run computed what the plain run
of its rep did (histograms exactly, the loss and the parameters' sums within 1e-6 relative); what atomutil itself added to each profiled mode's runs,
read from their timing-MODE-REP.txt as a range (its own callbacks, set-up and the CLI's time
outside the run; up to that plus the time inside the measured launches' driver calls), in
seconds and as a share of the median plain run (the wall-time pairs scatter more than that on a
shared machine); per profiled mode the median change of train.py's own seconds (its --check
file's "seconds": CUDA's start to the last result, without Python's start and imports) against
the plain run of its rep, where the check files have them, and where they hold each step's end,
the median change of the first step (where the one-time costs land: CUDA's lazy module loads, the
profiler's first start) and of each later step; the median wall-clock change of each profiled mode
with its distribution-free 95 % interval (the median's order statistics; "no interval" below 6
pairs); the counted mode's overhead; and last, one line

    scale: launches L per-launch-ms X selected-overhead-pct Y capped-overhead-pct Z floor-ms F

L: the launches measured in mode all (median over its runs); X: the median over reps of
(all - plain) / L in ms; Y, Z: the medians over reps of (run - plain) / plain x 100 of modes
selected and capped; F: the floor program's per-launch-ms.  A figure without the runs it needs is
n/a.  With several DIRs (runs of one code on one GPU model), their pairs are pooled: a rep is
paired only with the plain run of its own DIR, and F is the median of the DIRs' floors.  Exits 1
when raw.csv is missing or malformed, or a profiled run's outputs differ.
"""
import csv
import json
import math
import os
import re
import statistics
import sys

MODES = ("plain", "all", "selected", "capped", "counted", "control")
SHOWN = MODES[:4]  # in the table even without runs; counted and control only when they ran


def fail(msg):
    print(f"bench_scale.py: {msg}", file=sys.stderr)
    sys.exit(1)


def read_raw(d, i=0):
    """{mode: {(i, rep): (seconds, launches or None)}}: a rep's key holds its directory's index"""
    path = os.path.join(d, "raw.csv")
    runs = {m: {} for m in MODES}
    try:
        with open(path, newline="") as f:
            for line, r in enumerate(csv.DictReader(f), start=2):
                try:
                    mode, rep, sec = r["mode"], int(r["rep"]), float(r["seconds"])
                    n = int(r["launches"]) if r["launches"] else None
                except (KeyError, TypeError, ValueError):
                    fail(f"{path}:{line}: malformed row {r}")
                if mode not in runs:
                    fail(f"{path}:{line}: unknown mode {mode!r}")
                runs[mode][(i, rep)] = (sec, n)
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    return runs


def file_match(d, name, pattern):
    """The first group of pattern's first match (a line) in DIR/name, or None"""
    try:
        with open(os.path.join(d, name)) as f:
            m = re.search(pattern, f.read(), re.M)
    except OSError:
        return None
    return m.group(1) if m else None


def parallel_line(d):
    """env.txt's "parallel: ..." line of a --parallel run, or None"""
    return file_match(d, "env.txt", r"^parallel: (.*)$")


def floor_ms(d):
    v = file_match(d, "floor.txt", r"^floor: per-launch-ms ([0-9.]+) ")
    return float(v) if v else None


TIMING = re.compile(r"^atomutil-profile: timing: (total|run|setup|launch-callbacks|module-loads) ([0-9.]+) s", re.M)
# the injection library's driver seconds: key=value timing lines (profile/import/cf_timing.def), or the
# free text of counters files written before them
DRIVER = re.compile(r"^==ATOMUTIL== [0-9]+ (?:timing: driver driver_s=|info: timing driver: )([0-9.]+)", re.M)


def path_of(dirs, key, what, mode):
    """DIR/WHAT-MODE-REP.EXT of the run with key (dir index, rep)"""
    i, rep = key
    ext = "json" if what == "check" else "txt"
    return os.path.join(dirs[i], f"{what}-{mode}-{rep}.{ext}")


def added_seconds(dirs, mode, keys):
    """What atomutil added to each run of mode, from its --timing lines (timing-MODE-REP.txt), as
    (low, high) pairs: low = the injection library's launch callbacks and module loads and the
    CLI's time outside the program's run (total - run); a context's set-up is inside the launch
    callbacks when a launch makes it, and beside the program when it is made early, so its line is
    not added; high = low + the time inside the
    measured launches' driver calls (auto range serializes each kernel there: the kernel's own run,
    which a plain run overlaps with the program's work, and the counters' collection).  Runs
    without all five figures are left out."""
    out = []
    for key in sorted(keys):
        try:
            with open(path_of(dirs, key, "timing", mode)) as f:
                text = f.read()
            t = {k: float(v) for k, v in TIMING.findall(text)}
            driver = sum(float(v) for v in DRIVER.findall(text))
        except (OSError, ValueError):
            continue
        if len(t) == 5:
            low = t["total"] - t["run"] + t["launch-callbacks"] + t["module-loads"]
            out.append((low, low + driver))
    return out


def program_seconds(dirs, mode, key):
    """train.py's own seconds of a run from its --check file, {"setup", "loop", "steps"} (steps
    only where the file has them); None without setup and loop."""
    try:
        with open(path_of(dirs, key, "check", mode)) as f:
            s = json.load(f).get("seconds")
        out = {"setup": float(s["setup"]), "loop": float(s["loop"])}
        if isinstance(s.get("steps"), list) and len(s["steps"]) >= 2:
            out["steps"] = [float(v) for v in s["steps"]]
        return out
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None


def in_program(dirs, runs):
    """Per profiled mode, "MODE P %": the median over reps of (t - plain) / plain in % of the
    program's own seconds (setup + loop); and per mode with steps in both check files,
    "MODE first +A s, later +B ms each": the median change of the first step and of the mean of
    the later steps.  Modes without such pairs are left out."""
    total, steps = [], []
    for mode in MODES[1:]:
        pcts, first, later = [], [], []
        for key in sorted(runs[mode]):
            a, b = program_seconds(dirs, "plain", key), program_seconds(dirs, mode, key)
            if not a or not b:
                continue
            ta, tb = a["setup"] + a["loop"], b["setup"] + b["loop"]
            if ta > 0:
                pcts.append((tb - ta) / ta * 100)
            sa, sb = a.get("steps"), b.get("steps")
            if sa and sb and len(sa) == len(sb):
                first.append(sb[0] - sa[0])
                later.append(((sb[-1] - sb[0]) - (sa[-1] - sa[0])) / (len(sa) - 1))
        if pcts:
            total.append(f"{mode} {med(pcts):.1f} % ({len(pcts)} pairs)")
        if first:
            steps.append(f"{mode} first {med(first):+.3f} s, later {med(later) * 1e3:+.2f} ms each ({len(first)} pairs)")
    return total, steps


def outputs_differ(dirs, runs):
    """Lines naming the profiled runs whose --check file differs from their rep's plain run's."""
    bad = []
    for mode in MODES[1:]:
        for key in sorted(runs[mode]):
            try:
                with open(path_of(dirs, key, "check", "plain")) as f:
                    a = json.load(f)
                with open(path_of(dirs, key, "check", mode)) as f:
                    b = json.load(f)
            except (OSError, ValueError):
                continue  # no plain run in this rep: nothing to compare
            pairs = [(a["loss"], b["loss"])] + [xy for k in a["params"] for xy in zip(a["params"][k], b["params"][k])]
            if a["hist_total"] != b["hist_total"] or any(abs(x - y) > 1e-6 * max(abs(x), abs(y), 1e-30) for x, y in pairs):
                where = f"{dirs[key[0]]} " if len(dirs) > 1 else ""
                bad.append(f"{where}{mode} rep {key[1]}: outputs differ from the plain run's (loss {b['loss']} against {a['loss']})")
    return bad


def median_interval(values):
    """The distribution-free 95 % interval of the median: the order statistics j and n + 1 - j
    (1-based) with j the largest rank whose binomial tail P(Bin(n, 1/2) < j) stays <= 2.5 %;
    None below 6 values, where no such j exists."""
    n = len(values)
    j, tail = 0, 0.0
    while True:
        nxt = tail + math.comb(n, j) / 2**n  # P(Bin(n, 1/2) <= j) = P(< j + 1)
        if nxt > 0.025:
            break
        tail, j = nxt, j + 1
    if j == 0:
        return None
    v = sorted(values)
    return v[j - 1], v[n - j]


def med(values):
    return statistics.median(values) if values else None


def fmt(v, digits):
    return "n/a" if v is None else f"{v:.{digits}f}"


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    dirs = sys.argv[1:]
    runs = {m: {} for m in MODES}
    for i, d in enumerate(dirs):
        for mode, reps in read_raw(d, i).items():
            runs[mode].update(reps)
    print("| mode | runs | median s | min-max s | launches measured |")
    print("|---|---|---|---|---|")
    for mode in MODES:
        if mode not in SHOWN and not runs[mode]:
            continue
        secs = [s for s, _ in runs[mode].values()]
        ns = sorted({n for _, n in runs[mode].values() if n is not None})
        if secs:
            print(f"| {mode} | {len(secs)} | {med(secs):.2f} | {min(secs):.2f}-{max(secs):.2f} | "
                  f"{', '.join(map(str, ns)) or '-'} |")
        else:
            print(f"| {mode} | 0 | - | - | - |")
    par = [(d, parallel_line(d)) for d in dirs]
    if any(p for _, p in par):
        for d, p in par:
            print(f"design: {d}: " + (p if p else "the modes of a rep one after the other"))
    plain = runs["plain"]
    launches = med([n for _, n in runs["all"].values() if n])
    per = med([(s - plain[r][0]) / n * 1e3 for r, (s, n) in runs["all"].items() if r in plain and n])

    def pcts(mode):
        return [(s - plain[r][0]) / plain[r][0] * 100 for r, (s, _) in runs[mode].items() if r in plain]

    bad = outputs_differ(dirs, runs)
    for line in bad:
        print(f"outputs: {line}")
    if not bad:
        print("outputs: every profiled run computed what the plain run of its rep did")
    plain_med = med([s for s, _ in plain.values()])
    added = []
    for mode in MODES[1:]:
        pairs = added_seconds(dirs, mode, runs[mode])
        if pairs:
            lo, hi = med([p[0] for p in pairs]), med([p[1] for p in pairs])
            pct = f" ({lo / plain_med * 100:.1f}-{hi / plain_med * 100:.1f} %)" if plain_med else ""
            added.append(f"{mode} {lo:.2f}-{hi:.2f} s{pct}")
    if added:
        print("added by atomutil, from the --timing lines (medians; % of the median plain run): " + ", ".join(added))
    total, steps = in_program(dirs, runs)
    if total:
        print("in the program (train.py's own clock from CUDA's start to its last result, Python's start and "
              "imports left out; medians of (run - plain) / plain): " + ", ".join(total))
    if steps:
        print("in the program, by step (medians of run - plain): " + ", ".join(steps))
    walls = []
    for mode in MODES[1:]:
        v = pcts(mode)
        if v:
            ci = median_interval(v)
            within = f"95 % interval {ci[0]:.1f} to {ci[1]:.1f}" if ci else "no interval"
            walls.append(f"{mode} {med(v):.1f} % ({within}, {len(v)} pairs)")
    if walls:
        print("wall clock, medians of (run - plain) / plain: " + ", ".join(walls))
    if runs["counted"]:
        print(f"counted (-k kernelHistogram1D --launch-count 2): overhead-pct {fmt(med(pcts('counted')), 1)}")
    floor = med([f for f in map(floor_ms, dirs) if f is not None])
    print(f"scale: launches {fmt(launches, 0)} per-launch-ms {fmt(per, 2)} selected-overhead-pct "
          f"{fmt(med(pcts('selected')), 1)} capped-overhead-pct {fmt(med(pcts('capped')), 1)} floor-ms {fmt(floor, 3)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
