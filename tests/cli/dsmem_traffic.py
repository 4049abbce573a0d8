#!/usr/bin/env python3
"""CPU test with recorded counters of cluster kernels whose DSMEM traffic is not (all) atomics
(issue 12; docs/model.md "DSMEM"): the live runs of tests/data/dsmem-traffic-h100 on an H100,
imported with the shipped H100 table.

- probes/dsmem_traffic_probe.cu (dtp.counters.csv.gz; one kernel, two launches per mode, a warm-up
  and a measured one, in mode order): remote stores and loads and cluster barriers are not atomics:
  U 0, flag dsmem_other_traffic where requests were sent; the measured remote atomics (32 warps per
  SM back to back) saturate the DSMEM path: U 95-110 %, flag dsmem; own-rank atomics: priced by the
  local unit (flag dsmem_local_estimated); one word per warp: flag dsmem_row_range, a range that
  holds 100 %; every launch measured with the cluster set (its DSMEM counters present), the
  compile-time __cluster_dims__ read (cluster size 2).
- examples/python/torch_model.py 1 (model.counters.csv.gz, ResNet-18 on cuDNN): every launch with
  clusters that ran no generic atomic reads U 0 with flag dsmem_other_traffic (its cuDNN kernels
  send loads and stores to other SMs' shared memory, no atomic); no launch with clusters reads
  more than 1 %.

    dsmem_traffic.py ATOMUTIL_PROFILE RESULT_DIR TABLE WORKDIR
"""
import csv
import gzip
import os
import shutil
import subprocess
import sys

prof, res, table, work = sys.argv[1:5]
os.makedirs(work, exist_ok=True)
fails = []


def report(name):
    counters = os.path.join(work, name + ".counters.csv")
    with gzip.open(os.path.join(res, name + ".counters.csv.gz"), "rb") as f, open(counters, "wb") as g:
        shutil.copyfileobj(f, g)
    out = os.path.join(work, name)
    r = subprocess.run([prof, "-q", "--no-opcodes", "--import", counters, "--table", table, "--csv", "-o", out],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAIL: atomutil-profile exited {r.returncode} on {name}: {r.stderr}")
    return list(csv.DictReader(open(out + ".csv")))


def num(x, k):
    return float(x[k]) if x[k] else None


rows = [x for x in report("dtp") if "k_traffic" in x["kernel"]]
modes = ["remote_st", "remote_ld", "barrier", "remote_atom", "own_atom", "remote_atom_word"]
if len(rows) != 2 * len(modes):
    sys.exit(f"FAIL: {len(rows)} launches of the probe, want {2 * len(modes)}")
for i, x in enumerate(rows):
    mode, measured = modes[i // 2], i % 2 == 1
    name = f"launch {x['launch_id']} ({mode}{'' if measured else ', warm-up'})"
    flags = x["flags"].split(",") if x["flags"] else []
    u, lo, hi = num(x, "util_pct"), num(x, "util_pct_lo"), num(x, "util_pct_hi")
    if x["cluster_size"] != "2" or x["generic_jobs"] == "":
        fails.append(f"{name}: cluster size {x['cluster_size']!r}, generic jobs {x['generic_jobs']!r} "
                     "(not measured with the cluster set)")
        continue
    if mode in ("remote_st", "remote_ld"):
        if u != 0 or "dsmem_other_traffic" not in flags or "dsmem" in flags:
            fails.append(f"{name}: U {u}, flags {x['flags']} (want 0, dsmem_other_traffic)")
    elif mode == "barrier":
        if u != 0 or "dsmem" in flags:
            fails.append(f"{name}: U {u}, flags {x['flags']} (want 0)")
    elif mode == "remote_atom" and measured:
        if "dsmem" not in flags or not 95 <= u <= 110:
            fails.append(f"{name}: U {u}, flags {x['flags']} (want 95-110, dsmem)")
    elif mode == "own_atom":
        if "dsmem_local_estimated" not in flags or "dsmem_other_traffic" in flags:
            fails.append(f"{name}: flags {x['flags']} (want dsmem_local_estimated)")
    elif mode == "remote_atom_word" and measured:
        if "dsmem_row_range" not in flags or lo is None or not lo <= 100 <= hi:
            fails.append(f"{name}: range {lo}-{hi}, flags {x['flags']} (want dsmem_row_range holding 100)")

clustered = [x for x in report("model") if x["cluster_size"] not in ("", "1")]
if not clustered:
    fails.append("model: no launch with clusters")
for x in clustered:
    flags = x["flags"].split(",") if x["flags"] else []
    u = num(x, "util_pct")
    if x["generic_jobs"] == "0" and (u != 0 or "dsmem_other_traffic" not in flags):
        fails.append(f"model launch {x['launch_id']}: U {u}, flags {x['flags']} (no generic atomic: want 0, "
                     "dsmem_other_traffic)")
    if u is None or u > 1:
        fails.append(f"model launch {x['launch_id']}: U {u} (want at most 1 %)")
for f in fails:
    print("FAIL:", f)
print(f"dsmem_traffic: {len(rows)} probe launches, {len(clustered)} ResNet-18 launches with clusters, "
      f"{len(fails)} failed")
sys.exit(1 if fails else 0)
