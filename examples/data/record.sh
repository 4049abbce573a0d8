#!/usr/bin/env bash
# Records the Nsight Compute export that the golden test and the README demo read:
#   examples/data/histogram-<gpu>.ncu.csv
# Run on a GPU machine from the repository root after building (cmake -S . -B build && cmake --build build).
# Clocks are left as they are (--clock-control none): atomutil never changes device settings.
# Caches are not flushed between kernels (--cache-control none): the kernels run as the program
# runs them, as under atomutil-profile's live collection.
set -euo pipefail
build=${BUILD_DIR:-build}
out=${1:-examples/data/histogram.ncu.csv}
metrics=$("$build/bin/atomutil-profile" --print-ncu-metrics)
set -x
ncu --csv --clock-control none --cache-control none --metrics "$metrics" "$build/bin/histogram" --reps 1 > "$out"
