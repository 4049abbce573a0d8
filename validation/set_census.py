#!/usr/bin/env python3
"""Which counter set measured each launch of a live run, and what the report says of them
(docs/counters.md, "Quiet kernels"): one line per (cluster size, set, verdict, jobs > 0, flags)
with its launch count.  The set is read from the metrics a launch's rows hold in the counters file
(the standard set's shared-atomic wavefronts, or the cluster set's generic atomics).
usage: set_census.py BASE.counters.csv[.gz] BASE.csv (the report of atomutil-profile --csv)"""
import collections
import csv
import gzip
import sys

STD_ONLY = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    counters, report = sys.argv[1:3]
    opener = gzip.open if counters.endswith(".gz") else open
    with opener(counters, "rt") as f:
        lines = [l for l in f if l.startswith('"')]
    metrics = collections.defaultdict(set)
    for r in csv.DictReader(lines):
        metrics[(r["Process ID"], r["ID"])].add(r["Metric Name"])
    census = collections.Counter()
    with open(report) as f:
        for r in csv.DictReader(f):
            have = metrics.get((r["process_id"], r["launch_id"]), set())
            cset = "standard" if STD_ONLY in have else "cluster" if have else "?"
            census[(r["cluster_size"] or "1", cset, r["verdict"], float(r["jobs"] or 0) > 0, r["flags"])] += 1
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["cluster_size", "set", "verdict", "jobs>0", "flags", "launches"])
    for (cl, cset, verdict, jobs, flags), n in sorted(census.items()):
        out.writerow([cl, cset, verdict, "yes" if jobs else "no", flags, n])


if __name__ == "__main__":
    main()
