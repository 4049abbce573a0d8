#!/bin/sh
# output_patterns.sh - `-o BASE` with %p in a live run (docs/cli.md, "-o patterns"): the report, the
# counters file and the kernels' code are named with the program's pid (atomutil-profile's child,
# which fake_target.sh prints), none with atomutil-profile's own, and %q{ENV} beside it.
#   output_patterns.sh ATOMUTIL_PROFILE FAKE_TARGET EXPORT TABLE WORK_DIR
prof=$1 fake=$2 export_file=$3 table=$4 work=$5
rm -rf "$work" && mkdir -p "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
out=$(ATOMUTIL_TEST_NO_GPU_CHECK=1 ATOMUTIL_INJECTION_LIB="$fake" RANK=7 \
      "$prof" -q --csv -o "$work/rank%q{RANK}-%p" --table "$table" -- "$fake" "$export_file" pid 2>"$work/err")
st=$?
[ $st = 0 ] || fail "exit status $st: $(cat "$work/err")"
[ -s "$work/err" ] && fail "stderr: $(cat "$work/err")"
pid=$(printf '%s\n' "$out" | sed -n 's/^fake_target: pid \([0-9][0-9]*\)$/\1/p')
[ -n "$pid" ] || fail "the target printed no pid: $out"
base=$work/rank7-$pid
[ -s "$base.csv" ] || fail "no report $base.csv"
head -n 1 "$base.csv" | grep -q '^launch_id,process_id,' || fail "$base.csv is not the CSV report"
[ -s "$base.counters.csv" ] || fail "no counters file $base.counters.csv"
[ -f "$base.cubins/kept" ] || fail "the kernels' code did not follow to $base.cubins/"
n=$(ls "$work" | grep -c '^rank7-')
[ "$n" = 3 ] || fail "$n files rank7-*, want 3 (a file left with atomutil-profile's pid?): $(ls "$work")"
echo "-o rank%q{RANK}-%p: $base.csv, .counters.csv, .cubins/"
