#!/usr/bin/env bash
# threads_streams.sh - hostile run (e): 4 host threads, each launching on 8 streams of its own
# (examples/launches -t 4 -s 8).  Every launch must be measured once, from 32 distinct streams,
# the target's own result check must pass (its exit status 0), and every launch gets a verdict.
#   threads_streams.sh [BIN_DIR [WORK_DIR]]      (exit 77 without a GPU)
# shellcheck source=tests/hostile/common.sh
source "$(dirname "$0")/common.sh"
hostile_need_gpu
n=512
cd "$work" || exit 1
run_sampled ts "$profile" -q -o ts --csv -- "$launches" -n "$n" -t 4 -s 8
st=$RUN_STATUS
check "exit status 0 (target's histograms right under profiling): $st" test "$st" = 0
[ "$st" = 0 ] || show_file stderr ts.err
measured=$(count_launches ts.counters.csv)
check "counters file holds $n launches (has $measured)" test "$measured" = "$n"
rows=$(report_rows ts.csv)
check "report has $n rows (has $rows)" test "$rows" = "$n"
streams=$(paste -d ' ' <(csv_column ts.counters.csv Context) <(csv_column ts.counters.csv Stream) | sort -u | grep -c .)
check "launches come from 32 distinct streams (counted $streams)" test "$streams" = 32
dups=$(paste -d ' ' <(csv_column ts.counters.csv ID) <(csv_column ts.counters.csv "Metric Name") | sort | uniq -d | grep -c .)
check "no launch has a metric twice (duplicates: $dups)" test "$dups" = 0
unknown=$(csv_column ts.csv verdict | grep -c '^unknown$')
check "no launch without a verdict (unknown: $unknown)" test "$unknown" = 0
note "launches=$n threads=4 streams_per_thread=8 wall_s=$RUN_WALL launches_per_s=$(awk -v n="$n" -v s="$RUN_WALL" 'BEGIN { printf "%.0f", n / s }')"
hostile_finish
