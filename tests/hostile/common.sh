# shellcheck shell=bash disable=SC2034 # a library: its RUN_* results are read by the scripts that source it
# common.sh - sourced by the hostile GPU runs of tests/hostile: arguments, the GPU check (exit 77
# without one), PASS/FAIL bookkeeping, a CSV reader for reports and counters files, launch
# counting and peak-memory sampling.  bash; POSIX tools (awk, ps) only.
#
# Every script takes the same arguments:
#   SCRIPT [BIN_DIR [WORK_DIR]]
# BIN_DIR holds atomutil-profile and launches (default: $ATOMUTIL_BIN_DIR, else build/bin of this
# repository); WORK_DIR receives counters files, reports and logs (default: a new directory under
# ${TMPDIR:-/tmp}, kept so that the evidence can be read after the run).

hostile_name=$(basename "$0" .sh)
hostile_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin_dir=${1:-${ATOMUTIL_BIN_DIR:-$hostile_root/build/bin}}
# the checks run in their own work directory: a relative BIN_DIR must still resolve there
[ -d "$bin_dir" ] && bin_dir=$(cd "$bin_dir" && pwd)
work=${2:-}
profile=$bin_dir/atomutil-profile
launches=$bin_dir/launches
checks=0
failures=0

# Exit 77 (skipped) without a usable NVIDIA GPU or without the binaries (a build without CUDA).
hostile_need_gpu() {
    if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
        echo "$hostile_name: SKIP (no NVIDIA GPU; these runs are for a GPU machine)"
        exit 77
    fi
    if [ ! -x "$profile" ] || [ ! -x "$launches" ]; then
        echo "$hostile_name: SKIP ($profile or $launches not built: configure with CUDA)"
        exit 77
    fi
    if [ -z "$work" ]; then
        work=$(mktemp -d "${TMPDIR:-/tmp}/atomutil-hostile-$hostile_name.XXXXXX")
    else
        rm -rf "$work"
    fi
    mkdir -p "$work"
    work=$(cd "$work" && pwd)
    echo "$hostile_name: work directory $work"
}

# check DESCRIPTION COMMAND...: one PASS or FAIL line
check() {
    local what=$1
    shift
    checks=$((checks + 1))
    if "$@"; then
        echo "  PASS  $what"
    else
        echo "  FAIL  $what"
        failures=$((failures + 1))
    fi
}

# note TEXT: a measured figure, printed as 'RESULT name=value' for docs/reliability.md
note() {
    echo "  RESULT $*"
}

# The summary line and the exit status: 0 all checks passed, 1 otherwise.
hostile_finish() {
    if [ "$failures" -eq 0 ]; then
        echo "$hostile_name: PASS ($checks checks)"
        exit 0
    fi
    echo "$hostile_name: FAIL ($failures of $checks checks failed; evidence in $work)"
    exit 1
}

# show_file LABEL FILE: the first lines of a log, for the reader of a failure
show_file() {
    echo "  ---- $1 ($2):"
    head -n 20 "$2" 2>/dev/null | cut -c 1-300 | sed 's/^/  | /'
}

# csv_column FILE NAME: the values of column NAME of a CSV file, one per row.  The header is the
# first line with a field NAME; fields may be quoted and hold commas (kernel names, grid sizes);
# blank lines and the counters file's '==ATOMUTIL==' lines are skipped.
csv_column() {
    awk -v want="$2" '
    function split_csv(line, F,    i, c, f, q, n, len) {
        n = 0; f = ""; q = 0; len = length(line)
        for (i = 1; i <= len; i++) {
            c = substr(line, i, 1)
            if (q) {
                if (c == "\"") {
                    if (substr(line, i + 1, 1) == "\"") { f = f c; i++ } else q = 0
                } else f = f c
            } else if (c == "\"") q = 1
            else if (c == ",") { F[++n] = f; f = "" }
            else f = f c
        }
        F[++n] = f
        return n
    }
    { sub(/\r$/, "") }
    $0 == "" || /^==/ { next }
    !col {
        n = split_csv($0, H)
        for (i = 1; i <= n; i++) if (H[i] == want) col = i
        next
    }
    { split_csv($0, F); print F[col] }
    ' "$1"
}

# count_launches COUNTERS_FILE: launches with at least one row (distinct process id and launch id)
count_launches() {
    paste -d ' ' <(csv_column "$1" "Process ID") <(csv_column "$1" "ID") | sort -u | grep -c .
}

# report_rows REPORT_CSV: launches in a --csv report
report_rows() {
    local n
    n=$(wc -l <"$1" 2>/dev/null || echo 1)
    echo $((n - 1))
}

# peak_kb PID: the high-water mark of resident memory of PID (VmHWM, KiB), empty once it is gone
peak_kb() {
    awk '/^VmHWM:/ { print $2 }' "/proc/$1/status" 2>/dev/null
}

# descendants PID: every process below PID
descendants() {
    local c
    for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do
        echo "$c"
        descendants "$c"
    done
}

# sample_peaks PID OUT: until PID exits, every 0.1 s, the largest VmHWM of PID itself and of any
# of its descendants; writes "SELF_KB CHILDREN_KB" to OUT.  A sample, so a peak reached in the last
# 0.1 s of a process can be missed (measure_import gives the exact figure for the report phase).
sample_peaks() {
    local root=$1 out=$2 self=0 kids=0 v p
    while kill -0 "$root" 2>/dev/null; do
        v=$(peak_kb "$root")
        [ -n "$v" ] && [ "$v" -gt "$self" ] && self=$v
        for p in $(descendants "$root"); do
            v=$(peak_kb "$p")
            [ -n "$v" ] && [ "$v" -gt "$kids" ] && kids=$v
        done
        echo "$self $kids" >"$out"
        sleep 0.1
    done
}

# run_sampled OUT_PREFIX COMMAND...: runs COMMAND with stdout/stderr to OUT_PREFIX.out/.err, sets
# RUN_STATUS, RUN_WALL (seconds), RUN_SELF_KB (the command's own peak) and RUN_KIDS_KB (largest
# peak among its children)
run_sampled() {
    local prefix=$1
    shift
    local t0 t1 pid spid
    t0=$(date +%s.%N)
    "$@" >"$prefix.out" 2>"$prefix.err" &
    pid=$!
    sample_peaks "$pid" "$prefix.peaks" &
    spid=$!
    wait "$pid"
    RUN_STATUS=$?
    t1=$(date +%s.%N)
    wait "$spid" 2>/dev/null
    RUN_WALL=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
    read -r RUN_SELF_KB RUN_KIDS_KB <"$prefix.peaks" 2>/dev/null || { RUN_SELF_KB=0; RUN_KIDS_KB=0; }
}

# max_rss_kb OUT COMMAND...: exact peak resident memory of COMMAND (GNU time when installed, else
# sampled), in KiB, to stdout; the command's own output goes to OUT.out/.err
max_rss_kb() {
    local prefix=$1
    shift
    if [ -x /usr/bin/time ] && /usr/bin/time -f %M true >/dev/null 2>&1; then
        /usr/bin/time -o "$prefix.time" -f %M "$@" >"$prefix.out" 2>"$prefix.err"
        RUN_STATUS=$?
        tail -n 1 "$prefix.time"
    else
        run_sampled "$prefix" "$@"
        echo "$RUN_SELF_KB"
    fi
}
