#!/usr/bin/env python3
"""CPU test with recorded counters of a histogram pair on an H200 whose inputs stay in L2
(tests/data/advisor-l2-h200; docs/advisor.md "Kernel time"): the baseline, every lane on one word,
and its conflict-free run, imported with the shipped H200 table.

- The baseline's launches carry `l2_hit_sectors` (the counter read from the counters file) and
  their `one_pass` what-if holds the conflict-free run's measured time in its range.
- With the L2-hit loads waiting behind the unit, the point of the steady launches (the last
  four of six: the first ones ran with the inputs still on their way to L2) is within 15 % of the
  conflict-free run's measured time; the same counters without the L2 rows (v = 0) read more than
  50 % too slow, the error the counter removes.
- The human report's "what would help" block says 0.8 loads per job hit in L2 (all six launches'
  sectors over their jobs, 4 sectors a load), "none" with the counter at 0, and nothing of loads
  without the counter.

    advisor_l2.py ATOMUTIL_PROFILE DATA_DIR H200_TABLE WORKDIR
"""
import csv
import io
import os
import statistics
import subprocess
import sys

prof, data, table, work = sys.argv[1:5]
os.makedirs(work, exist_ok=True)
src = os.path.join(data, "hist-8mi.counters.csv")
no_l2 = os.path.join(work, "hist-8mi-no-l2.counters.csv")
with open(src) as f, open(no_l2, "w") as g:
    g.writelines(l for l in f if "lts__t_sectors_srcunit_tex_op_read_lookup_hit" not in l)
fails = []


def rows(path):
    r = subprocess.run([prof, "--no-opcodes", "--import", path, "--table", table, "--csv"], capture_output=True,
                       text=True)
    if r.returncode != 0:
        sys.exit(f"FAIL: atomutil-profile exited {r.returncode}: {r.stderr}")
    out = list(csv.DictReader(io.StringIO(r.stdout)))
    base = [x for x in out if x["kernel"].startswith("adv_hist_add_one_lane(")]
    var = [x for x in out if x["kernel"].startswith("adv_hist_add_one_lane__v(")]
    if len(base) != 6 or len(var) != 6:
        sys.exit(f"FAIL: {path}: {len(base)} baseline and {len(var)} variant launches, want 6 and 6")
    return base, var


base, var = rows(src)
measured = statistics.median(float(x["duration_ns"]) for x in var[2:])
if any(not x["l2_hit_sectors"] or float(x["l2_hit_sectors"]) <= 0 for x in base):
    fails.append("a baseline launch without l2_hit_sectors")
for x in base[2:]:
    lo, hi = float(x["whatif_one_pass_time_lo_ns"]), float(x["whatif_one_pass_time_hi_ns"])
    if not lo <= measured <= hi:
        fails.append(f"launch {x['launch_id']}: one_pass range [{lo:.0f}, {hi:.0f}] ns misses {measured:.0f}")
point = statistics.median(float(x["whatif_one_pass_time_ns"]) for x in base[2:])
err = (point / measured - 1) * 100
if abs(err) > 15:
    fails.append(f"with the L2 counter the point {point:.0f} ns is {err:+.1f} % off {measured:.0f}")
base0, _ = rows(no_l2)
if any(x["l2_hit_sectors"] for x in base0):
    fails.append("l2_hit_sectors without the counter's rows")
point0 = statistics.median(float(x["whatif_one_pass_time_ns"]) for x in base0[2:])
err0 = (point0 / measured - 1) * 100
if err0 < 50:
    fails.append(f"without the L2 counter the point {point0:.0f} ns is only {err0:+.1f} % off {measured:.0f}")
# the human report's "what would help" block says where the loads come from, where it knows
def report(path):
    r = subprocess.run([prof, "--no-opcodes", "--import", path, "--table", table], capture_output=True, text=True)
    return r.stdout


if "    loads: 0.8 per job hit in L2 and wait behind the unit" not in report(src):
    fails.append("the report's what-would-help block lacks the L2 loads line (0.8 per job)")
if "loads:" in report(no_l2):
    fails.append("a loads line without the L2 counter")
zero = os.path.join(work, "hist-8mi-zero-l2.counters.csv")
with open(src) as f, open(zero, "w") as g:
    for l in f:
        if "lts__t_sectors_srcunit_tex_op_read_lookup_hit" in l:
            l = l.rstrip("\n").rsplit(",", 1)[0] + ',"0"\n'
        g.write(l)
if "    loads: none per job hit in L2; a cure leaves the rest of the kernel as it is" not in report(zero):
    fails.append("no 'loads: none' line with the L2 counter at 0")
print(f"measured {measured:.0f} ns; one_pass point {point:.0f} ns ({err:+.1f} %) with the L2 counter, "
      f"{point0:.0f} ns ({err0:+.1f} %) without")
for m in fails:
    print("FAIL:", m)
sys.exit(1 if fails else 0)
