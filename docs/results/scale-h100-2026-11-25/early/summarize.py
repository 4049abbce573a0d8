#!/usr/bin/env python3
"""Pairs of early/ (run.sh): per rep, the early set-up on (S) minus off (SE), from train.py's own clock
(c-MODE-REP.json) and the wall clock (k.csv).  Run in this directory."""
import csv
import json
import statistics as st

wall = {(m, int(r)): float(t) for m, r, t, rc in csv.reader(open("k.csv")) if rc == "0"}


def sec(m, r):
    try:
        with open(f"c-{m}-{r}.json") as f:
            return json.load(f)["seconds"]
    except (OSError, ValueError, KeyError):
        return None


reps = sorted({r for _, r in wall})
d = {"setup": [], "first step": [], "loop": [], "wall": []}
for r in reps:
    a, b = sec("S", r), sec("SE", r)
    if not a or not b or ("S", r) not in wall or ("SE", r) not in wall:
        continue
    d["setup"].append(a["setup"] - b["setup"])
    d["first step"].append(a["steps"][0] - b["steps"][0])
    d["loop"].append(a["loop"] - b["loop"])
    d["wall"].append(wall[("S", r)] - wall[("SE", r)])
for k, v in d.items():
    print(f"{k}: on - off median {st.median(v):+.3f} s over {len(v)} pairs; sorted {[round(x, 2) for x in sorted(v)]}")
