#!/bin/sh
# man_options.sh - a manual page's OPTIONS against its binary's --help: the options of each entry
# (the line after .TP in section OPTIONS: `-o FILE, --output FILE` gives `-o --output`) and those of
# each option line of --help (`  -o, --output FILE ...`, `      --device N ...`), entry by entry and
# in order, so that an option missing from either side, or one more, fails.
#   man_options.sh BINARY PAGE WORK_DIR
# shellcheck disable=SC2016 # $ in single quotes: awk's fields
bin=$1 page=$2 work=$3
[ -n "$work" ] || { echo "usage: man_options.sh BINARY PAGE WORK_DIR" >&2; exit 2; }
rm -rf "$work" && mkdir -p "$work" || exit 1
# shellcheck disable=SC2086 # $ATOMUTIL_TEST_WRAPPER: a checker such as valgrind, with its options
${ATOMUTIL_TEST_WRAPPER:-} "$bin" --help >"$work/help.txt" 2>&1 || { echo "FAIL: $bin --help failed"; exit 1; }

# the leading option words of a line ("-i," "--import" "FILE..." gives "-i --import")
options='{ o = ""; for (i = 1; i <= NF; i++) { w = $i; sub(/,$/, "", w)
           if (w !~ /^(-[A-Za-z0-9]|--[a-z][a-z0-9-]*|--)$/) break; o = o (o ? " " : "") w }
           if (o) print o }'
# option lines: indented 2 or 6, before "Examples:" (whose lines may start so too)
sed '/^Examples:/,$d' "$work/help.txt" | grep -E '^(  |      )-' | awk "$options" >"$work/help-options.txt"
# roff: '\-' is a hyphen; fonts (\fB ...), quotes and the macro name go; commas part the words
awk '/^\.SH OPTIONS/ { f = 1; next } /^\.SH/ { f = 0 } f && prev ~ /^\.TP/ { print } { prev = $0 }' "$page" |
    sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/"//g' -e 's/,/ , /g' -e 's/^\.[A-Z]* *//' |
    awk '{ o = ""; for (i = 1; i <= NF; i++) if ($i ~ /^(-[A-Za-z0-9]|--[a-z][a-z0-9-]*|--)$/) o = o (o ? " " : "") $i
           if (o) print o }' >"$work/page-options.txt"
if [ ! -s "$work/help-options.txt" ] || [ ! -s "$work/page-options.txt" ]; then
    echo "FAIL: no options read from $bin --help or $page"
    exit 1
fi
if ! diff "$work/page-options.txt" "$work/help-options.txt" >"$work/diff.txt"; then
    echo "FAIL: the options of $page (<) and of $bin --help (>) differ:"
    cat "$work/diff.txt"
    exit 1
fi
echo "$page: $(wc -l <"$work/page-options.txt") options, those of --help in its order"
