#!/usr/bin/env python3
"""Summary of probes/dsmem_hot_counters.sh: per launch, each DSMEM counter's busiest SM over the
mean active SM (.max / .avg, times the SM count over the grid where fewer blocks than SMs ran; one
block per SM).  CSV on stdout.

usage: dsmem_hot_counters.py NCU_RAW_CSV[.xz] ...
"""
import csv
import io
import lzma
import os
import sys

COUNTERS = ("l1tex__t_requests_pipe_lsu_mem_dshared_op_atom", "l1tex__m_l1tex2xbar_req_cycles_active_mem_dshared",
            "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom", "l1tex__t_output_wavefronts_pipe_lsu_mem_dshared_op_atom",
            "l1tex__m_xbar2l1tex_read_sectors_mem_dshared_op_atom", "l1tex__m_l1tex2xbar_write_sectors_mem_dshared_op_atom")


def main():
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(["file", "launch", "kernel", "grid"] + [c + ".max_over_mean" for c in COUNTERS])
    for path in sys.argv[1:]:
        text = (lzma.open if path.endswith(".xz") else open)(path, "rt").read()
        table = list(csv.reader(io.StringIO("\n".join(l for l in text.splitlines() if l.startswith('"')))))
        head = table[0]
        for r in table[2:]:
            v = dict(zip(head, r))
            num = lambda name: float(v[name].replace(",", ""))
            grid = int(v["Grid Size"].strip("()").split(",")[0])
            sms = num("sm__cycles_active.sum") / num("sm__cycles_active.avg")
            w.writerow([os.path.basename(path).split(".")[0], v["ID"], v["Kernel Name"].split("(")[0], grid] +
                       ["%.2f" % (num(c + ".max") / num(c + ".avg") * grid / sms) for c in COUNTERS])


if __name__ == "__main__":
    main()
