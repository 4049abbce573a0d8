#!/usr/bin/env bash
# Where the loads of the advisor pairs come from, and how long warps wait on them, beside the
# atomics (issue 37, docs/advisor.md "Measured accuracy"): build/bin/advisor_pairs under ncu's
# application replay (the inputs stay where a live run finds them: L2 or DRAM) with DRAM, L2 and
# warp-stall counters, on 2 Mi and 16 Mi elements; probes/advisor_memory.py then prints one line
# per pair, baseline and variant.
#
#   probes/advisor_memory.sh OUT_DIR [BUILD_DIR]        (needs a GPU, ncu; clocks left as they are)
set -uo pipefail
out=${1:?usage: advisor_memory.sh OUT_DIR [BUILD_DIR]}
build=${2:-build}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
[ -x "$build/bin/advisor_pairs" ] || cmake --build "$build" --target advisor_pairs > /dev/null || exit 1
"$build/bin/advisor_pairs" --list > "$out/pairs.csv" || exit 1
M=smsp__warps_issue_stalled_mio_throttle.sum,smsp__warps_issue_stalled_long_scoreboard.sum,smsp__warps_active.sum
M=$M,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum
M=$M,gpu__time_duration.sum
for n in 2097152 16777216; do
    ncu --metrics "$M" --clock-control none --cache-control none --replay-mode application --csv --page raw \
        "$build/bin/advisor_pairs" --elements "$n" --reps 1 > "$out/probe_app_$n.csv" || exit 1
done
python3 "$here/probes/advisor_memory.py" "$out/pairs.csv" "$out/probe_app_2097152.csv" "$out/probe_app_16777216.csv"
