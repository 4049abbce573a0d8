#!/usr/bin/env python3
"""What the advisor's time model leaves out on short launches (issue 37; docs/advisor.md, "Kernel
time"), from the re-imported reports of a kept run of the advisor pairs at several sizes (no GPU):

    tar -xJf docs/results/advisor-reps15-h200-2026-11-29/data.tar.xz -C TMP     (run-c/)
    for n in 2097152 4194304 8388608 16777216; do
        build/bin/atomutil-profile -q --csv --import TMP/run-c/adv_$n.counters.csv > DIR/adv_$n.csv; done
    probes/advisor_time_terms.py DIR docs/results/advisor-reps15-h200-2026-11-29/pairs.csv

Prints four parts:
  duration   the least-squares fit duration_ns = o + T_max / f over every launch (T_max the
             busiest SM's active cycles), its median and 90th-percentile relative residual:
             a launch's time beyond the SMs' work is a constant, not a share of it;
  spread     per size, how far a kernel's timed launches spread (max / min - 1 of the durations
             after its first launch): the median and the largest over the kernels;
  per kernel the intercept F of its active cycles per SM against its jobs per SM between the two
             smallest sizes (L2-resident inputs, one cost per job): cycles the kernel spends
             whatever its jobs (its start and end), which the time model reads as work between
             the atomics, and U = B / T at the smallest size;
  scores     validation/advisor.py over all sizes with the advisor's what-if times as they are
             (each scaled by the launch's ns per active cycle) and again with the exact
             conversion, time' = duration - (T - T') x (T_max / T) / f: the constant no longer
             scales with the cure.
"""
import csv
import glob
import os
import re
import statistics
import subprocess
import sys
import tempfile


def rows_of(path):
    return list(csv.DictReader(open(path, newline="")))


def num(r, c):
    try:
        return float(r[c])
    except (KeyError, TypeError, ValueError):
        return None


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: advisor_time_terms.py DIR PAIRS_CSV")
    d, pairs = sys.argv[1:3]
    files = sorted(glob.glob(os.path.join(d, "adv_*.csv")), key=lambda p: int(re.sub(r"\D", "", os.path.basename(p))))
    if len(files) < 2:
        sys.exit("advisor_time_terms: DIR needs the adv_N.csv of two sizes or more")
    runs = {int(re.sub(r"\D", "", os.path.basename(p))): rows_of(p) for p in files}

    # duration = o + T_max / f over all launches
    pts = [(num(r, "active_cycles_max"), num(r, "duration_ns")) for rs in runs.values() for r in rs]
    pts = [(x, y) for x, y in pts if x and y]
    mx, my = statistics.fmean(x for x, _ in pts), statistics.fmean(y for _, y in pts)
    b = sum((x - mx) * (y - my) for x, y in pts) / sum((x - mx) ** 2 for x, _ in pts)
    o = my - b * mx
    res = sorted(abs(y - o - b * x) / y for x, y in pts)
    f = 1 / b
    print("duration: launches %d duration_ns = %.0f + T_max / %.3f GHz, residual median %.2f %% 90th %.2f %%"
          % (len(pts), o, f, 100 * res[len(res) // 2], 100 * res[int(0.9 * len(res))]))

    # per size: how far a kernel's timed launches (those after its first) spread, max / min - 1
    print("\nspread of a kernel's timed launches (max / min - 1 of its durations after the first launch):")
    for n, rs in sorted(runs.items()):
        per = {}
        for r in rs:
            per.setdefault(r["kernel"].split("(")[0], []).append(num(r, "duration_ns"))
        sp = sorted(max(v[1:]) / min(v[1:]) - 1 for v in per.values() if len(v) > 2 and all(v))
        print("  %d elements: kernels %d launches each %d, median %.1f %%, largest %.1f %%"
              % (n, len(sp), max(len(v) for v in per.values()) - 1, 100 * statistics.median(sp), 100 * sp[-1]))

    # per kernel: F between the two smallest sizes (medians of the launches after the first)
    n1, n2 = sorted(runs)[:2]
    med = {}
    for n in (n1, n2):
        per = {}
        for r in runs[n]:
            per.setdefault(r["kernel"].split("(")[0], []).append(r)
        for k, rs in per.items():
            rs = rs[1:] or rs
            med[(k, n)] = tuple(statistics.median(num(r, c) for r in rs) for c in ("jobs_per_sm", "active_cycles",
                                                                                   "busy_cycles"))
    print("\nper kernel (sizes %d and %d): F = active cycles per SM at 0 jobs, slope = cycles per job" % (n1, n2))
    print("  %-30s %8s %8s %8s %6s" % ("kernel", "F", "slope", "T", "U"))
    for k in sorted({k for k, _ in med}):
        if (k, n1) not in med or (k, n2) not in med:
            continue
        (j1, t1, b1), (j2, t2, _) = med[(k, n1)], med[(k, n2)]
        if j2 == j1:
            continue
        s = (t2 - t1) / (j2 - j1)
        print("  %-30s %8.0f %8.2f %8.0f %6.2f" % (k[:30], t1 - s * j1, s, t1, b1 / t1 if t1 else 0))

    # scores: as they are, and with the exact conversion
    with tempfile.TemporaryDirectory() as tmp:
        given, exact = [], []
        for n, rs in sorted(runs.items()):
            out = os.path.join(tmp, "adv_%d.csv" % n)
            hdr = list(rs[0].keys())
            with open(out, "w", newline="") as g:
                w = csv.DictWriter(g, fieldnames=hdr)
                w.writeheader()
                for r in rs:
                    r = dict(r)
                    dur, T, Tm = num(r, "duration_ns"), num(r, "active_cycles"), num(r, "active_cycles_max")
                    if dur and T and Tm:
                        for c in hdr:
                            v = num(r, c)
                            if c.startswith("whatif_") and c.endswith("_ns") and v is not None:
                                tp = v * T / dur  # the what-if's active cycles (the advisor scales by dur / T)
                                r[c] = "%.1f" % max(dur - (T - tp) * (Tm / T) / f, 0)
                    w.writerow(r)
            given += [os.path.join(d, "adv_%d.csv" % n), pairs]
            exact += [out, pairs]
        here = os.path.dirname(os.path.abspath(__file__))
        adv = os.path.join(here, "..", "validation", "advisor.py")
        for label, a in (("as the advisor converts", given), ("exact conversion", exact)):
            r = subprocess.run([sys.executable, adv] + a, capture_output=True, text=True)
            if r.returncode:
                sys.exit("advisor_time_terms: advisor.py failed: " + r.stderr.strip())
            print("\nscores, %s:" % label)
            print("\n".join(l for l in r.stdout.splitlines() if l.startswith("advisor:")))


if __name__ == "__main__":
    main()
