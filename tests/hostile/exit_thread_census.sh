#!/usr/bin/env bash
# exit_thread_census.sh - where does case (c) of docs/reliability.md crash?  Runs
#   launches -n 400 --exit-thread-after 100 -t 4 -s 2
# (exit(3) from one of four launching threads) RUNS times alone and RUNS times under atomutil's
# injection library (the environment atomutil-profile gives a program), with segv_where.so
# preloaded, and prints the exit statuses and, for each SIGSEGV, the object holding the faulting
# instruction (the program itself: its statically linked CUDA runtime).  Needs a GPU.
#   tests/hostile/exit_thread_census.sh [BUILD_DIR [RUNS]]
set -u
build=$(cd "${1:-build}" && pwd)
runs=${2:-20}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin=$build/bin/launches
inject=$build/lib/atomutil/libatomutil_inject.so
preload=$build/tests/hostile/libsegv_where.so
for f in "$bin" "$inject" "$preload"; do
    [ -e "$f" ] || { echo "exit_thread_census.sh: $f missing (build first)" >&2; exit 2; }
done
nvidia-smi -L > /dev/null 2>&1 || { echo "no GPU: skipped"; exit 77; }
census() { # LABEL [ENV...]
    local label=$1
    shift
    : > "$work/st" && : > "$work/where"
    for ((i = 0; i < runs; ++i)); do
        rm -f "$work/c.csv"
        env "$@" LD_PRELOAD="$preload" "$bin" -n 400 --exit-thread-after 100 -t 4 -s 2 > /dev/null 2> "$work/err"
        echo $? >> "$work/st"
        grep -m1 '^SEGV' "$work/err" | sed -e 's/.* in //' >> "$work/where"
    done
    echo "$label, $runs runs: exit statuses: $(sort -n "$work/st" | uniq -c | awk '{printf "%s x %s, ", $1, $2}' | sed 's/, $//')"
    echo "  runs with a SIGSEGV: $(wc -l < "$work/where"); faulting object:"
    sort "$work/where" | uniq -c | sed 's/^/   /'
}
mkdir -p "$work/cubins"
census "alone"
census "under the injection library" CUDA_INJECTION64_PATH="$inject" ATOMUTIL_COUNTERS_FILE="$work/c.csv" \
    ATOMUTIL_CUBIN_DIR="$work/cubins"
