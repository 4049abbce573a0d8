#!/bin/sh
# ncu_raw.sh - Nsight Compute's raw page (`ncu --import REPORT --csv --page raw`) read by
# atomutil-profile, on the recorded pages of tests/data/ncu-raw-h100 (README.md there).
#   ncu_raw.sh ATOMUTIL_PROFILE DATA_DIR TABLE WORKDIR CASE
#   CASE: same-report  the raw page and the details page of the same launches give the same
#                      report: CSV byte for byte, the table (--wide) and JSON but for their source
#                      line; 16 launches, each read with its 5 passes (flag replayed)
prof=$1 data=$2 table=$3 work=$4 case=$5
raw=$data/histogram-raw.ncu.csv details=$data/histogram-details.ncu.csv
fail() {
    echo "FAIL ($case): $*"
    exit 1
}
rm -rf "$work" && mkdir -p "$work" || exit 1

# report NAME FILE OPTION...: atomutil-profile --import FILE into $work/NAME (stderr NAME.err),
# which must succeed with nothing on stderr
report() {
    name=$1 file=$2
    shift 2
    # shellcheck disable=SC2086 # the wrapper is a command and its options
    ${ATOMUTIL_TEST_WRAPPER:-} "$prof" --import "$file" --table "$table" -q "$@" > "$work/$name" 2> "$work/$name.err"
    st=$?
    [ "$st" -eq 0 ] || fail "$file $*: exit status $st: $(head -n 1 "$work/$name.err")"
    [ -s "$work/$name.err" ] && fail "$file $*: stderr: $(head -n 1 "$work/$name.err")"
    return 0
}

# without_source FILE: FILE without the report's source line (table and JSON)
without_source() {
    grep -v -e '^source: ' -e '^  "source": ' "$1"
}

case $case in
same-report)
    report raw.csv "$raw" --csv
    report details.csv "$details" --csv
    [ "$(wc -l < "$work/raw.csv")" -eq 17 ] || fail "raw page: $(wc -l < "$work/raw.csv") CSV lines, want 17"
    [ "$(grep -c ',"replayed",' "$work/raw.csv")" -eq 16 ] || fail "raw page: not every launch flagged replayed"
    cmp "$work/raw.csv" "$work/details.csv" || fail "the CSV reports differ: diff $work/raw.csv $work/details.csv"
    for fmt in wide json; do
        report "raw.$fmt" "$raw" "--$fmt"
        report "details.$fmt" "$details" "--$fmt"
        grep -qF "$raw" "$work/raw.$fmt" || fail "--$fmt: no source line naming $raw"
        without_source "$work/raw.$fmt" > "$work/raw.$fmt.cut"
        without_source "$work/details.$fmt" > "$work/details.$fmt.cut"
        cmp "$work/raw.$fmt.cut" "$work/details.$fmt.cut" || fail "the --$fmt reports differ beyond their source line"
    done
    ;;
*)
    echo "ncu_raw.sh: unknown case '$case'" >&2
    exit 2
    ;;
esac
echo "ok ($case)"
