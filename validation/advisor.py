#!/usr/bin/env python3
"""Accuracy of atomutil's advisor (its what-if pricing of cures) on the advisor pairs
(docs/validation.md, "Advisor pairs").

usage: advisor.py REPORT_CSV PAIRS_CSV [REPORT_CSV PAIRS_CSV ...]

REPORT_CSV  atomutil-profile --csv of a run of build/bin/advisor_pairs (per launch; .gz or .xz too)
PAIRS_CSV   advisor_pairs --list: pair,set,cure,base_kernel,variant_kernel,adds_work
Several runs (advisor_pairs with other sizes, say) are scored together, each run's pairs named
"PAIR@RUN", RUN the report's file name without its extensions.

A launch belongs to a kernel by its function name (the report's full name without return type,
namespaces and parameter list).  Per pair, over all launches of each kernel (warm-up included):
  predicted  the medians of the baseline's whatif_CURE_busy_cycles, _time_ns, _time_lo_ns and
             _time_hi_ns (CURE the pair's cure): what the advisor says the cure would give
  measured   the medians of the variant's busy_cycles and duration_ns, and of the baseline's
             duration_ns
and the errors |predicted - measured| / measured in %.  A pair is missing when its prediction
(any of the four figures; the advisor leaves a cure that does not apply empty) or a measurement
(no launch of a kernel, no busy cycles or none above 0) is: it is listed with the reason, counts
in P and not in range, and is left out of the means and of wrong-direction.

Prints a markdown table, one row per pair, then three lines, the last two for the sets of the
issue (data-only, then all pairs), the first for the pairs whose variant adds no work
(adds_work "none"):
  advisor: SET pairs P busy-mape B time-mape T in-range K/P wrong-direction W missing M
P pairs; B and T the mean absolute % errors of busy cycles and time ("-" without a priced pair);
K pairs whose measured time lies in the predicted [lo, hi]; W pairs predicted faster than the
baseline that measured more than 5 % slower than it; M missing pairs.
Exit status 0 with a table, 1 on an unreadable or malformed input (one line on stderr), 2 on a
usage error.
"""
import csv
import gzip
import io
import lzma
import math
import os
import statistics
import sys

CURES = ("one_pass", "hashed", "replicate_2", "replicate_4", "replicate_8", "replicate_32", "aggregate", "popc",
         "native")
SETS = ("data-only", "code")
PAIR_COLUMNS = ("pair", "set", "cure", "base_kernel", "variant_kernel", "adds_work")
REPORT_COLUMNS = ("kernel", "duration_ns", "busy_cycles")
SLOWER = 1.05  # measured slower: more than 5 % above the baseline's time


def die(msg):
    print("advisor.py: %s" % msg, file=sys.stderr)
    sys.exit(1)


def read_csv(path, need):
    """The rows of a CSV file (plain, .gz or .xz) as dicts; dies unless it has the columns need."""
    opener = gzip.open if path.endswith(".gz") else lzma.open if path.endswith(".xz") else io.open
    try:
        with opener(path, "rt", newline="") as f:
            reader = csv.DictReader(f)
            rows = list(reader)
            have = reader.fieldnames or []
    except (OSError, EOFError, lzma.LZMAError, UnicodeDecodeError, csv.Error) as e:
        die("%s: %s" % (path, e))
    lack = [c for c in need if c not in have]
    if lack:
        die("%s: no column %s" % (path, ", ".join(lack)))
    return rows


def short_name(kernel):
    """A kernel's function name: its full name without parameters, return type and namespaces."""
    name = kernel.split("(", 1)[0].strip()
    return name.split()[-1].rsplit("::", 1)[-1] if name else ""


def number(s):
    try:
        v = float(s)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def median(rows, column):
    vals = [v for v in (number(r.get(column)) for r in rows) if v is not None]
    return statistics.median(vals) if vals else None


def read_pairs(path):
    pairs = read_csv(path, PAIR_COLUMNS)
    seen = set()
    for line, p in enumerate(pairs, 2):
        if p["cure"] not in CURES:
            die("%s:%d: pair '%s': unknown cure '%s'" % (path, line, p["pair"], p["cure"]))
        if p["set"] not in SETS:
            die("%s:%d: pair '%s': unknown set '%s'" % (path, line, p["pair"], p["set"]))
        if p["pair"] in seen:
            die("%s:%d: pair '%s' named twice" % (path, line, p["pair"]))
        seen.add(p["pair"])
    return pairs


