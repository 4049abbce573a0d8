#!/usr/bin/env python3
"""Cuts the recorded counters of the test's results directory out of a real run (run once; the
output is committed in data/): the launches of six points of tests/data/opcodes/
validation-h200.counters.csv (a live H200 run of build/bin/validation --mode profile, 90 points,
kernel code in validation-h200.cubins/), renumbered from 0, with the ==ATOMUTIL== lines of the
kernels they use and those kernels' listings.  vtime.csv, vop_points.csv, unit_bound.csv and
table.csv of data/ are written by hand (README.md).

usage: make_data.py REPO_ROOT OUT_DIR
"""
import csv
import os
import shutil
import sys

# (seq of the original launch list, i.e. counters ID - 1) of each point's warm, full, atom launch
POINTS = {4: 12, 10: 30, 16: 48, 45: 135, 48: 144, 59: 177}
# values changed by hand (README.md): (new launch ID, metric) -> value.  add_d8_L32's atomics-only
# launch gets active cycles that make its wavefront rate 602112 / 672532.5 = 0.895 (real 0.995),
# so that with its unit_bound ratio of 0.899 it is not shown to be bound and is excluded.
OVERRIDE = {("6", "sm__cycles_active.avg"): "672532.5"}


def main():
    root, out = sys.argv[1], sys.argv[2]
    src = os.path.join(root, "tests", "data", "opcodes", "validation-h200.counters.csv")
    keep = ["0"] + [str(s + 1 + k) for s in POINTS.values() for k in range(3)]
    newid = {old: str(i) for i, old in enumerate(keep)}
    with open(src, newline="") as f:
        lines = f.readlines()
    header, rows, kernels = lines[0], [], set()
    for line in lines[1:]:
        if line.startswith('"'):
            r = next(csv.reader([line]))
            if r[0] in newid:
                kernels.add(r[4].split("(")[0])
                r[0] = newid[r[0]]
                r[-1] = OVERRIDE.get((r[0], r[12]), r[-1])
                rows.append((int(r[0]), r))
    os.makedirs(os.path.join(out, "vop.cubins"), exist_ok=True)
    with open(os.path.join(out, "vop.counters.csv"), "w", newline="") as f:
        f.write(header)
        for line in lines[1:]:
            # the library's lines: attach/passes, and the code: lines of the kept kernels
            if line.startswith("==ATOMUTIL==") and (" code: " not in line or line.split()[5].split("(")[0] in kernels):
                f.write(line)
        w = csv.writer(f, quoting=csv.QUOTE_ALL, lineterminator="\n")
        for _, r in sorted(rows, key=lambda x: x[0]):
            w.writerow(r)
    lst = os.path.join(root, "tests", "data", "opcodes", "validation-h200.cubins")
    for name in sorted(os.listdir(lst)):
        with open(os.path.join(lst, name)) as f:
            head = f.readline()
        # .text._Z11vk_add_full7VParams: -> vk_add_full
        mangled = head.strip().rstrip(":").split(".text.")[-1]
        base = mangled[2:].lstrip("0123456789").split("7VParams")[0]
        if base in kernels:
            shutil.copy(os.path.join(lst, name), os.path.join(out, "vop.cubins", name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
