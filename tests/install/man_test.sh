#!/bin/sh
# man_test.sh - checks a manual page against its binary: every long option that `BINARY --help`
# prints appears in the page, and groff renders the page without a warning (skipped, exit 77,
# when groff is not installed: Debian package groff-base).
#   man_test.sh BINARY PAGE
bin=$1 page=$2
[ -n "$page" ] || { echo "usage: man_test.sh BINARY PAGE" >&2; exit 2; }
failed=0
# shellcheck disable=SC2086 # $ATOMUTIL_TEST_WRAPPER: a checker such as valgrind, with its options
help=$(${ATOMUTIL_TEST_WRAPPER:-} "$bin" --help 2>&1) || { echo "FAIL: $bin --help failed"; exit 1; }
# roff spells a hyphen in an option '\-': compare with the backslashes dropped
text=$(sed 's/\\-/-/g' "$page")
for opt in $(printf '%s\n' "$help" | grep -oE -- '--[a-z][a-z-]*' | sort -u); do
    printf '%s\n' "$text" | grep -qF -- "$opt" || { echo "FAIL: $opt of --help is not in $page"; failed=1; }
done
if command -v groff >/dev/null 2>&1; then
    warnings=$(LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$page" 2>&1)
    [ -z "$warnings" ] || { echo "FAIL: groff warns on $page:"; printf '%s\n' "$warnings"; failed=1; }
    [ $failed = 0 ] && echo "man page $page: options complete, renders without warnings"
    exit $failed
fi
[ $failed = 0 ] || exit 1
echo "man page $page: options complete; groff not installed, rendering not checked"
exit 77