def evaluate(p, launches):
    """The figures of one pair (a dict), 'missing' naming what lacks (empty when priced)."""
    base = launches.get(p["base_kernel"], [])
    var = launches.get(p["variant_kernel"], [])
    w = "whatif_%s_" % p["cure"]
    r = {"pred_busy": median(base, w + "busy_cycles"), "pred_t": median(base, w + "time_ns"),
         "lo": median(base, w + "time_lo_ns"), "hi": median(base, w + "time_hi_ns"),
         "base_t": median(base, "duration_ns"), "meas_busy": median(var, "busy_cycles"),
         "meas_t": median(var, "duration_ns")}
    missing = []
    if not base:
        missing.append("no launch of %s" % p["base_kernel"])
    elif None in (r["pred_busy"], r["pred_t"], r["lo"], r["hi"]):
        missing.append("no prediction")
    if not var:
        missing.append("no launch of %s" % p["variant_kernel"])
    elif not r["meas_busy"]:
        missing.append("no measured busy cycles")
    if base and var and None in (r["base_t"], r["meas_t"]):
        missing.append("no duration")
    r["missing"] = "; ".join(missing)
    if not missing:
        r["busy_err"] = abs(r["pred_busy"] - r["meas_busy"]) / r["meas_busy"] * 100.0
        r["time_err"] = abs(r["pred_t"] - r["meas_t"]) / r["meas_t"] * 100.0
        r["in_range"] = r["lo"] <= r["meas_t"] <= r["hi"]
        r["wrong"] = r["pred_t"] < r["base_t"] and r["meas_t"] > r["base_t"] * SLOWER
    return r


def fmt(v, spec="%.1f"):
    return "-" if v is None else spec % v


def table_row(p, r):
    us = lambda v: fmt(None if v is None else v / 1000.0, "%.2f")
    if r["missing"]:
        tail = ["-", "no", "missing: " + r["missing"]]
    else:
        change = lambda t: (t / r["base_t"] - 1.0) * 100.0 if r["base_t"] else 0.0
        tail = ["%.1f" % r["time_err"], "yes" if r["in_range"] else "no",
                "%s (%+.1f/%+.1f %%)" % ("WRONG" if r["wrong"] else "ok", change(r["pred_t"]), change(r["meas_t"]))]
    return "| %s |" % " | ".join([p["pair"], p["set"], p["cure"], fmt(r["pred_busy"]), fmt(r["meas_busy"]),
                                  fmt(r.get("busy_err")), us(r["base_t"]),
                                  "%s [%s, %s]" % (us(r["pred_t"]), us(r["lo"]), us(r["hi"])), us(r["meas_t"])] + tail + [p["adds_work"]])


def summary(label, results):
    """The line `advisor: LABEL pairs P busy-mape B time-mape T in-range K/P wrong-direction W missing M`."""
    priced = [r for r in results if not r["missing"]]
    mean = lambda xs: "%.1f" % (sum(xs) / len(xs)) if xs else "-"
    return "advisor: %s pairs %d busy-mape %s time-mape %s in-range %d/%d wrong-direction %d missing %d" % (
        label, len(results), mean([r["busy_err"] for r in priced]), mean([r["time_err"] for r in priced]),
        sum(1 for r in priced if r["in_range"]), len(results), sum(1 for r in priced if r["wrong"]),
        len(results) - len(priced))


def main(argv):
    if len(argv) == 2 and argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0
    args = argv[1:]
    if not args or len(args) % 2 or any(a.startswith("-") for a in args):
        print("usage: advisor.py REPORT_CSV PAIRS_CSV [REPORT_CSV PAIRS_CSV ...]", file=sys.stderr)
        return 2
    pairs, results = [], []
    for report, pairs_csv in zip(args[0::2], args[1::2]):
        run_pairs = read_pairs(pairs_csv)
        launches = {}
        for row in read_csv(report, REPORT_COLUMNS):
            launches.setdefault(short_name(row["kernel"]), []).append(row)
        results += [evaluate(p, launches) for p in run_pairs]
        if len(args) > 2:
            run = os.path.basename(report).split(".")[0]
            run_pairs = [dict(p, pair="%s@%s" % (p["pair"], run)) for p in run_pairs]
        pairs += run_pairs
    print("| pair | set | cure | pred busy | meas busy | busy err % | base time (us) | pred time [lo, hi] (us) "
          "| meas time (us) | time err % | in range | direction (pred/meas time change) | adds work |")
    print("|" + "---|" * 13)
    for p, r in zip(pairs, results):
        print(table_row(p, r))
    print()
    print(summary("no-added-work", [r for p, r in zip(pairs, results) if p["adds_work"] == "none"]))
    print(summary("data-only", [r for p, r in zip(pairs, results) if p["set"] == "data-only"]))
    print(summary("all", results))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
