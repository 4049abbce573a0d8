#!/usr/bin/env python3
"""CPU test with recorded counters of hot DSMEM receivers (docs/model.md "DSMEM"): the launches of
tests/data/dsmem-hot-h200, imported with the shipped H200 table (its dsmem_hot families) and with
the H100 table (none).

- Every block of a cluster on rank 0's word, one block per SM: U is the receiving SM's, within 2
  points of the event-time U_true (51.2, 51.4, 36.5 %), and equal to Umax, flag dsmem_hot; the
  report's DSMEM block names the hot receiver.
- A ring (the busiest SM made the mean's wavefronts) and the cluster histogram's launch of 264
  blocks on 132 SMs (an SM may host a receiver and a sender in turn) are priced by the mean SM: no
  hot receiver.
- Without a hot family in the table the hot launches read the mean SM's U with a range to 100 %
  that holds U_true, verdict uncertain, flag dsmem_hot_uncalibrated.

    dsmem_hot.py ATOMUTIL_PROFILE DATA_DIR H200_TABLE H100_TABLE WORKDIR
"""
import csv
import gzip
import os
import shutil
import subprocess
import sys

prof, data, h200, h100, work = sys.argv[1:6]
os.makedirs(work, exist_ok=True)
counters = os.path.join(work, "launches.counters.csv")
with gzip.open(os.path.join(data, "launches.counters.csv.gz"), "rb") as f, open(counters, "wb") as g:
    shutil.copyfileobj(f, g)
fails = []
TRUTH = {"248": 51.2, "260": 51.4, "272": 36.5}


def run(table, *extra):
    r = subprocess.run([prof, "--no-opcodes", "--import", counters, "--table", table] + list(extra),
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAIL: atomutil-profile exited {r.returncode}: {r.stderr}")
    return r.stdout


def rows(table):
    return {r["launch_id"]: r for r in csv.DictReader(run(table, "--csv").splitlines())}


hot = rows(h200)
for lid, truth in TRUTH.items():
    u, umax = float(hot[lid]["util_pct"]), float(hot[lid]["util_pct_busiest_sm"])
    if abs(u - truth) > 2:
        fails.append(f"launch {lid}: U {u} %, U_true {truth} %")
    if abs(umax - u) > 1e-6:
        fails.append(f"launch {lid}: Umax {umax} %, not U {u} %")
text = run(h200)
if text.count("hot receiver: one SM per cluster serves its cluster's jobs") != 3:
    fails.append("the report does not name the three hot receivers:\n" + text)
for lid in ("113", "0"):  # the ring, the 264-block cluster histogram: the mean SM's U, the path's
    if abs(float(hot[lid]["util_pct"]) - float(hot[lid]["util_pct_dsmem"])) > 1e-6:
        fails.append(f"launch {lid}: U {hot[lid]['util_pct']} % is not its DSMEM path's")
old = rows(h100)
for lid, truth in TRUTH.items():
    r = old[lid]
    flags = r["flags"].split(",")
    if "dsmem_hot_uncalibrated" not in flags or "dsmem_hot" not in flags:
        fails.append(f"launch {lid}: without a hot family, flags {r['flags']}")
    if abs(float(r["util_pct"]) - truth) <= 2:
        fails.append(f"launch {lid}: without a hot family U {r['util_pct']} % (the mean SM's expected)")
    lo, hi = float(r["util_pct_lo"]), float(r["util_pct_hi"])
    if not (abs(lo - float(r["util_pct"])) < 1e-6 and abs(hi - 100) < 1e-6 and lo <= truth <= hi):
        fails.append(f"launch {lid}: range {lo}..{hi} %, U_true {truth} %")
    if r["verdict"] != "uncertain":
        fails.append(f"launch {lid}: verdict {r['verdict']} without a hot family")
for lid in ("113", "0"):
    if "dsmem_hot" in hot[lid]["flags"].split(",") or "dsmem_hot" in old[lid]["flags"].split(","):
        fails.append(f"launch {lid}: flagged dsmem_hot")
for lid in TRUTH:
    if "dsmem_hot" not in hot[lid]["flags"].split(",") or "dsmem_hot_uncalibrated" in hot[lid]["flags"]:
        fails.append(f"launch {lid}: flags {hot[lid]['flags']} with the hot family")
if run(h100).count("not priced: the table has no dsmem_hot family") != 3:
    fails.append("the report does not say the three hot receivers are not priced without the family")
for f in fails:
    print("FAIL:", f)
print(f"dsmem_hot: {len(fails)} failures")
sys.exit(1 if fails else 0)
