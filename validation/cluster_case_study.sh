#!/usr/bin/env bash
# The distributed-shared-memory histogram (examples/cluster_histogram) against the per-block
# shared-memory histograms (examples/histogram) on the GPU at hand, for docs/case-study.md:
#
#   validation/cluster_case_study.sh OUT_DIR [BUILD_DIR]
#
# Builds nothing: expects BUILD_DIR/bin (default build) to hold cluster_histogram, histogram and
# atomutil-profile.  Needs a GPU of compute capability 9.0 or later with counter access; ncu for
# the reference counters (step ncu, skipped without it); cuobjdump for the SASS listing (skipped
# without it).  Clocks are left as they are (ncu with --clock-control none).  Writes to OUT_DIR:
#   env.txt                       GPU, driver, clocks, commit
#   sass_atoms.txt                the atomic instructions of both programs (cuobjdump)
#   cluster_time.txt              cluster_histogram alone: every image x cluster size 1, 2, 4, 8
#   cluster_prof.{txt,log,csv,counters.csv,cubins/}   the same run under atomutil-profile: the
#                                 program's output, atomutil's messages, the report (--csv), the
#                                 raw counters and the kernel code
#   hist_time.txt, hist_prof.*    examples/histogram, its default kernels and launch shape, every
#                                 image, alone and under atomutil-profile
#   hist1024_time.txt, hist1024_prof.*   the same with the cluster example's launch shape (block
#                                 1024, the grid of its cluster=1 line)
#   ncu.csv, ncu.log              ncu --page raw on cluster_histogram --repeat 1 (atomutil's
#                                 metrics and the distributed-shared-memory ones)
#   cluster_tables.md             validation/cluster_case_study.py's tables
#   steps.txt                     each step's exit status and wall time
# Each step has a time limit and the script goes on after a failed one; exit status 1 if any
# step failed.
set -uo pipefail
out=${1:?usage: cluster_case_study.sh OUT_DIR [BUILD_DIR]}
build=${2:-build}
here=$(cd "$(dirname "$0")/.." && pwd)
B=$build/bin
P=$B/atomutil-profile
for f in "$B/cluster_histogram" "$B/histogram" "$P"; do
    [ -x "$f" ] || { echo "cluster_case_study.sh: $f missing: build first (cmake --build $build -j)" >&2; exit 1; }
done
mkdir -p "$out"
: > "$out/steps.txt"
failed=0
step() { # step NAME SECONDS COMMAND...: runs with a time limit, logs the status and wall time
    local name=$1 limit=$2 t0=$SECONDS
    shift 2
    echo "== $name"
    timeout "$limit" "$@"
    local rc=$?
    echo "== $name: rc $rc, $((SECONDS - t0)) s" | tee -a "$out/steps.txt"
    [ $rc -eq 0 ] || failed=1
    return $rc
}

{
    nvidia-smi --query-gpu=name,compute_cap,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
    (cd "$here" && git rev-parse HEAD 2>/dev/null && git status --short 2>/dev/null | head -50)
    date -u +%Y-%m-%dT%H:%M:%SZ
} > "$out/env.txt" 2>&1
if command -v cuobjdump > /dev/null; then
    for prog in cluster_histogram histogram; do
        cuobjdump -sass "$B/$prog" | grep -E 'Function|ATOM|RED' | sed "s|^|$prog: |"
    done > "$out/sass_atoms.txt"
fi

# (a) the cluster histogram alone: timings (3 launches per case, the median)
step cluster-time 300 bash -c "'$B/cluster_histogram' > '$out/cluster_time.txt'"
# (b) the same run under atomutil (each kernel priced by its own opcodes, the default); the
#     counters file and the kernel code are kept (-o)
step cluster-prof 300 bash -c "'$P' -o '$out/cluster_prof' --csv -- '$B/cluster_histogram' \
    > '$out/cluster_prof.txt' 2> '$out/cluster_prof.log'"
# (c) the per-block histograms on the same images: the default kernels and launch shape, then the
#     cluster example's shape (block 1024, the grid of its cluster=1 line: 2 blocks per SM)
step hist-time 300 bash -c "'$B/histogram' -i all > '$out/hist_time.txt'"
step hist-prof 300 bash -c "'$P' -o '$out/hist_prof' --csv -- '$B/histogram' -i all \
    > '$out/hist_prof.txt' 2> '$out/hist_prof.log'"
grid=$(sed -n 's/^cluster_hist .* cluster=1 blocks=\([0-9]*\) .*/\1/p' "$out/cluster_time.txt" | head -n 1)
if [ -n "$grid" ]; then
    step hist1024-time 300 bash -c "'$B/histogram' -i all -b 1024 -g $grid > '$out/hist1024_time.txt'"
    step hist1024-prof 300 bash -c "'$P' -o '$out/hist1024_prof' --csv -- '$B/histogram' -i all -b 1024 -g $grid \
        > '$out/hist1024_prof.txt' 2> '$out/hist1024_prof.log'"
else
    echo "== hist1024: no cluster=1 line in cluster_time.txt, skipped" | tee -a "$out/steps.txt"
fi
# (d) reference counters from Nsight Compute: atomutil's metrics and those that see distributed
#     shared memory (docs/counters.md, "The cluster counter set"), one launch per case
if command -v ncu > /dev/null; then
    m=$("$P" --print-ncu-metrics)
    m="$m,sm__cycles_active.avg,gpu__time_duration.sum,launch__cluster_size"
    m="$m,smsp__inst_executed_op_generic_atom.sum,l1tex__t_requests_pipe_lsu_mem_dshared_op_atom.sum"
    m="$m,l1tex__t_output_wavefronts_pipe_lsu_mem_dshared_op_atom.sum,l1tex__m_l1tex2xbar_req_cycles_active_mem_dshared.sum"
    m=$(printf '%s' "$m" | tr ',' '\n' | awk 'NF && !seen[$0]++' | paste -sd, -) # each metric once
    step ncu 600 bash -c "ncu --clock-control none --csv --page raw --print-units base --metrics '$m' -k regex:^cluster_hist \
        '$B/cluster_histogram' --repeat 1 > '$out/ncu.csv' 2> '$out/ncu.log'"
else
    echo "== ncu: not found, skipped" | tee -a "$out/steps.txt"
fi

step tables 60 bash -c "python3 '$here/validation/cluster_case_study.py' '$out' > '$out/cluster_tables.md'"
cat "$out/cluster_tables.md" 2> /dev/null
cat "$out/steps.txt"
exit $failed
