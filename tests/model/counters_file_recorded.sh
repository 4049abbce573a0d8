#!/bin/sh
# The counters-file reader's counts of CSV rows, code, graph and timing lines equal grep's on every
# recorded counters file of tests/data.  Usage: counters_file_recorded.sh TEST_BINARY SOURCE_DIR
bin=$1
src=$2
tmp=$(mktemp) || exit 1
trap 'rm -f "$tmp"' EXIT
n=0
fail=0
for f in "$src"/tests/data/*/*.counters.csv.gz; do
    [ -e "$f" ] || continue
    gzip -dc "$f" >"$tmp" || exit 1
    want="$(grep -c '^"' "$tmp") $(grep -c '^==ATOMUTIL== [^ ]* code: ' "$tmp")"
    want="$want $(grep -c '^==ATOMUTIL== [^ ]* graph: ' "$tmp") $(grep -c '^==ATOMUTIL== [^ ]* timing: [^ ]' "$tmp")"
    got=$(${ATOMUTIL_TEST_WRAPPER:-} "$bin" --count "$tmp") # tools/memcheck.sh: valgrind
    if [ "$got" != "$want" ]; then
        echo "FAIL $f: reader '$got', grep '$want'"
        fail=1
    fi
    n=$((n + 1))
done
echo "counters_file_recorded: $n files"
[ "$n" -gt 0 ] && [ "$fail" -eq 0 ]
