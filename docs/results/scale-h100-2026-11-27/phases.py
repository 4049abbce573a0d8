#!/usr/bin/env python3
"""Where a profiled run's extra wall time falls, per bench directory: medians over its reps of
(mode - plain) for the wall clock and for train.py's phases (its --check file's "seconds"):
setup (CUDA's start to the model built), loop (the 20 steps), step0 (the first step alone), and
outside = wall - setup - loop (Python's start and imports, the exit, atomutil-profile's own time);
loop and loop + setup as % of the directory's median plain run; the pairs' wall-clock spread
(min, max and interquartile range of mode - plain around the mode's median), per directory and
pooled over the directories given; and, over the selected runs of all directories, the median
and range of the timing lines' launch callbacks, first Start, module loads and driver time.

    python3 phases.py DIR [DIR ...]
"""
import csv
import glob
import json
import re
import statistics as st
import sys


def spread(v):
    q = st.quantiles(v, n=4)
    return f"min {min(v):+.2f} max {max(v):+.2f} iqr {q[2] - q[0]:.2f}"


pooled = {}
for d in sys.argv[1:]:
    with open(f"{d}/raw.csv", newline="") as f:
        wall = {(r["mode"], r["rep"]): float(r["seconds"]) for r in csv.DictReader(f)}
    ph = {}
    for (m, rep), s in wall.items():
        try:
            with open(f"{d}/check-{m}-{rep}.json") as f:
                j = json.load(f)["seconds"]
        except (OSError, ValueError, KeyError):
            continue
        ph[(m, rep)] = (s, j["setup"], j["loop"], j["steps"][0], s - j["setup"] - j["loop"])
    p = [v for (m, _), v in ph.items() if m == "plain"]
    pmed = st.median(v[0] for v in p)
    print(f"{d} plain ({len(p)} runs, medians s): wall %.2f setup %.2f loop %.3f step0 %.3f outside %.2f"
          % tuple(st.median(c) for c in zip(*p)))
    for mode in sorted({m for m, _ in ph} - {"plain"}):
        rows = [[a - b for a, b in zip(v, ph[("plain", rep)])] for (m, rep), v in ph.items()
                if m == mode and ("plain", rep) in ph]
        med = [st.median(c) for c in zip(*rows)]
        print(f"{d} {mode} - plain ({len(rows)} pairs, medians s): wall %+.3f setup %+.3f loop %+.3f step0 %+.3f outside %+.3f"
              % tuple(med) + f"; loop {med[2] / pmed * 100:+.1f} %, loop + setup {(med[2] + med[1]) / pmed * 100:+.1f} %")
        dw = [r[0] for r in rows]
        centered = [x - st.median(dw) for x in dw]
        print(f"{d} {mode} - plain wall, around its median: {spread(centered)}" if len(dw) >= 2 else "")
        pooled.setdefault(mode, []).extend(centered)
for mode, v in sorted(pooled.items()):
    if len(v) >= 2:
        print(f"pooled {mode} - plain wall, around each directory's median ({len(v)} pairs): {spread(v)}")
both = pooled.get("selected", []) + pooled.get("capped", [])
if len(both) >= 2:
    print(f"pooled selected and capped ({len(both)} pairs): {spread(both)}")
text = "".join(open(f).read() for d in sys.argv[1:] for f in glob.glob(f"{d}/timing-selected-[0-9]*.txt"))
for name, pat in (("launch callbacks", r"timing: launch-callbacks ([0-9.]+)"), ("first Start", r"([0-9.]+) s starting"),
                  ("module loads", r"timing: module-loads ([0-9.]+)"), ("driver", r"timing driver: ([0-9.]+)")):
    v = [float(x) for x in re.findall(pat, text)]
    if v:
        print(f"selected runs' {name}: median {st.median(v):.3f} s, {min(v):.3f}-{max(v):.3f} ({len(v)} runs)")
