#!/usr/bin/env python3
"""CPU test with recorded counters of launches without clusters measured with the cluster set
(docs/counters.md, "Quiet kernels"): the device.set_mix run of
tests/data/quiet-kernels-h100 (set_mix.counters.csv.gz, 6 rounds of exchange, scale,
late, hist on an H100), imported with the shipped H100 table.

- the kept launches that ran no atomics (scale from round 1, late in rounds 1-2) read U 0,
  `not-limiting`, no range;
- late in round 3, kept while its shared atomics appeared: jobs counted, U a range that starts at
  the one-pass price (flag dsmem_local_estimated);
- the same counters with generic atomics put into scale's round-1 launch (64 per SM, as
  a kernel whose ATOMs go through generic addresses would make): flag generic_space_unknown, U 0
  (they may have gone to global memory) with a range up to all of them as local one-word jobs, and
  the report's "Uncertain U" section lists the launch.

    kept_launches.py ATOMUTIL_PROFILE RESULT_DIR TABLE WORKDIR
"""
import csv
import gzip
import os
import subprocess
import sys

prof, res, table, work = sys.argv[1:5]
os.makedirs(work, exist_ok=True)
fails = []
GENERIC = "smsp__inst_executed_op_generic_atom.sum"


def report(name, lines):
    counters = os.path.join(work, name + ".counters.csv")
    with open(counters, "w") as f:
        f.writelines(lines)
    out = os.path.join(work, name)
    r = subprocess.run([prof, "-q", "--no-opcodes", "--import", counters, "--table", table, "--csv", "-o", out],
                       capture_output=True, text=True)
    t = subprocess.run([prof, "-q", "--no-opcodes", "--import", counters, "--table", table],
                       capture_output=True, text=True)
    if r.returncode != 0 or t.returncode != 0:
        sys.exit(f"FAIL: atomutil-profile exited {r.returncode}/{t.returncode} on {name}: {r.stderr}{t.stderr}")
    return {int(x["launch_id"]): x for x in csv.DictReader(open(out + ".csv"))}, t.stdout


def num(x, k):
    return float(x[k]) if x[k] else None


with gzip.open(os.path.join(res, "set_mix.counters.csv.gz"), "rt") as f:
    recorded = f.readlines()
rows, _ = report("recorded", recorded)
kept = [5, 9, 13, 17, 21, 6, 10]  # scale rounds 1-5, late rounds 1-2
for lid in kept:
    x = rows[lid]
    if x["cluster_size"] != "1" or x["generic_jobs"] == "":
        fails.append(f"launch {lid}: cluster size {x['cluster_size']!r}, generic jobs {x['generic_jobs']!r} "
                     "(not a launch without clusters measured with the cluster set)")
    elif num(x, "util_pct") != 0 or x["verdict"] != "not-limiting" or x["util_pct_hi"]:
        fails.append(f"launch {lid} ({x['kernel'][:8]}): U {x['util_pct']} [{x['util_pct_lo']}, {x['util_pct_hi']}] "
                     f"{x['verdict']}, want 0, not-limiting, no range")
late3 = rows[14]
if not (late3["kernel"].startswith("late") and num(late3, "jobs") and num(late3, "jobs") > 0 and
        late3["util_pct_hi"] and num(late3, "util_pct_hi") > num(late3, "util_pct_lo") and
        "dsmem_local_estimated" in late3["flags"]):
    fails.append(f"launch 14 (late, round 3): jobs {late3['jobs']}, U {late3['util_pct']} "
                 f"[{late3['util_pct_lo']}, {late3['util_pct_hi']}], flags {late3['flags']}: want jobs, a range")

# generic atomics in a kept launch: their space is unknown
edited, hit = [], 0
for line in recorded:
    if line.startswith('"5",') and f'"{GENERIC}"' in line:
        line = line.rsplit(",", 1)[0] + ',"8448"\n'  # 64 per SM on 132 SMs
        hit += 1
    edited.append(line)
if hit != 1:
    sys.exit(f"FAIL: launch 5's generic-atomics row found {hit} times")
rows, text = report("generic", edited)
x = rows[5]
flags = x["flags"].split(",") if x["flags"] else []
lo, hi = num(x, "util_pct_lo"), num(x, "util_pct_hi")
if not ("generic_space_unknown" in flags and num(x, "util_pct") == 0 and lo == 0 and hi and hi > 1):
    fails.append(f"launch 5 with generic atomics: U {x['util_pct']} [{x['util_pct_lo']}, {x['util_pct_hi']}] "
                 f"{x['verdict']} flags {x['flags']}: want generic_space_unknown, U 0, a range above 1 %")
if "flag generic_space_unknown: a launch without" not in text or \
        not any(l.strip().startswith("5  U 0.0 %, between 0.0 and") for l in text.splitlines()):
    fails.append("the report's Uncertain U section does not list launch 5 and its flag")
for k, y in rows.items():
    if k != 5 and "generic_space_unknown" in y["flags"]:
        fails.append(f"launch {k}: flag generic_space_unknown without generic atomics")
print(f"launch 5 with generic atomics: U {x['util_pct']} % [{x['util_pct_lo']}, {x['util_pct_hi']}] {x['verdict']} "
      f"({x['flags']})")
for f in fails:
    print("FAIL: " + f)
print("kept_launches: " + ("FAIL" if fails else f"PASS ({len(kept)} kept quiet launches, launch 14, launch 5 edited)"))
sys.exit(1 if fails else 0)
