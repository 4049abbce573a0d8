#!/usr/bin/env bash
# Overhead of live profiling: wall time of each target alone, under atomutil-profile (default:
# with the kernels' opcodes read from their code, docs/opcodes.md; and --no-opcodes), and under
# ncu collecting the same counters (--clock-control none --cache-control none), median of REPS
# runs each.  Run on a GPU machine from the repository root after building; prints a Markdown
# table (docs/performance.md) and the GPU it ran on.  Never changes device settings.
#   bench/bench_overhead.sh [BUILD_DIR] [REPS]
set -euo pipefail
build=${1:-build}
reps=${2:-3}
prof="$build/bin/atomutil-profile"
metrics=$("$prof" --print-ncu-metrics)
table=${ATOMUTIL_BENCH_TABLE:-tests/data/golden-table.csv} # the table does not change collection
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
wall() { # seconds of one run of "$@", output discarded; fails loudly if the command fails
    local t0 t1
    t0=$(date +%s.%N)
    "$@" > "$tmp/out" 2> "$tmp/err" || { echo "bench_overhead: failed: $*" >&2; cat "$tmp/err" >&2; exit 1; }
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.4f\n", b - a}'
}

targets=(
    "histogram (16 launches)|$build/bin/histogram --reps 1"
    "launches -n 64|$build/bin/launches -n 64"
    "launches -n 200 (4 threads, 8 streams)|$build/bin/launches -n 200 -t 4 -s 8"
)
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
echo "GPU: $gpu; $reps runs each, median wall seconds"
echo
echo "| target | alone | atomutil-profile | atomutil-profile --no-opcodes | ncu, same counters | atomutil / ncu | --no-opcodes / ncu | --no-opcodes overhead per launch |"
echo "|---|---|---|---|---|---|---|---|"
for t in "${targets[@]}"; do
    name=${t%%|*}
    read -r -a cmd <<< "${t#*|}"
    a=(); p=(); q=(); n=()
    for ((i = 0; i < reps; ++i)); do
        a+=("$(wall "${cmd[@]}")")
        p+=("$(wall "$prof" -q --table "$table" -o "$tmp/p" -- "${cmd[@]}")")
        q+=("$(wall "$prof" -q --no-opcodes --table "$table" -o "$tmp/q" -- "${cmd[@]}")")
        n+=("$(wall ncu --csv --clock-control none --cache-control none --metrics "$metrics" "${cmd[@]}")")
    done
    ma=$(printf '%s\n' "${a[@]}" | median)
    mp=$(printf '%s\n' "${p[@]}" | median)
    mq=$(printf '%s\n' "${q[@]}" | median)
    mn=$(printf '%s\n' "${n[@]}" | median)
    launches=$(grep -c '"sm__cycles_active.avg"' "$tmp/q.counters.csv")
    awk -v name="$name" -v a="$ma" -v p="$mp" -v q="$mq" -v n="$mn" -v l="$launches" 'BEGIN {
        printf "| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.1f ms (%d launches) |\n", name, a, p, q, n,
               p / n, q / n, (q - a) * 1000 / l, l }'
done
