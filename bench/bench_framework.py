#!/usr/bin/env python3
"""The table of bench/bench_framework.sh from its raw files (docs/performance.md):

    python3 bench/bench_framework.py DIR

For every target (DIR/raw-<target>.csv: target,rep,mode,seconds,rc,launches) and every rep, the
overhead of atomutil-profile over the plain run divided by ncu's over the same plain run,
(atomutil - plain) / (ncu - plain); per target the median of those ratios over all reps, and
the cold run's (rep 0: empty listing cache) alone, and from atomutil's --timing lines
(DIR/timing-<target>-<rep>.txt) the fixed start (the profiler's setup per process) and the cost per
measured launch ((time in the launch callbacks - setup) / launches), medians over the reps.  The last line
is `summary: worst ratio R`, R the largest per-target median ratio.  Exits 1 when a run failed or
a file is malformed.
"""
import csv
import glob
import os
import re
import statistics
import sys


def fail(msg):
    print(f"bench_framework.py: {msg}", file=sys.stderr)
    sys.exit(1)


def timing(path):
    """(setup seconds, callback seconds, launches) from one run's --timing output, or None."""
    setup = cb = n = None
    try:
        text = open(path).read()
    except OSError:
        return None
    # key=value timing lines (profile/import/cf_timing.def), or the free text of earlier counters files
    s = [float(x) for x in re.findall(r"info: timing: setup ([0-9.]+) s", text)]
    s += [float(x) for x in re.findall(r"timing: setup [^\n]*\bs=([0-9.]+)", text)]
    if s:
        setup = sum(s)
    m = re.findall(r"info: timing: (\d+) launches measured, ([0-9.]+) s in launch callbacks", text)
    m += re.findall(r"timing: launches measured=(\d+) callbacks_s=([0-9.]+)", text)
    if m:
        n = sum(int(a) for a, _ in m)
        cb = sum(float(b) for _, b in m)
    return setup, cb, n


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    d = sys.argv[1]
    files = sorted(glob.glob(os.path.join(d, "raw-*.csv")))
    if not files:
        fail(f"no raw-*.csv in {d}")
    env = open(os.path.join(d, "env.txt")).read().splitlines() if os.path.exists(os.path.join(d, "env.txt")) else []
    print(f"GPU: {env[0] if env else 'unknown'}")
    print()
    print("| target | launches | reps | plain s | atomutil s | ncu s | ratio median | ratio min-max | cold run ratio "
          "| fixed start s | per launch ms |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    worst = None
    for f in files:
        rows = {}
        with open(f, newline="") as fh:
            for r in csv.DictReader(fh):
                try:
                    rep, sec, rc = int(r["rep"]), float(r["seconds"]), int(r["rc"])
                except (KeyError, ValueError):
                    fail(f"{f}: malformed row {r}")
                if rc != 0:
                    fail(f"{f}: {r['mode']} run {rep} exited {rc}")
                rows.setdefault(rep, {})[r["mode"]] = (sec, r.get("launches") or "")
                target = r["target"]
        reps = sorted(k for k, v in rows.items() if {"plain", "atomutil", "ncu"} <= v.keys())
        if not reps:
            fail(f"{f}: no complete rep")
        ratios, plain, au, nc, setups, per = [], [], [], [], [], []
        for k in reps:
            p, a, n = rows[k]["plain"][0], rows[k]["atomutil"][0], rows[k]["ncu"][0]
            plain.append(p), au.append(a), nc.append(n)
            ratios.append((a - p) / (n - p) if n > p else float("inf"))
            t = timing(os.path.join(d, f"timing-{target}-{k}.txt"))
            if t and t[0] is not None:
                setups.append(t[0])
            if t and t[1] is not None and t[2]:
                # the launch callbacks include the setup (made at the first launch)
                per.append((t[1] - (t[0] or 0)) / t[2] * 1e3)
        med = statistics.median(ratios)
        launches = rows[reps[0]]["atomutil"][1]
        worst = med if worst is None or med > worst else worst
        fmt = lambda v: f"{statistics.median(v):.2f}" if v else "n/a"
        print(f"| {target} | {launches} | {len(ratios)} | {fmt(plain)} | {fmt(au)} | {fmt(nc)} | {med:.2f} "
              f"| {min(ratios):.2f}-{max(ratios):.2f} | {ratios[0]:.2f} | {fmt(setups)} "
              f"| {(f'{statistics.median(per):.1f}' if per else 'n/a')} |")
    print()
    print("ratio = (atomutil - plain) / (ncu - plain) of one pair of runs; median over all reps, the "
          "first (cold run: an empty listing cache) included and also shown alone; fixed start = the injection's setup per process; per launch = "
          "(time in the launch callbacks - fixed start) / launches measured.")
    print(f"summary: worst ratio {worst:.2f}")


if __name__ == "__main__":
    main()
