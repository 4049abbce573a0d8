#!/usr/bin/env bash
# abnormal_end.sh - the shared body of hostile runs (b), (c), (d): the target ends abnormally right
# after its N-th launch (examples/launches --crash-after / --exit-thread-after / --kill-after).
# Checks, for one host thread (exact) and for 4 threads x 2 streams (at least N, another thread
# may have launched meanwhile):
#   - atomutil-profile's exit status is the target's (139 segfault, 3 exit(3), 137 SIGKILL); for
#     exit(3) with four threads the program itself races: the other threads' failing CUDA calls
#     make it exit with 1, or its statically linked CUDA runtime faults (139) or aborts on a double
#     free (134), also without atomutil (tests/hostile/exit_thread_census.sh, docs/reliability.md),
#     so there any of 3, 1, 139, 134 is the program's, and stderr must say which;
#   - the counters file holds every launch made before the end, and the report covers them all;
#   - stderr says how the program ended and that the counters were kept (what is missing).
#   abnormal_end.sh MODE [BIN_DIR [WORK_DIR]]      MODE: segfault | exit-thread | sigkill
mode=$1
shift
# shellcheck source=tests/hostile/common.sh
source "$(dirname "$0")/common.sh"
hostile_name=$mode
hostile_need_gpu
n=100
case $mode in
segfault) opt=--crash-after want_status=139 said='ended by signal 11' ;;
exit-thread) opt=--exit-thread-after want_status=3 said='' ;;
sigkill) opt=--kill-after want_status=137 said='ended by signal 9' ;;
*) echo "abnormal_end.sh: unknown mode '$mode'" >&2; exit 2 ;;
esac
cd "$work" || exit 1

# one_case LABEL EXACT LAUNCHES_ARGS...: no -o, as a user would run it (the counters file is
# atomutil-PID.counters.csv in the working directory, kept and named on stderr)
one_case() {
    local label=$1 exact=$2
    shift 2
    mkdir -p "$label" && cd "$label" || return
    "$profile" --csv -- "$launches" -n 400 "$opt" "$n" "$@" >report.csv 2>stderr.txt
    local st=$?
    if [ "$mode" = exit-thread ] && [ "$exact" = 0 ]; then
        check "$label: exit status is one the program itself ends with ($st: 3, 1, 139 or 134)" \
            test "$st" = 3 -o "$st" = 1 -o "$st" = 139 -o "$st" = 134
        if [ "$st" = 139 ]; then
            check "$label: stderr says the program was ended by signal 11" grep -q "ended by signal 11" stderr.txt
        elif [ "$st" = 134 ]; then
            check "$label: stderr says the program was ended by signal 6" grep -q "ended by signal 6" stderr.txt
        else
            check "$label: stderr says the program ended with status $st" \
                grep -qiE "(exit|status)[^0-9]*$st([^0-9]|$)" stderr.txt
        fi
    else
        check "$label: exit status is the target's ($st, want $want_status)" test "$st" = "$want_status"
    fi
    local counters
    counters=$(ls atomutil-*.counters.csv 2>/dev/null | head -n 1)
    check "$label: the counters file is kept" test -n "$counters"
    local measured rows
    measured=$( [ -n "$counters" ] && count_launches "$counters" || echo 0)
    rows=$(report_rows report.csv)
    if [ "$exact" = 1 ]; then
        check "$label: counters file holds the $n launches made before the end (has $measured)" \
            test "$measured" = "$n"
    else
        check "$label: counters file holds at least the $n launches made before the end (has $measured)" \
            test "$measured" -ge "$n"
    fi
    check "$label: the report covers every measured launch ($rows of $measured)" test "$rows" = "$measured"
    check "$label: stderr names the kept counters file" grep -q "counters kept in $counters" stderr.txt
    if [ "$mode" = exit-thread ] && [ "$exact" = 0 ]; then
        : # checked above, with the status
    elif [ -n "$said" ]; then
        check "$label: stderr says '$said'" grep -q "$said" stderr.txt
    else
        # exit(3) is an ordinary exit status: the report must still say the program failed
        check "$label: stderr says the program ended with status 3" \
            grep -qiE "(exit|status)[^0-9]*3([^0-9]|$)" stderr.txt
    fi
    note "$label: status=$st launches_measured=$measured report_rows=$rows"
    [ "$failures" = 0 ] || show_file "$label stderr" stderr.txt
    cd "$work" || return
}
one_case one-thread 1
one_case four-threads-two-streams 0 -t 4 -s 2
hostile_finish
