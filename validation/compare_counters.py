#!/usr/bin/env python3
"""Compares the raw counters of two runs of the same deterministic program, launch by launch:
an atomutil counters file (BASE.counters.csv) against an Nsight Compute export of the same command
(or any two such files).  Launches are matched in order of appearance and must have the same kernel
name up to its parameter list (ncu and the C++ runtime spell parameter types differently).

usage: compare_counters.py A.csv B.csv [--tolerance PCT] [--wavefront-tolerance PCT] [--timing-tolerance PCT]
Prints one line per metric and launch pair that differs by more than its tolerance (instruction
counts: 0, they must be equal for deterministic kernels; wavefronts 0.5 %; active cycles and warps
10 %, they depend on timing), then a summary; exit status 1 if any differs.
"""
import argparse
import csv
import sys

METRICS = [
    "smsp__inst_executed_op_shared_atom.sum",
    "smsp__inst_executed_op_shared_atom_dot_cas.sum",
]
# wavefronts vary by a few hundred per million between two runs of the same launch, under ncu
# as under atomutil (docs/live-profiling.md): compared with --wavefront-tolerance
WAVES = ["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum"]
# timing-dependent: compared with the looser --timing-tolerance
TIMING = ["sm__cycles_active.avg", "sm__warps_active.avg.per_cycle_active"]


def base(kernel):
    """Kernel name without return type and parameter list."""
    k = kernel[5:] if kernel.startswith("void ") else kernel
    depth = 0
    for i in range(len(k) - 1, -1, -1):
        if k[i] == ")":
            depth += 1
        elif k[i] == "(":
            depth -= 1
            if depth == 0:
                return k[:i]
    return k


def load(path):
    launches, order = {}, []
    with open(path, newline="") as f:
        header = None
        for line in f:
            if not line.startswith('"'):
                continue
            row = next(csv.reader([line]))
            if header is None:
                if row and row[0] == "ID":
                    header = {name: i for i, name in enumerate(row)}
                continue
            key = (row[header["Process ID"]], row[header["ID"]])
            if key not in launches:
                launches[key] = {"kernel": row[header["Kernel Name"]]}
                order.append(key)
            value = row[header["Metric Value"]].replace(",", "")
            try:
                launches[key][row[header["Metric Name"]]] = float(value)
            except ValueError:
                pass
    return [launches[k] for k in order]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--tolerance", type=float, default=0.0, help="percent, event counters")
    ap.add_argument("--wavefront-tolerance", type=float, default=0.5, help="percent, wavefronts")
    ap.add_argument("--timing-tolerance", type=float, default=10.0, help="percent, cycles and warps")
    args = ap.parse_args()
    a, b = load(args.a), load(args.b)
    if len(a) != len(b):
        print(f"launch count differs: {len(a)} vs {len(b)}")
    bad = checked = 0
    for i, (la, lb) in enumerate(zip(a, b)):
        if base(la["kernel"]) != base(lb["kernel"]):
            print(f"launch {i}: kernel differs: {la['kernel']!r} vs {lb['kernel']!r}")
            bad += 1
            continue
        for m in METRICS + WAVES + TIMING:
            if m not in la or m not in lb:
                print(f"launch {i} {m}: missing in {'A' if m not in la else 'B'}")
                bad += 1
                continue
            tol = (args.timing_tolerance if m in TIMING else
                   args.wavefront_tolerance if m in WAVES else args.tolerance)
            va, vb = la[m], lb[m]
            rel = abs(va - vb) / max(abs(va), abs(vb), 1e-12) * 100
            checked += 1
            if rel > tol:
                print(f"launch {i} {la['kernel'][:40]} {m}: {va:.6g} vs {vb:.6g} ({rel:.2f} %)")
                bad += 1
    print(f"compared {checked} values over {min(len(a), len(b))} launches: {bad} differ"
          f" (tolerance: instructions {args.tolerance} %, wavefronts {args.wavefront_tolerance} %,"
          f" cycles/warps {args.timing_tolerance} %)")
    return 1 if bad or len(a) != len(b) else 0


if __name__ == "__main__":
    sys.exit(main())
