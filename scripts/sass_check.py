#!/usr/bin/env python3
"""Checks whether CUPTI's SASS metrics can give atomutil per-SM and per-launch counts on this GPU and
driver (docs/per-sm.md).  Runs build/bin/persm_targets (known per-SM and per-class jobs) under the
injection library in sass mode at GPU and at SM granularity and prints, per launch, the total, how
many distinct per-SM values there are, and whether they match what the program says it did.
usage (repository root, after building): python3 scripts/sass_check.py [BUILD_DIR]"""
import csv
import os
import subprocess
import sys
import tempfile
from collections import defaultdict


def run(build, granularity, tmp):
    out = os.path.join(tmp, f"s_{granularity}.csv")
    env = dict(os.environ, CUDA_INJECTION64_PATH=os.path.abspath(
        os.path.join(build, "lib", "atomutil", "libatomutil_inject.so")),
        ATOMUTIL_MODE="sass", ATOMUTIL_SASS_GRANULARITY=granularity, ATOMUTIL_SASS_FILE=out,
        ATOMUTIL_CUBIN_DIR=os.path.join(tmp, "cubins"))
    prog = subprocess.run([os.path.join(build, "bin", "persm_targets")], env=env,
                          capture_output=True, text=True, check=True)
    per = defaultdict(lambda: defaultdict(float))
    diag = []
    with open(out) as f:
        for line in f:
            if line.startswith("==ATOMUTIL=="):
                diag.append(line.strip())
    for r in csv.reader(open(out)):
        if r and r[0].isdigit():
            per[int(r[0])][int(r[6])] += float(r[7])
    return prog.stdout, per, diag


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    with tempfile.TemporaryDirectory() as tmp:
        stdout, gpu, diag = run(build, "gpu", tmp)
        _, sm, _ = run(build, "sm", tmp)
    want = {}
    mix = None
    for line in stdout.splitlines():
        f = line.split(",")
        if f[0] == "uneven":
            want[int(f[1])] = int(f[2])
        elif f[0] == "mix":
            mix = int(f[1]) + int(f[2])
    print("\n".join(d for d in diag if "flush" in d))
    print(f"program: uneven kernel {sum(want.values())} jobs over {len(want)} SMs "
          f"({len(set(want.values()))} distinct per-SM counts), mix kernel {mix} jobs")
    for launch, name, total in ((0, "uneven", sum(want.values())), (1, "mix", mix)):
        g = sum(gpu.get(launch, {}).values())
        s = sm.get(launch, {})
        print(f"launch {launch} ({name}): GPU granularity total {g:.0f} (want {total}); "
              f"SM granularity total {sum(s.values()):.0f} over {len(s)} instances, "
              f"{len(set(s.values()))} distinct values")
    usable = (sum(gpu.get(1, {}).values()) == mix and
              all(sm.get(0, {}).get(i) == j for i, j in want.items()))
    print("per-SM and per-launch SASS counts usable:", usable)
    return 0 if usable else 1


if __name__ == "__main__":
    sys.exit(main())
