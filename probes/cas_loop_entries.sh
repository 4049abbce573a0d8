#!/usr/bin/env bash
# How many times a CAS loop is entered, which no counter of atomutil's sets counts (issue 37,
# docs/advisor.md "What the counters cannot tell"): ncu's SourceCounters section (executions per
# SASS instruction) on the k-means pair of build/bin/advisor_pairs (every point in one centroid,
# and uniform data), then probes/cas_loop_entries.py prints, per kernel, the executions of the
# CAS-loop instructions and of those before the loop.
#
#   probes/cas_loop_entries.sh OUT_DIR [BUILD_DIR]      (needs a GPU, ncu; clocks left as they are)
set -uo pipefail
out=${1:?usage: cas_loop_entries.sh OUT_DIR [BUILD_DIR]}
build=${2:-build}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
[ -x "$build/bin/advisor_pairs" ] || cmake --build "$build" --target advisor_pairs > /dev/null || exit 1
ncu --clock-control none --section SourceCounters --metrics smsp__inst_executed_op_shared_atom.sum \
    -k regex:adv_kmeans_one_lane -o "$out/kmeans" -f \
    "$build/bin/advisor_pairs" --pair kmeans_one_lane --elements 2097152 --reps 1 > "$out/ncu.log" 2>&1 || exit 1
ncu --import "$out/kmeans.ncu-rep" --page source --csv --print-source sass > "$out/source.csv" || exit 1
ncu --import "$out/kmeans.ncu-rep" --page raw --csv --metrics smsp__inst_executed_op_shared_atom.sum \
    > "$out/raw.csv" || exit 1
python3 "$here/probes/cas_loop_entries.py" "$out/source.csv" "$out/raw.csv"
