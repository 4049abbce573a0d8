#!/usr/bin/env bash
# graphs.sh - hostile run (f): CUDA graphs (examples/launches --graph: each host thread captures
# its launches into a graph and launches it once).  Graph launches run unprofiled (the range
# profiler does not measure them, docs/performance.md): the target's results must stay right
# (its own check, exit status 0), atomutil-profile must say how many graph launches were not
# measured, and with nothing else launched it reports that no kernel launch was measured (5).
# A second run mixes graphs with ordinary launches in one process tree (two targets under one
# shell): the ordinary ones are measured and reported.
#   graphs.sh [BIN_DIR [WORK_DIR]]      (exit 77 without a GPU)
# shellcheck source=tests/hostile/common.sh
source "$(dirname "$0")/common.sh"
hostile_need_gpu
cd "$work" || exit 1

"$profile" -o g --csv -- "$launches" -n 32 -t 2 --graph >g.out 2>g.err
st=$?
check "graphs only: exit status 5 (program ok, nothing measured), got $st" test "$st" = 5
check "graphs only: stderr says 2 CUDA graph launches were not measured" \
    grep -q "not measured: 2 CUDA graph launches" g.err
check "graphs only: the program's results were right (its check passed)" grep -q "graph=1" g.out
[ "$failures" = 0 ] || show_file "graphs-only stderr" g.err

"$profile" -o mix --csv -- sh -c "'$launches' -n 16 --graph && '$launches' -n 24" >mix.out 2>mix.err
st=$?
check "graphs then ordinary launches: exit status 0, got $st" test "$st" = 0
check "mixed: stderr says 1 CUDA graph launch was not measured" grep -qE "not measured: 1 CUDA graph launch" mix.err
measured=$(count_launches mix.counters.csv)
check "mixed: the 24 ordinary launches are measured (has $measured)" test "$measured" = 24
rows=$(report_rows mix.csv)
check "mixed: the report has 24 rows (has $rows)" test "$rows" = 24
[ "$failures" = 0 ] || show_file "mixed stderr" mix.err
hostile_finish
