#!/usr/bin/env bash
# long_run.sh - hostile run (a): a target with 10,000 kernel launches profiled live.
# Checks that every launch is measured and reported, and that memory stays bounded: the
# target's peak resident memory under profiling may grow by at most HOSTILE_MAX_GROWTH_MB (64)
# from 1,000 to 10,000 launches, and atomutil-profile's own peak (the report of 10,000 launches)
# at most HOSTILE_MAX_TOOL_MB (512).  Prints the figures as RESULT lines: launches per second
# with and without profiling, peak memory of the target, the tool and the report phase.
#   long_run.sh [BIN_DIR [WORK_DIR]]      (exit 77 without a GPU)
# shellcheck source=tests/hostile/common.sh
source "$(dirname "$0")/common.sh"
hostile_need_gpu
n=${HOSTILE_LAUNCHES:-10000}
max_growth_mb=${HOSTILE_MAX_GROWTH_MB:-64}
max_tool_mb=${HOSTILE_MAX_TOOL_MB:-512}
cd "$work" || exit 1

# the target alone: launches per second and memory without atomutil
run_sampled plain "$launches" -n "$n"
plain_status=$RUN_STATUS plain_wall=$RUN_WALL plain_kb=$RUN_SELF_KB
check "unprofiled launches -n $n exits 0" test "$plain_status" = 0

# 1,000 launches profiled: the reference for memory growth
run_sampled small "$profile" -q -o small --csv -- "$launches" -n 1000
small_status=$RUN_STATUS small_target_kb=$RUN_KIDS_KB
check "profiled launches -n 1000 exits 0" test "$small_status" = 0

# 10,000 launches profiled
run_sampled big "$profile" -q -o big --csv -- "$launches" -n "$n"
big_status=$RUN_STATUS big_wall=$RUN_WALL big_tool_kb=$RUN_SELF_KB big_target_kb=$RUN_KIDS_KB
check "profiled launches -n $n exits 0" test "$big_status" = 0
[ "$big_status" = 0 ] || show_file stderr big.err
measured=$(count_launches big.counters.csv)
check "counters file holds $n launches (has $measured)" test "$measured" = "$n"
rows=$(report_rows big.csv)
check "report has $n rows (has $rows)" test "$rows" = "$n"
unknown=$(csv_column big.csv verdict | grep -c '^unknown$')
check "no launch without a verdict (unknown: $unknown)" test "$unknown" = 0

# the report phase alone, exactly: atomutil-profile reading the 10,000-launch counters file
import_kb=$(max_rss_kb import "$profile" -q --csv --import big.counters.csv)
check "re-import of the counters file exits 0" test "$RUN_STATUS" = 0

growth_kb=$((big_target_kb - small_target_kb))
check "target memory growth from 1,000 to $n launches <= $max_growth_mb MiB ($((growth_kb / 1024)) MiB)" \
    test "$growth_kb" -le $((max_growth_mb * 1024))
tool_kb=$big_tool_kb
[ "${import_kb:-0}" -gt "$tool_kb" ] && tool_kb=$import_kb
check "atomutil-profile peak <= $max_tool_mb MiB ($((tool_kb / 1024)) MiB)" test "$tool_kb" -le $((max_tool_mb * 1024))

rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }'; }
note "launches=$n"
note "wall_s_unprofiled=$plain_wall launches_per_s_unprofiled=$(rate "$n" "$plain_wall")"
note "wall_s_profiled=$big_wall launches_per_s_profiled=$(rate "$n" "$big_wall")"
note "target_peak_mib_unprofiled=$((plain_kb / 1024)) target_peak_mib_profiled_1000=$((small_target_kb / 1024)) target_peak_mib_profiled_$n=$((big_target_kb / 1024))"
note "tool_peak_mib_live=$((big_tool_kb / 1024)) tool_peak_mib_report_of_$n=$((import_kb / 1024))"
note "counters_file_mib=$(( $(wc -c <big.counters.csv) / 1048576 ))"
hostile_finish
