#!/bin/sh
# report_width.sh - the default human report fits 120 columns, as a user runs it from the folder
# of their files (relative paths):
#   summary     a 4,752-launch summary of PyTorch kernels (tests/data/train-h100's 650 launches
#               repeated with new ids: the width depends on the kernels, not on the launch count)
#   per-launch  the same kernels' 650 launches with --per-launch
#   examples    the committed live examples, with their code's opcode sections
#   export      the recorded Nsight Compute export
#   compare     --compare of the train run and the histogram example
# Each report must also show its header (a report that failed is not a narrow one).
#   report_width.sh ATOMUTIL_PROFILE SOURCE_DIR WORK_DIR CASE
prof=$1 src=$2 work=$3 case=$4
limit=120
rm -rf "$work" && mkdir -p "$work" || exit 1
cp "$src/tables/nvidia-h100.csv" "$src/tables/nvidia-h200.csv" "$work/" || exit 1
cd "$work" || exit 1

# train.counters.csv: the 650 launches and then 4,102 more, copies of them with ids 650 on
gunzip -c "$src/tests/data/train-h100/train650.counters.csv.gz" >train650.counters.csv || exit 1
awk -F, '/^"[0-9]+",/ { rows[n++] = $0; next }
    { print }
    END {
        for (copy = 0; copy * 650 < 4752; copy++)
            for (i = 0; i < n; i++) {
                line = rows[i]
                id = substr(line, 2, index(substr(line, 2), "\"") - 1) + copy * 650
                if (id >= 4752)
                    continue
                sub(/^"[0-9]+"/, "\"" id "\"", line)
                print line
            }
    }' train650.counters.csv >train.counters.csv || exit 1

run() { # run NAME ARGS...: one report into NAME.txt
    name=$1
    shift
    # shellcheck disable=SC2086 # $ATOMUTIL_TEST_WRAPPER: a checker such as valgrind, with its options
    ${ATOMUTIL_TEST_WRAPPER:-} "$prof" "$@" >"$name.txt" 2>"$name.err"
    st=$?
    [ $st = 0 ] || { echo "FAIL $name: exit $st: $(head -1 "$name.err")"; return 1; }
    grep -q "^table: \|^A: " "$name.txt" || { echo "FAIL $name: no report header"; return 1; }
    echo "$name: $(wc -l <"$name.txt") lines"
}

fail=0
case $case in
summary)
    run summary --import train.counters.csv --table nvidia-h100.csv -q || fail=1
    grep -q "^4752 launches of " summary.txt || { echo "FAIL summary: not a summary of 4752 launches"; fail=1; }
    ;;
per-launch)
    run per-launch --import train650.counters.csv --table nvidia-h100.csv --per-launch -q || fail=1
    ;;
examples)
    for name in histogram kmeans torch_hist torch_bincount; do
        gunzip -c "$src/tests/data/live-examples-h100/$name.counters.csv.gz" >"$name.counters.csv" || exit 1
        tar -xzf "$src/tests/data/live-examples-h100/$name.cubins.tar.gz" || exit 1
        run "$name" --import "$name.counters.csv" --table nvidia-h100.csv -q || fail=1
    done
    ;;
export)
    cp "$src/examples/data/histogram-h200.ncu.csv" . || exit 1
    run export --import histogram-h200.ncu.csv --table nvidia-h200.csv -q || fail=1
    ;;
compare)
    gunzip -c "$src/tests/data/live-examples-h100/histogram.counters.csv.gz" >histogram.counters.csv || exit 1
    run compare --compare train650.counters.csv histogram.counters.csv --table nvidia-h100.csv -q || fail=1
    ;;
*)
    echo "report_width.sh: unknown case '$case'" >&2
    exit 2
    ;;
esac

for f in *.txt; do
    [ -f "$f" ] || continue
    awk -v limit=$limit -v f="$f" 'length($0) > limit {
        printf "FAIL %s:%d: %d columns: %s\n", f, NR, length($0), $0; bad = 1 }
        END { exit bad }' "$f" || fail=1
done
[ $fail = 0 ] && echo "every report within $limit columns"
exit $fail
