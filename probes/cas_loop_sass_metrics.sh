#!/usr/bin/env bash
# Can CUPTI's SASS metrics API count a CAS loop's entries live, and at what cost (issue 37,
# docs/advisor.md "What the counters cannot tell")?  Builds probes/cas_loop_sass_metrics.cu for
# sm_90, runs it, lists its SASS, and probes/cas_loop_sass_metrics.py prints per kernel and data a
# loop's attempts, entries and the launch's time plain and patched.
#
#   probes/cas_loop_sass_metrics.sh OUT_DIR [ELEMENTS]     (needs an sm_90 GPU, nvcc, cuobjdump)
set -uo pipefail
out=${1:?usage: cas_loop_sass_metrics.sh OUT_DIR [ELEMENTS]}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
nvcc -O3 -arch=sm_90 -o "$out/cas_loop_sass_metrics" "$here/probes/cas_loop_sass_metrics.cu" -lcupti -lcuda || exit 1
# one process per kernel and data: only a process's first enable range gives records
: > "$out/probe.csv"
for r in 0 1 2 3; do
    "$out/cas_loop_sass_metrics" "${2:-2097152}" $r | grep -v '^chip' >> "$out/probe.csv" || exit 1
done
cuobjdump -sass "$out/cas_loop_sass_metrics" > "$out/sass.txt" || exit 1
python3 "$here/probes/cas_loop_sass_metrics.py" "$out/probe.csv" "$out/sass.txt"
