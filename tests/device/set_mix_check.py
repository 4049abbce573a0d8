#!/usr/bin/env python3
"""GPU test of the counter-set choice (docs/counters.md, "Quiet kernels") on set_mix, whose rounds
launch `exchange` (cluster of 2, DSMEM loads), `scale` (no atomics), `late` (shared atomics from
round 3 on), `gatom` (generic atomics to global memory) and `hist` (shared atomics), in that
order.  Checks, launch by launch:
- every launch is measured and every result is right (set_mix checks its outputs: exit 0);
- `exchange` always with the cluster set, `hist` always with the standard set and an exact U (no
  range);
- `scale` with the standard set at its first launch, then kept in the cluster set that `exchange`
  left configured, U 0 and `not-limiting` every time;
- `late`: quiet rounds 1-2 kept in the cluster set; in round 3 its atomics appear while it is
  measured with the cluster set: its jobs are counted and U gets a range (flag
  dsmem_local_estimated, never an exact figure from missing passes); from round 4 on the standard
  set again, with an exact U;
- `gatom`: its code has a generic ATOM.E.ADD (to global memory here, but the code cannot tell), so
  every launch is measured with the generic set (docs/counters.md, "The generic counter set"),
  which counts the instructions beside the one shared-atomic wavefront per warp-instruction that
  the wavefront counter sees of them: priced exactly (no range), class generic, never quiet;
- the injection's timing detail line counts the launches kept in the cluster set (set_kept=8 in 6 rounds).
Exit 77 (skipped) without a GPU.
usage: set_mix_check.py ATOMUTIL_PROFILE SET_MIX WORKDIR"""
import csv
import os
import re
import subprocess
import sys

ROUNDS = 6
ORDER = ["exchange", "scale", "late", "gatom", "hist"]
STD_ONLY = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum"
GENERIC_ONLY = "smsp__inst_executed_op_generic_atom_dot_cas.sum"
CLUSTER_ONLY = "smsp__inst_executed_op_generic_atom.sum"


def main():
    prof, prog, work = sys.argv[1:4]
    try:
        subprocess.run(["nvidia-smi", "-L"], capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        print("no GPU: skipped")
        return 77
    os.makedirs(work, exist_ok=True)
    base = os.path.join(work, "set_mix")
    p = subprocess.run([prof, "--csv", "-o", base, "--", prog, str(ROUNDS)], capture_output=True, text=True)
    if p.returncode != 0:
        print(f"FAIL: atomutil-profile exited {p.returncode}\n{p.stdout}\n{p.stderr}")
        return 1
    # which set measured each launch: the metrics its rows hold
    metrics = {}
    with open(base + ".counters.csv") as f:
        lines = f.readlines()
    for r in csv.DictReader(l for l in lines if l.startswith('"')):
        metrics.setdefault(int(r["ID"]), set()).add(r["Metric Name"])
    found = [re.search(r" timing: detail .*\bset_kept=(\d+)", l) for l in lines]
    kept = next((int(m.group(1)) for m in found if m), None)
    rows = {int(r["launch_id"]): r for r in csv.DictReader(open(base + ".csv"))}
    fail = 0

    def check(ok, what):
        nonlocal fail
        print(("PASS  " if ok else "FAIL  ") + what)
        fail |= not ok

    check(len(rows) == ROUNDS * len(ORDER), f"{len(rows)} launches reported, want {ROUNDS * len(ORDER)}")
    for lid in sorted(rows):
        rnd, k = divmod(lid, len(ORDER))
        name = ORDER[k]
        r = rows[lid]
        have = metrics.get(lid, set())
        cluster_set = CLUSTER_ONLY in have and STD_ONLY not in have
        std_set = STD_ONLY in have and CLUSTER_ONLY not in have and GENERIC_ONLY not in have
        generic_set = STD_ONLY in have and GENERIC_ONLY in have
        ranged = r["util_pct_lo"] != "" and r["util_pct_hi"] != "" and float(r["util_pct_hi"]) > float(r["util_pct_lo"])
        util = float(r["util_pct"]) if r["util_pct"] else float("nan")
        print(f"  round {rnd} {name:8s} set {'cluster' if cluster_set else 'standard' if std_set else 'generic' if generic_set else '?':8s} "
              f"jobs {r['jobs']:>10s} generic {r['generic_jobs']:>8s} U {r['util_pct']:>6s} [{r['util_pct_lo']}, {r['util_pct_hi']}] "
              f"{r['verdict']} {r['flags']}")
        if not r["kernel"].startswith(name):
            check(False, f"launch {lid} is {r['kernel']}, want {name}")
            continue
        if name == "exchange":
            if not cluster_set:
                check(False, f"round {rnd} exchange: not in the cluster set")
        elif name == "hist":
            check(std_set and not ranged and util > 0, f"round {rnd} hist: standard set, exact U > 0")
        elif name == "scale":
            want = std_set if rnd == 0 else cluster_set
            check(want and util == 0 and r["verdict"] == "not-limiting",
                  f"round {rnd} scale: {'standard' if rnd == 0 else 'cluster'} set, U 0, not-limiting")
        elif name == "gatom":
            counted = float(r["generic_jobs"] or 0) > 0 and "generic" in r["opcode_classes"]
            check(generic_set and counted and not ranged and util > 0 and "unpriced_wavefronts" not in r["flags"],
                  f"round {rnd} gatom: generic set, its generic atomics counted and priced exactly (class generic)")
        elif name == "late":
            if rnd == 0:
                check(std_set and util == 0, "round 0 late: standard set, U 0")
            elif rnd < 3:
                check(cluster_set and util == 0, f"round {rnd} late: kept in the cluster set, U 0")
            elif rnd == 3:
                check(cluster_set and float(r["jobs"] or 0) > 0 and ranged and "dsmem_local_estimated" in r["flags"],
                      "round 3 late: atomics seen in the cluster set: jobs counted, U a range")
            else:
                check(std_set and not ranged and util > 0, f"round {rnd} late: back in the standard set, exact U > 0")
    check(kept == 8, f"timing line: {kept} launches kept in the cluster set, want 8")
    print("set_mix_check: " + ("FAIL" if fail else "PASS"))
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main())
