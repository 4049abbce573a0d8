#!/bin/sh
# doc_columns.sh - docs/cli.md's CSV columns against the binary: the per-launch table of `--csv`
# (section "Output"), the `--summary --csv` list ("Summary") and the `--compare --csv` list
# ("Compare"), each compared name by name, in order, with the header atomutil-profile writes for
# the recorded export.
#   doc_columns.sh ATOMUTIL_PROFILE DOC EXPORT TABLE WORK_DIR
# shellcheck disable=SC2016 # the backquotes in single quotes are Markdown's, not the shell's
prof=$1 doc=$2 export=$3 table=$4 work=$5
[ -n "$work" ] || { echo "usage: doc_columns.sh ATOMUTIL_PROFILE DOC EXPORT TABLE WORK_DIR" >&2; exit 2; }
rm -rf "$work" && mkdir -p "$work" || exit 1
failed=0

# the first column of the table after the line that starts with MARKER: its `names`, one a line
table_names() {
    awk -v m="$1" 'index($0, m) == 1 { f = 1; next } f && /^\|/ { t = 1; print; next } t { exit }' "$doc" |
        sed '1,2d' | cut -d'|' -f2 | grep -o '`[^`]*`' | tr -d '`'
}
# the `a, b, c` span that follows MARKER (ending in a backtick) anywhere in the doc: one a line
span_names() {
    tr '\n' ' ' <"$doc" | awk -v m="$1" '{ i = index($0, m); if (!i) exit
        s = substr($0, i + length(m)); print substr(s, 1, index(s, "`") - 1) }' | tr -d ' ' | tr ',' '\n'
}
# check WHAT DOC_NAMES_FILE OPTIONS...: the binary's CSV header with OPTIONS against the doc's names
check() {
    what=$1 names=$2
    shift 2
    # shellcheck disable=SC2086 # $ATOMUTIL_TEST_WRAPPER: a checker such as valgrind, with its options
    ${ATOMUTIL_TEST_WRAPPER:-} "$prof" --table "$table" "$@" >"$work/out.csv" 2>"$work/err" ||
        { echo "FAIL: $what: atomutil-profile $* exited $?: $(head -n 3 "$work/err")"; failed=1; return; }
    head -n 1 "$work/out.csv" | tr -d '\r' | tr ',' '\n' >"$work/binary.txt"
    if [ ! -s "$names" ]; then
        echo "FAIL: $what: no column list found in $doc"
        failed=1
    elif ! diff "$names" "$work/binary.txt" >"$work/diff.txt"; then
        echo "FAIL: $what: $doc (<) and the binary's header (>) differ:"
        cat "$work/diff.txt"
        failed=1
    else
        echo "$what: $(wc -l <"$names") columns, as documented"
    fi
}

table_names 'CSV (`--csv`), one row per launch' >"$work/launch.txt"
check "--csv" "$work/launch.txt" --import "$export" --csv
span_names 'CSV (`--summary --csv`), one row per kernel: `' >"$work/summary.txt"
check "--summary --csv" "$work/summary.txt" --import "$export" --summary --csv
span_names 'in full:`. CSV columns: `' >"$work/compare.txt"
check "--compare --csv" "$work/compare.txt" --compare "$export" "$export" --csv
exit $failed
