#!/usr/bin/env python3
"""GPU test of atomutil-profile --opcodes (docs/opcodes.md) on persm_targets, whose job counts are
known: `uneven` issues only ATOMS.ADD, `mix` as many ATOMS.ADD as ATOMS.CAS (no CAS fails).  Checks
that the kernels' opcodes are read from their code, that the jobs of each class are exactly the
program's, and that the launches are priced by their classes.  And the busiest SM: `uneven` puts
one block on every SM, with (1 + smid % 4) x 256 jobs per warp, so the busiest SM's wavefronts
(the .max rollup) and the imbalance (max / mean) are known exactly.  Exit 77 (skipped) without a GPU.
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
    # busiest SM (one wavefront per job: every lane its own bank word)
    per_sm = [int(line.split(",")[2]) for line in p.stdout.splitlines() if line.startswith("uneven,")]
    ul = by_kernel["uneven"][0]
    wmax = ul["counters"]["wavefronts_max"]
    check(wmax == max(per_sm), f"uneven: busiest SM's wavefronts {wmax}, the program's {max(per_sm)}")
    want_imb = max(per_sm) / (sum(per_sm) / len(per_sm))
    imb = ul["model"]["imbalance"]
    check(imb is not None and abs(imb - want_imb) < 1e-6, f"uneven: imbalance {imb}, want {want_imb:.4f}")
    check("imbalanced" in ul["flags"], f"uneven: flags {ul['flags']}")
    ub = ul["model"]["util_pct_busiest_sm"]
    check(ub is not None and ub >= ul["model"]["util_pct"], f"uneven: busiest SM U {ub} >= mean U {ul['model']['util_pct']}")
    mimb = m["model"]["imbalance"]
    check(mimb is not None and mimb < 1.25 and "imbalanced" not in m["flags"], f"mix (2 blocks per SM): imbalance {mimb}")
    passes = [l for l in open(base + ".counters.csv") if "passes:" in l]
    check(bool(passes) and all("passes: 1," in l or "passes: 1 " in l for l in passes), f"one pass: {passes[:1]}")
    for f in (base + ".counters.csv", base + ".cubins"):
        check(os.path.exists(f), f"kept: {f}")
    return fail


if __name__ == "__main__":
    sys.exit(main())
