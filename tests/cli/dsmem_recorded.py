#!/usr/bin/env python3
"""CPU test with recorded counters of cluster kernels (issue 12): the live run of
probes/dsmem_patterns.cu on an H100 (tests/data/dsmem-patterns-h100: the
counters file, and dp.stdout with each launch's case and measured cycles per job, in launch
order) is imported with the shipped H100 table and every launch's report row is checked against
what the hardware did (32 warps per SM issuing back to back: the DSMEM path or the local unit is
saturated, U_true about 100 %):

- no launch reads no_atomics or unpriced; every one is priced by the DSMEM model (flag dsmem);
- remote ranks (modes 2, 4, 5: ring, several ranks per instruction, hashed ranks) with spread
  lanes (patterns 0, 2, 3): U within 80-110 %;
- one word per warp with every warp in one row (pattern 1) on a ring: flag dsmem_row_range and a
  range that holds 100 % (within 5 points);
- own-rank launches (mode 1): flag dsmem_local_estimated and a range that holds 100 % (within 5
  points) where all lanes serialize (patterns 1, 2);
- the verdict: a launch with a range reads `uncertain` exactly when the range's ends give
  different verdicts (default thresholds 40 and 80 %), else the point estimate's; and no launch
  (every one saturates the DSMEM path or the local unit) reads `not-limiting`.

    dsmem_recorded.py ATOMUTIL_PROFILE RESULT_DIR TABLE WORKDIR
"""
import csv
import gzip
import os
import shutil
import subprocess
import sys

prof, res, table, work = sys.argv[1:5]
os.makedirs(work, exist_ok=True)
counters = os.path.join(work, "dp.counters.csv")
with gzip.open(os.path.join(res, "dp.counters.csv.gz"), "rb") as f, open(counters, "wb") as g:
    shutil.copyfileobj(f, g)
out = os.path.join(work, "dp")
r = subprocess.run([prof, "-q", "--no-opcodes", "--import", counters, "--table", table, "--csv", "-o", out],
                   capture_output=True, text=True)
if r.returncode != 0:
    sys.exit(f"FAIL: atomutil-profile exited {r.returncode}: {r.stderr}")
cases = [c for c in csv.DictReader(open(os.path.join(res, "dp.stdout"))) if c.get("cluster")]
rows = [x for x in csv.DictReader(open(out + ".csv")) if "k_ds" in x["kernel"]]
fails, checked = [], 0
if len(cases) != len(rows) or not rows:
    sys.exit(f"FAIL: {len(rows)} report rows for {len(cases)} cases")
for c, x in zip(cases, rows):
    mode, pat, name = int(c["mode"]), int(c["pattern"]), c["case"]
    flags = x["flags"].split(",") if x["flags"] else []
    u = float(x["util_pct"])
    lo = float(x["util_pct_lo"]) if x["util_pct_lo"] else u
    hi = float(x["util_pct_hi"]) if x["util_pct_hi"] else u
    if "no_atomics" in flags or "unpriced_wavefronts" in flags or "dsmem" not in flags:
        fails.append(f"{name}: flags {x['flags']}")
        continue
    if mode in (2, 4, 5) and pat in (0, 2, 3):
        checked += 1
        if not 80 <= u <= 110:
            fails.append(f"{name}: U {u:.1f} % outside 80-110")
    if mode == 2 and pat == 1:
        checked += 1
        if "dsmem_row_range" not in flags or not (lo <= 100 <= hi + 5):
            fails.append(f"{name}: range {lo:.1f}-{hi:.1f} %, flags {x['flags']}")
    if mode == 1 and pat in (1, 2):
        checked += 1
        if "dsmem_local_estimated" not in flags or not (lo <= 100 <= hi + 5):
            fails.append(f"{name}: range {lo:.1f}-{hi:.1f} %, flags {x['flags']}")
def verdict_of(u):
    return "atomic-bound" if u >= 80 else "significant" if u >= 40 else "not-limiting"


for c, x in zip(cases, rows):
    u = float(x["util_pct"])
    lo = float(x["util_pct_lo"]) if x["util_pct_lo"] else u
    hi = float(x["util_pct_hi"]) if x["util_pct_hi"] else u
    want = "uncertain" if verdict_of(lo) != verdict_of(hi) else verdict_of(u)
    if x["verdict"] != want:
        fails.append(f"{c['case']}: verdict {x['verdict']}, want {want} (U {u:.1f} %, range {lo:.1f}-{hi:.1f})")
    if x["verdict"] == "not-limiting":
        fails.append(f"{c['case']}: a saturated launch reads not-limiting (U {u:.1f} %)")
for f in fails:
    print("FAIL:", f)
print(f"dsmem_recorded: {len(rows)} launches, {checked} checked against the hardware, {len(fails)} failed")
sys.exit(1 if fails else 0)
