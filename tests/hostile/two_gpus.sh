#!/usr/bin/env bash
# two_gpus.sh - hostile run (g): one process using two GPUs (examples/launches --devices 2: host
# thread i launches on GPU i % 2).  Skipped (77) unless two GPUs are visible.  Every launch must be
# measured on its own device, and each device's launches priced with the table for that device
# (two GPUs of different models get their own tables; the same model shares one).
#   two_gpus.sh [BIN_DIR [WORK_DIR]]
# shellcheck source=tests/hostile/common.sh
source "$(dirname "$0")/common.sh"
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
if [ "$gpus" -lt 2 ]; then
    echo "$hostile_name: SKIP (needs two GPUs, $gpus visible)"
    exit 77
fi
hostile_need_gpu
n=128
cd "$work" || exit 1
"$profile" -q -o mg --csv -- "$launches" -n "$n" -t 4 --devices 2 >mg.out 2>mg.err
st=$?
check "exit status 0, got $st" test "$st" = 0
[ "$st" = 0 ] || show_file stderr mg.err
measured=$(count_launches mg.counters.csv)
check "counters file holds $n launches (has $measured)" test "$measured" = "$n"
devices=$(csv_column mg.counters.csv Device | sort -u | grep -c .)
check "launches were measured on 2 devices (counted $devices)" test "$devices" = 2
rows=$(report_rows mg.csv)
check "report has $n rows (has $rows)" test "$rows" = "$n"
unknown=$(csv_column mg.csv verdict | grep -c '^unknown$')
check "no launch without a verdict (unknown: $unknown)" test "$unknown" = 0
# device name -> table: one table per device model, two models never share one
pairs=$(paste -d '|' <(csv_column mg.csv device) <(csv_column mg.csv table) | sort -u)
names=$(printf '%s\n' "$pairs" | cut -d '|' -f 1 | sort -u | grep -c .)
tables=$(printf '%s\n' "$pairs" | cut -d '|' -f 2 | sort -u | grep -c .)
check "each device model has one table ($(printf '%s\n' "$pairs" | grep -c .) device/table pairs)" \
    test "$(printf '%s\n' "$pairs" | grep -c .)" = "$names"
check "two device models are not priced with one table ($names models, $tables tables)" \
    test "$names" = 1 -o "$tables" = "$names"
other=$(csv_column mg.csv flags | grep -c table_other_gpu)
note "devices=$devices models=$names tables=$tables launches_with_table_other_gpu=$other"
printf '%s\n' "$pairs" | sed 's/^/  device|table: /'
hostile_finish
