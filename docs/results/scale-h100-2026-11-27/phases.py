#!/usr/bin/env python3
"""Where a profiled run's extra wall time falls, per bench directory: medians over its reps of
(mode - plain) for the wall clock and for train.py's phases (its --check file's "seconds"):
setup (CUDA's start to the model built), loop (the 20 steps), step0 (the first step alone), and
outside = wall - setup - loop (Python's start and imports, the exit, atomutil-profile's own time).

    python3 phases.py DIR [DIR ...]
"""
import csv
import json
import statistics as st
import sys

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
    print(f"{d} plain ({len(p)} runs, medians s): wall %.2f setup %.2f loop %.3f step0 %.3f outside %.2f"
          % tuple(st.median(c) for c in zip(*p)))
    for mode in sorted({m for m, _ in ph} - {"plain"}):
        rows = [[a - b for a, b in zip(v, ph[("plain", rep)])] for (m, rep), v in ph.items()
                if m == mode and ("plain", rep) in ph]
        print(f"{d} {mode} - plain ({len(rows)} pairs, medians s): wall %+.3f setup %+.3f loop %+.3f step0 %+.3f outside %+.3f"
              % tuple(st.median(c) for c in zip(*rows)))
