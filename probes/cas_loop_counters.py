#!/usr/bin/env python3
"""Counters per ATOMS instruction of the unit-bound kernels (probes/cas_loop_counters.sh).

usage: cas_loop_counters.py NCU.csv UNIT_BOUND.csv
NCU.csv holds one or more ncu runs of unit_bound (--reps 1: a warm-up and a measured launch per
case, the case list printed by the program itself among ncu's lines); UNIT_BOUND.csv the
unprofiled run of the same program (cycles per job).  Printed per case: cycles per job, ATOMS
instructions per job (CAS-loop retries), and per instruction: atomic wavefronts, atomic bank
conflicts, LDS instructions, active threads of the LSU pipe, all shared wavefronts, atomic bytes,
the cycles per instruction, and LSU writeback cycles.  Standard library only.
"""
import csv
import re
import sys


def cases_and_launches(path):
    text = open(path).read().split("==PROF== Connected")[1:]
    out = []
    for blk in text:
        lines = blk.splitlines()
        cases = [l.split(",")[0] for l in lines if re.match(r"^\w+/\w+,", l)]
        rows = list(csv.reader(l for l in lines if l.startswith('"')))
        if not rows:
            continue
        head, data = rows[0], rows[2:]  # the second row holds the units
        for i, r in enumerate(data):
            if i % 2 == 1 and i // 2 < len(cases):  # the measured launch, after the warm-up
                d = dict(zip(head, r))
                d["case"] = cases[i // 2]
                out.append(d)
    return out


def num(d, k):
    try:
        return float(d[k].replace(",", ""))
    except (KeyError, ValueError):
        return float("nan")


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    ub = {r["case"]: r for r in csv.DictReader(l for l in open(argv[2]) if not l.startswith("#"))}
    print("%-26s %8s %7s %6s %6s %6s %6s %7s %7s %7s %6s" % (
        "case", "cyc/job", "inst/job", "wf/i", "bc/i", "lds/i", "thr/i", "allwf/i", "bytes/i",
        "cyc/i", "wb/i"))
    for d in cases_and_launches(argv[1]):
        u = ub.get(d["case"])
        if not u:
            continue
        jobs = float(u["jobs_per_sm"]) * float(u["sms"])
        ni = num(d, "smsp__inst_executed_op_shared_atom.sum")
        cyc = float(u["cycles_per_job"])
        if not ni > 0:
            print("%-26s %8.2f no ATOMS instructions counted" % (d["case"], cyc))
            continue
        print("%-26s %8.2f %7.2f %6.2f %6.2f %6.3f %6.1f %7.2f %7.1f %7.2f %6.2f" % (
            d["case"], cyc, ni / jobs,
            num(d, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum") / ni,
            num(d, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum") / ni,
            num(d, "smsp__inst_executed_op_shared_ld.sum") / ni,
            num(d, "smsp__thread_inst_executed_pipe_lsu_pred_on.sum") / ni,
            num(d, "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum") / ni,
            num(d, "smsp__sass_data_bytes_mem_shared_op_atom.sum") / ni,
            cyc * jobs / ni,
            num(d, "l1tex__lsu_writeback_active_mem_shared.sum") / ni))


if __name__ == "__main__":
    main(sys.argv)
