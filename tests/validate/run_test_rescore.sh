#!/bin/sh
# tests/validate: validation/advisor_rescore.sh (a kept run of the advisor's validation scored again
# without a GPU) on recorded H200 counters of the hist_match pair (tests/data/advisor-match-h200).
# Run by CTest (validate.advisor_rescore):
#   run_test_rescore.sh RESCORE_SH BUILD_DIR DATA_DIR TABLE WORK_DIR
# Checks, on a run folder, on a data.tar.gz of two runs with pairs.csv beside it, and with options
# passed to the imports (the H200 table less its MATCH keys): the pair's row and summary line as
# tests/cli/advisor_match.py's figures say (the cure 14.6 % slower with the MATCH cost, in range;
# faster without it: the wrong direction), one "== RUN" block per run; and the one-line errors and
# exit 1 of a file that is no tar, a folder without counters files and one without pairs.csv.
# A run under ncu from its kept pages (validation/ncu_pages.sh gives them back, no ncu): its pair
# priced from the loops' entries of the source page, and missing without that page.
set -u
sh_=$1 build=$2 data=$3 table=$4 work=$5
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
rm -rf "$work" && mkdir -p "$work/runs/run-1" "$work/runs/run-2" "$work/x/empty" || exit 1
# $ATOMUTIL_TEST_WRAPPER (tools/memcheck.sh: valgrind and its options) before every import: the
# script runs BUILD_DIR/bin/atomutil-profile, so a BUILD_DIR of a wrapper stands in for the build
if [ -n "${ATOMUTIL_TEST_WRAPPER:-}" ]; then
    mkdir -p "$work/wrap/bin" || exit 1
    printf '#!/bin/sh\nexec %s "%s" "$@"\n' "$ATOMUTIL_TEST_WRAPPER" "$build/bin/atomutil-profile" \
        > "$work/wrap/bin/atomutil-profile" && chmod +x "$work/wrap/bin/atomutil-profile" || exit 1
    build=$work/wrap
fi
for r in run-1 run-2; do
    cp "$data/hist-match-16mi.counters.csv" "$work/runs/$r/adv_16777216.counters.csv" || exit 1
done
cat > "$work/pairs.csv" <<'CSV'
pair,set,cure,base_kernel,variant_kernel,adds_work
hist_match,code,aggregate,adv_hist_match,adv_hist_match__v,__match_any_sync and a leader test per element
CSV
cp "$work/pairs.csv" "$work/runs/run-1/pairs.csv"
row='^| hist_match | code | aggregate | [0-9.]* | 11360.0 | [0-9.]* | 58.59 | 67.13 \[[0-9.]*, [0-9.]*\] | 94.26 | 28.8 | yes | ok (+14.6/+60.9 %) |'
all='advisor: all pairs 1 busy-mape 33.3 time-mape 28.8 in-range 1/1 wrong-direction 0 missing 0'

# a run folder (pairs.csv in it)
bash "$sh_" "$work/runs/run-1" "$build" > "$work/out1" 2> "$work/err1"
rc=$?
[ $rc -eq 0 ] && [ ! -s "$work/err1" ] || fail "run folder: exit status $rc, stderr: $(cat "$work/err1")"
grep -q "$row" "$work/out1" || fail "run folder: the pair's row differs: $(grep '^| hist_match' "$work/out1")"
[ "$(tail -n 1 "$work/out1")" = "$all" ] || fail "run folder: '$(tail -n 1 "$work/out1")'"
grep -q '^==' "$work/out1" && fail "run folder: a '== RUN' line for a single run"

# a tar (gzip: xz is not in a minimal Debian) of two runs, pairs.csv beside it
rm "$work/runs/run-1/pairs.csv"
(cd "$work/runs" && tar -czf ../data.tar.gz run-1 run-2) || exit 1
bash "$sh_" "$work/data.tar.gz" "$build" > "$work/out2" 2> "$work/err2"
rc=$?
[ $rc -eq 0 ] && [ ! -s "$work/err2" ] || fail "tar: exit status $rc, stderr: $(cat "$work/err2")"
[ "$(grep '^==' "$work/out2" | tr '\n' ' ')" = "== run-1 == run-2 " ] || fail "tar: run blocks: $(grep '^==' "$work/out2")"
[ "$(grep -c "^$all\$" "$work/out2")" -eq 2 ] || fail "tar: not two summary lines '$all'"

# options for the imports: the table without MATCH.ANY's cost reads the cure faster
grep -v '^# match_any_' "$table" > "$work/no-match.csv" || exit 1
bash "$sh_" "$work/data.tar.gz" "$build" -- --table "$work/no-match.csv" > "$work/out3" 2> "$work/err3"
rc=$?
[ $rc -eq 0 ] && [ ! -s "$work/err3" ] || fail "--table: exit status $rc, stderr: $(cat "$work/err3")"
[ "$(grep -c '^advisor: all pairs 1 .* in-range 0/1 wrong-direction 1 missing 0$' "$work/out3")" -eq 2 ] ||
    fail "--table: the option did not reach the imports: $(grep '^advisor: all' "$work/out3")"

# errors: exit 1, one line naming the cause
echo 'not a tar' > "$work/bad.tar.xz"
bash "$sh_" "$work/bad.tar.xz" "$build" > "$work/out6" 2> "$work/err6"
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l < "$work/err6")" -eq 1 ] && grep -q "$work/bad.tar.xz: not a tar file of a run" "$work/err6" ||
    fail "not a tar: exit $rc, stderr: $(cat "$work/err6")"
