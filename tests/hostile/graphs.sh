#!/usr/bin/env bash
# graphs.sh - hostile run (f): CUDA graphs (examples/launches --graph: each host thread captures
# its launches into a graph and launches it once).  Each graph launch is measured as one range of
# the CUPTI Range Profiler (user range, docs/live-profiling.md) and gives one report row named
# "graph N (K kernel nodes)"; the target's results must stay right (its own check, exit status 0).
# The graph row's shared-atomic jobs are exact: each launch of small_hist runs 1 MiB / 32 lanes =
# 32768 warp-level atomics, so a graph of K launches counts 32768 K (Nsight Compute's
# --graph-profiling graph gives the same, docs/performance.md, "CUDA graphs and stream capture").
# Then: ATOMUTIL_GRAPHS=off (graphs unmeasured, counted); graphs mixed with ordinary launches in
# one process tree (two targets under one shell).
#   graphs.sh [BIN_DIR [WORK_DIR]]      (exit 77 without a GPU)
# shellcheck source=tests/hostile/common.sh
source "$(dirname "$0")/common.sh"
hostile_need_gpu
cd "$work" || exit 1

"$profile" -o g --csv -- "$launches" -n 32 -t 2 --graph >g.out 2>g.err
st=$?
check "graphs: exit status 0, got $st" test "$st" = 0
check "graphs: the program's results were right (its check passed)" grep -q "graph=1" g.out
check "graphs: the counters file says 2 graph launches were measured" \
    grep -q "graphs: 2 CUDA graph launches measured" g.counters.csv
rows=$(report_rows g.csv)
check "graphs: the report has 2 rows, one per graph launch (has $rows)" test "$rows" = 2
names=$(csv_column g.csv kernel | sort -u | tr '\n' ';')
check "graphs: the rows are named by graph and kernel count ($names)" \
    test "$names" = "graph 0 (16 kernel nodes);graph 1 (16 kernel nodes);"
jobs=$(csv_column g.csv jobs | sort -u | tr '\n' ' ')
check "graphs: each graph row counts 16 x 32768 shared-atomic jobs ($jobs)" test "$jobs" = "524288 "
check "graphs: the graph rows name their kernels" grep -q "graph: .*small_hist" g.counters.csv
[ "$failures" = 0 ] || show_file "graphs stderr" g.err

ATOMUTIL_GRAPHS=off "$profile" -o off --csv -- "$launches" -n 32 -t 2 --graph >off.out 2>off.err
st=$?
check "ATOMUTIL_GRAPHS=off: exit status 5 (program ok, nothing measured), got $st" test "$st" = 5
check "ATOMUTIL_GRAPHS=off: stderr says 2 CUDA graph launches were not measured" \
    grep -q "not measured: 2 CUDA graph launches" off.err
check "ATOMUTIL_GRAPHS=off: the program's results were right" grep -q "graph=1" off.out

"$profile" -o mix --csv -- sh -c "'$launches' -n 16 --graph && '$launches' -n 24" >mix.out 2>mix.err
st=$?
check "graphs then ordinary launches: exit status 0, got $st" test "$st" = 0
measured=$(count_launches mix.counters.csv)
check "mixed: 1 graph launch and 24 ordinary launches are measured (has $measured)" test "$measured" = 25
rows=$(report_rows mix.csv)
check "mixed: the report has 25 rows (has $rows)" test "$rows" = 25
[ "$failures" = 0 ] || show_file "mixed stderr" mix.err
hostile_finish
