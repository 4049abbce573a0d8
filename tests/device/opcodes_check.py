#!/usr/bin/env python3
"""GPU test of atomutil-profile --opcodes (docs/opcodes.md) on persm_targets, whose job counts are
known: `uneven` issues only ATOMS.ADD, `mix` as many ATOMS.ADD as ATOMS.CAS (no CAS fails).  Checks
that the kernels' opcodes are read from their code, that the jobs of each class are exactly the
program's, and that the launches are priced by their classes.  Exit 77 (skipped) without a GPU.
usage: opcodes_check.py ATOMUTIL_PROFILE PERSM_TARGETS WORKDIR"""
import json
import os
import subprocess
import sys


def main():
    prof, prog, work = sys.argv[1:4]
    try:
        subprocess.run(["nvidia-smi", "-L"], capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        print("no GPU: skipped")
        return 77
    os.makedirs(work, exist_ok=True)
    base = os.path.join(work, "opcodes")
    p = subprocess.run([prof, "--opcodes", "--json", "-o", base, "--", prog], capture_output=True, text=True)
    if p.returncode != 0:
        print(f"FAIL: atomutil-profile exited {p.returncode}\n{p.stderr}")
        return 1
    print(p.stderr.strip())
    # the program prints the jobs it issued: per SM for uneven, totals for mix
    uneven_want, mix_want, seen = 0, None, set()
    for line in p.stdout.splitlines():
        f = line.split(",")
        if f[0] == "uneven" and f[1] not in seen:
            seen.add(f[1])
            uneven_want += int(f[2])
        elif f[0] == "mix" and mix_want is None:
            mix_want = (int(f[1]), int(f[2]))
    rep = json.load(open(base + ".json"))
    fail = 0

    def check(ok, what):
        nonlocal fail
        print(("ok   " if ok else "FAIL ") + what)
        fail |= not ok

    by_kernel = {}
    for l in rep["launches"]:
        by_kernel.setdefault(l["kernel"].split("(")[0], []).append(l)
    check(set(by_kernel) == {"uneven", "mix"}, f"kernels reported: {sorted(by_kernel)}")
    for name in ("uneven", "mix"):
        for l in by_kernel.get(name, []):
            ops = l.get("opcodes")
            check(ops is not None, f"{name}: launch {l['launch_id']} has opcode classes")
            check("opcodes" in l["flags"] and "opcode_mismatch" not in l["flags"] and
                  "split_estimated" not in l["flags"], f"{name}: flags {l['flags']}")
    if fail:
        return 1
    u = by_kernel["uneven"][0]["opcodes"]
    ops = sorted(set(x["opcode"] for x in u["instructions"]))
    check(ops == ["ATOMS.ADD"], f"uneven: opcodes in the code {ops}")
    jobs = {c["family"]: c["jobs"] for c in u["by_class"]}
    check(jobs == {"add": uneven_want}, f"uneven: jobs by class {jobs}, want add {uneven_want}")
    check(u["classes"] == "add 100%", f"uneven: classes '{u['classes']}'")
    m = by_kernel["mix"][0]
    mo = m["opcodes"]
    ops = sorted(set(x["opcode"] for x in mo["instructions"]))
    check(ops == ["ATOMS.ADD", "ATOMS.CAS"], f"mix: opcodes in the code {ops}")
    jobs = {c["family"]: c["jobs"] for c in mo["by_class"]}
    check(jobs == {"add": mix_want[0], "cas": mix_want[1]},
          f"mix: jobs by class {jobs}, want add {mix_want[0]}, cas {mix_want[1]}")
    check(mo["classes"] in ("add 50%, cas 50%", "cas 50%, add 50%"), f"mix: classes '{mo['classes']}'")
    print(f"mix: U {m['model']['util_pct']:.1f} % by opcode classes, {mo['util_pct_by_family']:.1f} % priced as "
          f"'{rep['family']}'")
    for f in (base + ".counters.csv", base + ".cubins"):
        check(os.path.exists(f), f"kept: {f}")
    return fail


if __name__ == "__main__":
    sys.exit(main())
