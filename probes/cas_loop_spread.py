#!/usr/bin/env python3
"""Why the advisor's points for CAS loops miss on framework histograms: kept runs of
validation/advisor_frameworks.py (or of validation/advisor_all.sh), no GPU.

usage: cas_loop_spread.py REPORT_CSV PAIRS_CSV [REPORT_CSV PAIRS_CSV ...]

REPORT_CSV  a merged fw_N.csv or fw_ncu_N.csv of advisor_frameworks.py, kernels named OP__INPUT
            (or any atomutil-profile --csv, kernels by their function names); .xz too
PAIRS_CSV   the run's pairs.csv

Per kernel (medians over its launches): its jobs per SM, passes per job (a), its CAS loops'
entries and attempts per entry (jobs / loop_entries, where the report has the entries: ncu's
source counters), the CAS's wavefronts per attempt (wavefronts / jobs), the loop's shared load's
(shared_wavefronts - wavefronts over the shared loads: every attempt has one, docs/model.md "CAS
loops"), and the busy cycles per job.  Per pair: its cure, the predicted and measured busy cycles
and pred/meas, the predicted time over the measured (time p/m); for a hashed pair also the two
factors of meas/pred: attempts (the variant's measured per entry over the point's: the spread
loop's 3.53, 32-bit, or 3.45, 64-bit, and 0.15 more an attempt for other warps' races, at most the
baseline's) and w/at (the variant's shared wavefronts per attempt over the spread loop's: 4.35 or
7.36; docs/advisor.md, "CAS loops with their entries").
"""
import csv
import io
import lzma
import statistics
import sys

# au_hashed_loop's figures (model/include/atomutil/advisor.h): attempts per entry, and the shared
# wavefronts of an attempt (its load's and its CAS's, two a pass), by the loop's width
SPREAD = {32: (3.532940993304805, 2.345320957274436 + 2 * 1.0),
          64: (3.453389875636610, 3.796330955530523 + 2 * 1.782739226191139)}
RACES = 0.15  # AU_LOOP_RACES


def rows(path):
    opener = lzma.open if path.endswith(".xz") else io.open
    with opener(path, "rt", newline="") as f:
        return list(csv.DictReader(f))


def med(rs, col):
    vals = [float(r[col]) for r in rs if r.get(col) not in ("", None)]
    return statistics.median(vals) if vals else float("nan")


def short_name(kernel):
    """advisor.py's: the full name without parameters, return type and namespaces."""
    name = kernel.split("(", 1)[0].strip()
    return name.split()[-1].rsplit("::", 1)[-1] if name else ""


def main(argv):
    if len(argv) < 2 or len(argv) % 2:
        print(__doc__, file=sys.stderr)
        return 2
    for report, pairs in zip(argv[0::2], argv[1::2]):
        by = {}
        for r in rows(report):
            by.setdefault(short_name(r["kernel"]), []).append(r)
        k = {}
        print("== %s" % report)
        print("%-28s %10s %6s %9s %9s %8s %8s %8s %8s" % ("kernel", "jobs/SM", "a", "entries", "att/entry",
                                                         "cas w/at", "lds w/at", "w/at", "busy/job"))
        for name, rs in sorted(by.items()):
            j, e = med(rs, "jobs"), med(rs, "loop_entries")
            w, sw, ld = med(rs, "wavefronts"), med(rs, "shared_wavefronts"), med(rs, "shared_ld_inst")
            k[name] = {"r": j / e, "busy_at": med(rs, "busy_cycles") / med(rs, "jobs_per_sm"), "w_at": sw / j,
                       "width": 64 if "cast_spin64" in rs[0].get("opcode_classes", "") else 32}
            print("%-28s %10.1f %6.2f %9.0f %9.2f %8.3f %8.3f %8.3f %8.5f" % (
                name, med(rs, "jobs_per_sm"), med(rs, "a_passes_per_job"), e, j / e, w / j,
                (sw - w) / ld if ld else float("nan"), sw / j, k[name]["busy_at"]))
        print("%-30s %-8s %10s %10s %9s %9s %9s %8s" % ("pair", "cure", "pred busy", "meas busy", "pred/meas",
                                                        "time p/m", "attempts", "w/at"))
        for p in rows(pairs):
            b, v = p["base_kernel"], p["variant_kernel"]
            if b not in by or v not in by:
                continue
            pred, meas = med(by[b], "whatif_%s_busy_cycles" % p["cure"]), med(by[v], "busy_cycles")
            t = med(by[b], "whatif_%s_time_ns" % p["cure"]) / med(by[v], "duration_ns")
            line = "%-30s %-8s %10.1f %10.1f %9.4f %9.3f" % (p["pair"], p["cure"], pred, meas, pred / meas, t)
            if p["cure"] == "hashed":
                at, wf = SPREAD[k[b]["width"]]
                att = min(k[v]["r"], k[b]["r"]) / min(at * (1 + RACES), k[b]["r"])
                line += " %9.2f %8.2f" % (att, k[v]["w_at"] / wf)
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
