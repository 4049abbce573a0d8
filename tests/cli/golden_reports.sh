#!/bin/sh
# golden_reports.sh - the reports of the committed live-example counters
# (tests/data/live-examples-h100: histogram, kmeans, torch_hist, torch_bincount, with their kernels'
# listings) must stay byte for byte what tests/data/golden-reports/ holds, in the
# table (default and --wide), CSV and JSON formats: a restructuring that changes behaviour fails
# here.  The human tables read a copy of the table in the work directory, so that its path (which
# the report wraps where it is long) is the same wherever the checkout is.
#   golden_reports.sh ATOMUTIL_PROFILE SOURCE_DIR WORK_DIR [--update]
# --update writes the golden files anew (after a deliberate change of the output; say why in the
# commit).  The work directory's path is replaced by WORK in the outputs.
prof=$1 src=$2 work=$3 update=${4:-}
res=$src/tests/data/live-examples-h100
gold=$src/tests/data/golden-reports
rm -rf "$work" && mkdir -p "$work" || exit 1
cp "$src/tables/nvidia-h100.csv" "$work/" || exit 1
fail=0
for name in histogram kmeans torch_hist torch_bincount; do
    gunzip -c "$res/$name.counters.csv.gz" >"$work/$name.counters.csv" || exit 1
    tar -xzf "$res/$name.cubins.tar.gz" -C "$work" || exit 1
    for fmt in txt wide.txt csv json; do
        table=nvidia-h100.csv
        case $fmt in
            txt) opt="" ;; wide.txt) opt=--wide ;;
            csv) opt=--csv table=$src/tables/nvidia-h100.csv ;; json) opt=--json table=$src/tables/nvidia-h100.csv ;;
        esac
        (cd "$work" && "$prof" --import "$name.counters.csv" --table "$table" $opt -q) \
            >"$work/$name.$fmt.raw" 2>"$work/$name.$fmt.err"
        st=$?
        { echo "exit $st"; sed "s|$src|SRC|g; s|$work|WORK|g" "$work/$name.$fmt.raw"; } >"$work/$name.$fmt"
        if [ "$update" = --update ]; then
            cp "$work/$name.$fmt" "$gold/$name.$fmt"
        elif ! cmp -s "$work/$name.$fmt" "$gold/$name.$fmt"; then
            echo "FAIL: $name.$fmt differs from tests/data/golden-reports/$name.$fmt:"
            diff "$gold/$name.$fmt" "$work/$name.$fmt" | head -n 20
            fail=1
        fi
    done
done
[ "$update" = --update ] && { echo "golden reports written to $gold"; exit 0; }
[ $fail = 0 ] && echo "16 reports byte for byte as committed"
exit $fail
