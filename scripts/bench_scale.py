#!/usr/bin/env python3
"""The summary of scripts/bench_scale.sh from its output directory (docs/performance.md, "Scale"):

    python3 scripts/bench_scale.py DIR

Reads DIR/raw.csv (mode,rep,seconds,launches; modes plain, all, selected, capped and, when it ran,
counted), DIR/floor.txt
(scripts/cupti_floor.c's output) and DIR/check-MODE-REP.json (examples/python/train.py --check).
Prints per mode the runs, the median and range of their seconds and the launches measured; whether
each profiled run computed what the plain run of its rep did (histograms exactly, the loss and the
parameters' sums within 1e-6 relative); what atomutil itself added to each profiled mode's runs,
read from their timing-MODE-REP.txt as a range (its own callbacks, set-up and the CLI's time
outside the run; up to that plus the time inside the measured launches' driver calls), in
seconds and as a share of the median plain run (the wall-time pairs scatter more than that on a
shared machine); per profiled mode the median change of train.py's own seconds (its --check
file's "seconds": CUDA's start to the last result, without Python's start and imports) against
the plain run of its rep, where the check files have them; the counted mode's overhead; and last,
one line

    scale: launches L per-launch-ms X selected-overhead-pct Y capped-overhead-pct Z floor-ms F

L: the launches measured in mode all (median over its runs); X: the median over reps of
(all - plain) / L in ms; Y, Z: the medians over reps of (run - plain) / plain x 100 of modes
selected and capped; F: the floor program's per-launch-ms.  A figure without the runs it needs is
n/a.  Exits 1 when raw.csv is missing or malformed, or a profiled run's outputs differ.
"""
import csv
import json
import os
import re
import statistics
import sys

MODES = ("plain", "all", "selected", "capped", "counted")
SHOWN = MODES[:4]  # in the table even without runs; counted only when it ran


def fail(msg):
    print(f"bench_scale.py: {msg}", file=sys.stderr)
    sys.exit(1)


def read_raw(d):
    """{mode: {rep: (seconds, launches or None)}}"""
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
                runs[mode][rep] = (sec, n)
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    return runs


def floor_ms(d):
    try:
        with open(os.path.join(d, "floor.txt")) as f:
            m = re.search(r"^floor: per-launch-ms ([0-9.]+) ", f.read(), re.M)
    except OSError:
        return None
    return float(m.group(1)) if m else None


TIMING = re.compile(r"^atomutil-profile: timing: (total|run|setup|launch-callbacks|module-loads) ([0-9.]+) s", re.M)
DRIVER = re.compile(r"^==ATOMUTIL== [0-9]+ info: timing driver: ([0-9.]+) s inside measured launches", re.M)


def added_seconds(d, mode, reps):
    """What atomutil added to each run of mode, from its --timing lines (timing-MODE-REP.txt), as
    (low, high) pairs: low = the injection library's launch callbacks and module loads and the
    CLI's time outside the program's run (total - run); a context's set-up is inside the launch
    callbacks when a launch makes it, and beside the program when it is made early, so its line is
    not added; high = low + the time inside the
    measured launches' driver calls (auto range serializes each kernel there: the kernel's own run,
    which a plain run overlaps with the program's work, and the counters' collection).  Runs
    without all five figures are left out."""
    out = []
    for rep in sorted(reps):
        try:
            with open(os.path.join(d, f"timing-{mode}-{rep}.txt")) as f:
                text = f.read()
            t = {k: float(v) for k, v in TIMING.findall(text)}
            driver = sum(float(v) for v in DRIVER.findall(text))
        except (OSError, ValueError):
            continue
        if len(t) == 5:
            low = t["total"] - t["run"] + t["launch-callbacks"] + t["module-loads"]
            out.append((low, low + driver))
    return out


def program_seconds(d, mode, rep):
    """train.py's own seconds (setup + loop) of a run, from its --check file; None without them."""
    try:
        with open(os.path.join(d, f"check-{mode}-{rep}.json")) as f:
            s = json.load(f).get("seconds")
        return float(s["setup"]) + float(s["loop"])
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None


def in_program(d, runs):
    """Per profiled mode, "MODE P %": the median over reps of (t - plain) / plain in % of the
    program's own seconds; modes without such pairs are left out."""
    out = []
    for mode in MODES[1:]:
        pcts = []
        for rep in sorted(runs[mode]):
            a, b = program_seconds(d, "plain", rep), program_seconds(d, mode, rep)
            if a and b is not None:
                pcts.append((b - a) / a * 100)
        if pcts:
            out.append(f"{mode} {med(pcts):.1f} % ({len(pcts)} pairs)")
    return out


def outputs_differ(d, runs):
    """Lines naming the profiled runs whose --check file differs from their rep's plain run's."""
    bad = []
    for mode in MODES[1:]:
        for rep in sorted(runs[mode]):
            try:
                with open(os.path.join(d, f"check-plain-{rep}.json")) as f:
                    a = json.load(f)
                with open(os.path.join(d, f"check-{mode}-{rep}.json")) as f:
                    b = json.load(f)
            except (OSError, ValueError):
                continue  # no plain run in this rep: nothing to compare
            pairs = [(a["loss"], b["loss"])] + [xy for k in a["params"] for xy in zip(a["params"][k], b["params"][k])]
            if a["hist_total"] != b["hist_total"] or any(abs(x - y) > 1e-6 * max(abs(x), abs(y), 1e-30) for x, y in pairs):
                bad.append(f"{mode} rep {rep}: outputs differ from the plain run's (loss {b['loss']} against {a['loss']})")
    return bad


def med(values):
    return statistics.median(values) if values else None


def fmt(v, digits):
    return "n/a" if v is None else f"{v:.{digits}f}"


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    d = sys.argv[1]
    runs = read_raw(d)
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
    plain = runs["plain"]
    launches = med([n for _, n in runs["all"].values() if n])
    per = med([(s - plain[r][0]) / n * 1e3 for r, (s, n) in runs["all"].items() if r in plain and n])

    def overhead(mode):
        return med([(s - plain[r][0]) / plain[r][0] * 100 for r, (s, _) in runs[mode].items() if r in plain])

    bad = outputs_differ(d, runs)
    for line in bad:
        print(f"outputs: {line}")
    if not bad:
        print("outputs: every profiled run computed what the plain run of its rep did")
    plain_med = med([s for s, _ in plain.values()])
    added = []
    for mode in MODES[1:]:
        pairs = added_seconds(d, mode, runs[mode])
        if pairs:
            lo, hi = med([p[0] for p in pairs]), med([p[1] for p in pairs])
            pct = f" ({lo / plain_med * 100:.1f}-{hi / plain_med * 100:.1f} %)" if plain_med else ""
            added.append(f"{mode} {lo:.2f}-{hi:.2f} s{pct}")
    if added:
        print("added by atomutil, from the --timing lines (medians; % of the median plain run): " + ", ".join(added))
    inside = in_program(d, runs)
    if inside:
        print("in the program (train.py's own clock from CUDA's start to its last result, Python's start and "
              "imports left out; medians of (run - plain) / plain): " + ", ".join(inside))
    if runs["counted"]:
        print(f"counted (-k kernelHistogram1D --launch-count 2): overhead-pct {fmt(overhead('counted'), 1)}")
    print(f"scale: launches {fmt(launches, 0)} per-launch-ms {fmt(per, 2)} selected-overhead-pct "
          f"{fmt(overhead('selected'), 1)} capped-overhead-pct {fmt(overhead('capped'), 1)} floor-ms {fmt(floor_ms(d), 3)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
