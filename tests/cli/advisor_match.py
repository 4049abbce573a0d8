#!/usr/bin/env python3
"""CPU test with recorded counters of a warp-aggregation pair on an H200
(tests/data/advisor-match-h200; docs/advisor.md "Warp aggregation's own work"): the baseline
histogram and its `__match_any_sync` variant, imported with the shipped H200 table.

- With the table's MATCH cost the baseline's `aggregate` point is slower than the baseline (the
  variant measured 61 % slower), and the variant's measured time lies in every steady launch's
  range (the last four of six).
- The same counters priced with the table without its two MATCH keys read the cure faster than
  the baseline: the wrong direction the MATCH cost removes.
- The human report says that the cure costs more than it saves with the cost, and that the table
  has no MATCH cost without it.

    advisor_match.py ATOMUTIL_PROFILE DATA_DIR H200_TABLE WORKDIR
"""
import csv
import io
import os
import statistics
import subprocess
import sys

prof, data, table, work = sys.argv[1:5]
os.makedirs(work, exist_ok=True)
src = os.path.join(data, "hist-match-16mi.counters.csv")
no_match = os.path.join(work, "no-match.csv")
with open(table) as f, open(no_match, "w") as g:
    lines = f.readlines()
    kept = [l for l in lines if not l.startswith("# match_any_")]
    if len(lines) - len(kept) != 2:
        sys.exit(f"FAIL: {table} lacks the two MATCH keys")
    g.writelines(kept)
fails = []


def run(tbl, *extra):
    r = subprocess.run([prof, "--no-opcodes", "--import", src, "--table", tbl, *extra], capture_output=True,
                       text=True)
    if r.returncode != 0:
        sys.exit(f"FAIL: atomutil-profile exited {r.returncode}: {r.stderr}")
    return r.stdout


def rows(tbl):
    out = list(csv.DictReader(io.StringIO(run(tbl, "--csv"))))
    base = [x for x in out if x["kernel"].startswith("adv_hist_match(")]
    var = [x for x in out if x["kernel"].startswith("adv_hist_match__v(")]
    if len(base) != 6 or len(var) != 6:
        sys.exit(f"FAIL: {tbl}: {len(base)} baseline and {len(var)} variant launches, want 6 and 6")
    return base, var


def median(rs, col):
    return statistics.median(float(x[col]) for x in rs)


base, var = rows(table)
now, measured = median(base[2:], "duration_ns"), median(var[2:], "duration_ns")
point = median(base[2:], "whatif_aggregate_time_ns")
if not point > now * 1.05:
    fails.append(f"with the MATCH cost the point {point:.0f} ns is not slower than the baseline's {now:.0f}")
for x in base[2:]:
    lo, hi = float(x["whatif_aggregate_time_lo_ns"]), float(x["whatif_aggregate_time_hi_ns"])
    if not lo <= measured <= hi:
        fails.append(f"launch {x['launch_id']}: aggregate range [{lo:.0f}, {hi:.0f}] ns misses {measured:.0f}")
base0, _ = rows(no_match)
point0 = median(base0[2:], "whatif_aggregate_time_ns")
if not point0 < now:
    fails.append(f"without the MATCH cost the point {point0:.0f} ns is not faster than the baseline's {now:.0f}")
text, text0 = run(table), run(no_match)
if "    aggregate: its __match_any_sync costs more than it saves: time " not in text:
    fails.append("no 'costs more than it saves' line with the MATCH cost")
# a = 13.9 passes a job: at least 3 distinct words, the point sqrt(3 x 32) ~ 10
if "      at about 10 distinct words a warp (3 to 32: the counters cannot tell)" not in text:
    fails.append("no line of the distinct words the cost assumes (about 10, 3 to 32)")
if "no MATCH cost" in text or "no MATCH cost (atomutil-calibrate --latency --merge)" not in text0:
    fails.append("the 'no MATCH cost' line where the table has one, or not where it has none")
print(f"baseline {now:.0f} ns, variant measured {measured:.0f} ns; aggregate point {point:.0f} ns with the "
      f"MATCH cost, {point0:.0f} ns without")
for m in fails:
    print("FAIL:", m)
sys.exit(1 if fails else 0)