bash "$sh_" "$work/x/empty" "$build" > "$work/out4" 2> "$work/err4"
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l < "$work/err4")" -eq 1 ] && grep -q "no pairs.csv in or beside $work/x/empty" "$work/err4" ||
    fail "no pairs.csv: exit $rc, stderr: $(cat "$work/err4")"
cp "$work/pairs.csv" "$work/x/empty/pairs.csv"
bash "$sh_" "$work/x/empty" "$build" > "$work/out5" 2> "$work/err5"
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l < "$work/err5")" -eq 1 ] &&
    grep -q "no adv\*.counters.csv or pages/adv_ncu_\*.raw.csv in $work/x/empty" "$work/err5" ||
    fail "no counters: exit $rc, stderr: $(cat "$work/err5")"

# a run under ncu: the pages its import read (the k-means pair's, tests/data/ncu-cas-entries-h200),
# the source page compressed, given back by validation/ncu_pages.sh without ncu (a failing ncu on
# PATH); the pair priced from the loops' entries, as the import of the report prices it
mkdir -p "$work/ncu/pages" "$work/failbin" || exit 1
printf '#!/bin/sh\necho "ncu ran" >> %s/ncu-ran.log\nexit 1\n' "$work" > "$work/failbin/ncu" && chmod +x "$work/failbin/ncu"
cas=$(dirname "$data")/ncu-cas-entries-h200
for pg in raw opcodes source; do
    cp "$cas/kmeans-pair-$pg.ncu.csv" "$work/ncu/pages/adv_ncu_2097152.$pg.csv" || exit 1
done
if command -v xz > /dev/null; then xz "$work/ncu/pages/adv_ncu_2097152.source.csv" || exit 1; fi
cat > "$work/ncu/pairs.csv" <<'CSV'
pair,set,cure,base_kernel,variant_kernel,adds_work
kmeans_one_lane,data-only,one_pass,adv_kmeans_one_lane,adv_kmeans_one_lane__v,none
CSV
PATH=$work/failbin:$PATH bash "$sh_" "$work/ncu" "$build" > "$work/out7" 2> "$work/err7"
rc=$?
[ $rc -eq 0 ] && [ ! -s "$work/err7" ] || fail "ncu pages: exit status $rc, stderr: $(cat "$work/err7")"
[ -s "$work/ncu-ran.log" ] && fail "ncu pages: ncu ran"
grep -qx 'under ncu:' "$work/out7" || fail "ncu pages: no 'under ncu:' block"
grep -q '^advisor: all pairs 1 .* missing 0$' "$work/out7" ||
    fail "ncu pages: the pair was not priced (no entries?): $(grep '^advisor: all' "$work/out7")"
# the recording side: ncu_pages.sh runs the ncu it is given (a stand-in printing the recorded pages),
# passes its output through whole and keeps it, the source page cut to the three columns the import
# reads; a page ncu fails on is not kept, and its status comes back
pages=$(dirname "$sh_")/ncu_pages.sh
printf '#!/bin/sh\ncase "$*" in\n*"--page source"*) cat "%s";;\n*"--print-metric-instances"*) cat "%s";;\n*"--page raw"*) cat "%s";;\nesac\n' \
    "$cas/kmeans-pair-source.ncu.csv" "$cas/kmeans-pair-opcodes.ncu.csv" "$cas/kmeans-pair-raw.ncu.csv" > "$work/standin"
chmod +x "$work/standin"
for pg in raw opcodes source; do
    case $pg in
    raw) args="--page raw" ;;
    opcodes) args="--page raw --print-metric-instances details --metrics m" ;;
    source) args="--page source --print-source sass" ;;
    esac
    # shellcheck disable=SC2086 # args are words
    NCU_PAGES_NCU=$work/standin NCU_PAGES_DIR=$work/rec sh "$pages" --import "$work/x/r.ncu-rep" --csv $args > "$work/rec-$pg.out" ||
        fail "record $pg: exit status $?"
    cmp -s "$work/rec-$pg.out" "$cas/kmeans-pair-$pg.ncu.csv" || fail "record $pg: ncu's output not passed through whole"
    [ -f "$work/rec/r.$pg.csv" ] || fail "record $pg: not kept as r.$pg.csv"
done
cmp -s "$work/rec/r.raw.csv" "$cas/kmeans-pair-raw.ncu.csv" || fail "record: the raw page not kept whole"
python3 -c 'import csv, sys; sys.exit(any(len(r) != 3 for r in csv.reader(open(sys.argv[1]))))' "$work/rec/r.source.csv" ||
    fail "record: the source page not cut to three columns"
NCU_PAGES_NCU=$work/failbin/ncu NCU_PAGES_DIR=$work/rec sh "$pages" --import "$work/x/q.ncu-rep" --csv --page raw > /dev/null 2>&1 &&
    fail "record: a failing ncu's status not passed on"
[ -e "$work/rec/q.raw.csv" ] && fail "record: a page ncu failed on was kept"
rm "$work/ncu/pages/"*source*
PATH=$work/failbin:$PATH bash "$sh_" "$work/ncu" "$build" > "$work/out8" 2> "$work/err8"
grep -q '^advisor: all pairs 1 .* missing 1$' "$work/out8" ||
    fail "ncu pages without the source page: the pair priced: $(grep '^advisor: all' "$work/out8")"

[ $fails -eq 0 ] && echo "advisor_rescore: all checks passed"
exit $((fails > 0))
