#!/usr/bin/env bash
# threads_start.sh - hostile run (h): the start of a program whose 8 host threads launch at once
# (examples/launches -n 32 -t 8 -s 4), 30 times; every third run with the sharing lock directory
# and the listing cache removed, as on a fresh machine.  Before the launch serialization of
# profile/inject/inject.c (wait_launches) about 1 run in 7 of this shape died of SIGSEGV inside
# CUPTI (docs/reliability.md, "The multi-thread crash"): 30 runs miss it with a chance of about
# 1 in 100.  Every run must exit 0 (the target checks its histograms) with all 32 launches in its
# counters file.
#   threads_start.sh [BIN_DIR [WORK_DIR]]      (exit 77 without a GPU)
# shellcheck source=tests/hostile/common.sh
source "$(dirname "$0")/common.sh"
hostile_need_gpu
runs=${THREADS_START_RUNS:-30}
n=32
cd "$work" || exit 1
lock_dir=${TMPDIR:-/tmp}/atomutil-$(id -u)
cache_dir=${XDG_CACHE_HOME:-$HOME/.cache}/atomutil
bad_exit=0 short=0
for ((i = 0; i < runs; i++)); do
    [ $((i % 3)) -eq 0 ] && rm -rf "$lock_dir" "$cache_dir"
    "$profile" -q -o "r$i" --csv -- "$launches" -n "$n" -t 8 -s 4 >"r$i.out" 2>"r$i.err"
    st=$?
    measured=$(count_launches "r$i.counters.csv")
    if [ "$st" != 0 ]; then
        bad_exit=$((bad_exit + 1))
        echo "  run $i: exit status $st, $measured of $n launches in the counters file"
        show_file stderr "r$i.err"
    elif [ "$measured" != "$n" ]; then
        short=$((short + 1))
        echo "  run $i: $measured of $n launches in the counters file"
    fi
done
check "all $runs runs exit 0 (failed: $bad_exit)" test "$bad_exit" = 0
check "every run's counters file holds its $n launches (short: $short)" test "$short" = 0
note "runs=$runs threads=8 launches_per_run=$n failed=$bad_exit short=$short"
hostile_finish
