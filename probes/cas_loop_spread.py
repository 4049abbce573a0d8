#!/usr/bin/env python3
"""Why the advisor's `hashed` point reads a CAS loop's busy time low: a kept run of
validation/advisor_frameworks.py --ncu, no GPU.

usage: cas_loop_spread.py MERGED_NCU_CSV PAIRS_CSV [MERGED_NCU_CSV PAIRS_CSV ...]

MERGED_NCU_CSV  fw_ncu_N.csv of the run (.xz too): the histogram kernels' launches under ncu,
                named OP__INPUT, with their loops' entries (docs/results/advisor-frameworks-h200-2026-11-29)
PAIRS_CSV       the run's pairs.csv

Per kernel (medians over its launches): attempts per entry (jobs / loop_entries), the CAS's
wavefronts per attempt (wavefronts / jobs), the loop's shared load's (shared_wavefronts -
wavefronts over the shared loads: every attempt has one, docs/model.md "CAS loops"), the busy
cycles per attempt.  Per hashed pair: the predicted and measured busy cycles, and the two factors
of their ratio, attempts (measured per entry over the point's 3.53) and price (the variant's busy
per attempt over the baseline's, which the point keeps).
"""
import csv
import io
import lzma
import statistics
import sys

POINT = 3.53  # AU_RANDOM_MAX_LOAD_32: the hashed point's attempts per entry


def rows(path):
    opener = lzma.open if path.endswith(".xz") else io.open
    with opener(path, "rt", newline="") as f:
        return list(csv.DictReader(f))


def med(rs, col):
    vals = [float(r[col]) for r in rs if r.get(col) not in ("", None)]
    return statistics.median(vals) if vals else float("nan")


def main(argv):
    if len(argv) < 2 or len(argv) % 2:
        print(__doc__, file=sys.stderr)
        return 2
    for report, pairs in zip(argv[0::2], argv[1::2]):
        by = {}
        for r in rows(report):
            by.setdefault(r["kernel"], []).append(r)
        k = {}
        print("== %s" % report)
        print("%-22s %9s %8s %8s %8s %10s" % ("kernel", "att/entry", "cas w/at", "lds w/at", "w/at", "busy/at"))
        for name, rs in sorted(by.items()):
            j, e = med(rs, "jobs"), med(rs, "loop_entries")
            w, sw, ld = med(rs, "wavefronts"), med(rs, "shared_wavefronts"), med(rs, "shared_ld_inst")
            k[name] = {"r": j / e, "busy_at": med(rs, "busy_cycles") / j, "w_at": sw / j}
            print("%-22s %9.2f %8.3f %8.3f %8.3f %10.5f" % (name, j / e, w / j, (sw - w) / ld, sw / j,
                                                          k[name]["busy_at"]))
        print("%-26s %10s %10s %8s %10s %10s" % ("hashed pair", "pred busy", "meas busy", "meas/pred",
                                                   "attempts", "price"))
        for p in rows(pairs):
            b, v = p["base_kernel"], p["variant_kernel"]
            if p["cure"] != "hashed" or b not in by or v not in by:
                continue
            pred, meas = med(by[b], "whatif_hashed_busy_cycles"), med(by[v], "busy_cycles")
            att = min(k[v]["r"], k[b]["r"]) / min(POINT, k[b]["r"])
            price = k[v]["busy_at"] / k[b]["busy_at"]
            print("%-26s %10.1f %10.1f %8.2f %10.2f %10.2f" % (p["pair"], pred, meas, meas / pred, att, price))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
