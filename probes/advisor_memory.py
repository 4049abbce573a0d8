#!/usr/bin/env python3
"""Summary of probes/advisor_memory.sh: per data-only pair and run, the baseline's and the
variant's last launch: GPU time (us), the warps' share of time stalled on a global load
(long_scoreboard) and on the MIO queue (mio_throttle), MB read from DRAM, and the L2 hit rate of
the SMs' reads.  CSV on stdout.

usage: advisor_memory.py PAIRS_CSV NCU_RAW_CSV[.xz] ...
"""
import csv
import io
import lzma
import os
import sys


def rows(path):
    text = (lzma.open if path.endswith(".xz") else open)(path, "rt").read()
    lines = [line for line in text.splitlines() if line.startswith('"')]
    table = list(csv.reader(io.StringIO("\n".join(lines))))
    head = table[0]
    return [dict(zip(head, r)) for r in table[2:]]  # the units line is table[1]


def num(r, name):
    return float(r[name].replace(",", ""))


def main():
    pairs = [p for p in csv.DictReader(open(sys.argv[1])) if p["set"] == "data-only"]
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(["run", "pair", "role", "time_us", "long_scoreboard", "mio_throttle", "dram_mb", "l2_hit"])
    for path in sys.argv[2:]:
        last = {}
        for r in rows(path):
            last[r["Kernel Name"].split("(")[0]] = r
        run = os.path.basename(path).split(".")[0]
        for p in pairs:
            for role in ("base", "variant"):
                r = last.get(p[role + "_kernel"])
                if r is None:
                    continue
                warps = num(r, "smsp__warps_active.sum")
                reads = num(r, "lts__t_sectors_srcunit_tex_op_read.sum")
                w.writerow([run, p["pair"], role, "%.2f" % (num(r, "gpu__time_duration.sum") / 1000),
                            "%.3f" % (num(r, "smsp__warps_issue_stalled_long_scoreboard.sum") / warps),
                            "%.3f" % (num(r, "smsp__warps_issue_stalled_mio_throttle.sum") / warps),
                            "%.1f" % (num(r, "dram__bytes_read.sum") / 1e6),
                            "%.2f" % (num(r, "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum") / reads if reads else 0)])


if __name__ == "__main__":
    main()
