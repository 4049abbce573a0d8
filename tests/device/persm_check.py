#!/usr/bin/env python3
"""GPU test: atomutil-profile --per-sm on persm_targets must report the per-SM job counts the
program states (uneven kernel: jobs per %smid) and the ADD/CAS split of the mix kernel exactly.
Also prints the SM instance <-> %smid mapping it found (docs/per-sm.md).
usage: persm_check.py ATOMUTIL_PROFILE PERSM_TARGETS WORKDIR      (exit 77 without a GPU)"""
import json
import os
import shutil
import subprocess
import sys


def main():
    prof, target, work = sys.argv[1:4]
    if shutil.which("nvidia-smi") is None or subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode:
        print("no GPU: skipped")
        return 77
    os.makedirs(work, exist_ok=True)
    base = os.path.join(work, "persm")
    run = subprocess.run([prof, "-q", "--per-sm", "--json", "-o", base, "--", target],
                         capture_output=True, text=True)
    if run.returncode != 0:
        print("FAIL: atomutil-profile exited", run.returncode, run.stderr)
        return 1
    expect = {}
    mix = None
    for line in run.stdout.splitlines():
        f = line.split(",")
        if f[0] == "uneven":
            expect[int(f[1])] = int(f[2])
        elif f[0] == "mix":
            mix = (int(f[1]), int(f[2]))
    report = json.load(open(base + ".json"))
    launches = report["launches"]
    fail = 0
    un = next(l for l in launches if l["kernel"].startswith("uneven"))
    jobs = un["per_sm"]["jobs"]
    # instance index i <-> %smid: identity if jobs[i] == expect[i] for all SMs
    identity = all(jobs[s] == j for s, j in expect.items())
    print(f"uneven: {len(expect)} SMs, instance index == %smid: {identity}")
    if not identity:
        bad = [(s, j, jobs[s]) for s, j in expect.items() if jobs[s] != j][:8]
        print("FAIL: per-SM jobs differ from the program's (smid, want, got):", bad)
        fail = 1
    if sum(jobs) != sum(expect.values()):
        print("FAIL: total jobs", sum(jobs), "want", sum(expect.values()))
        fail = 1
    mx = next(l for l in launches if l["kernel"].startswith("mix"))
    by_op = {}
    for ins in mx["per_sm"]["instructions"]:
        by_op[ins["family"]] = by_op.get(ins["family"], 0) + ins["jobs"]
    print("mix: jobs by family", by_op, "want add/cas", mix)
    if by_op.get("add") != mix[0] or by_op.get("cas") != mix[1]:
        print("FAIL: class split")
        fail = 1
    for l in launches:
        p = l.get("per_sm")
        if p:
            print(f"{l['kernel'][:30]:30s} U% all {p['util_pct_all']:.1f} min {p['util_pct_min']:.1f} "
                  f"max {p['util_pct_max']:.1f} imbalance {p['imbalance']:.2f} flags {p['flags']}")
    print("PASS" if not fail else "FAIL")
    return fail


if __name__ == "__main__":
    sys.exit(main())
