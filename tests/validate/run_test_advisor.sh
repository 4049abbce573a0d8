#!/bin/sh
# tests/validate: validation/advisor.py on advisor/, a synthetic report of five pairs whose answers
# were computed by hand (advisor/README.md), and advisor_pairs --list (no GPU needed).  Run by CTest
# (validate.advisor, validate.advisor_list):
#   run_test_advisor.sh PYTHON ADVISOR_PY DATA_DIR WORK_DIR [ADVISOR_PAIRS]
# Checks the three summary lines exactly, the rows of a wrong-direction and a missing pair, a pair
# whose kernels never ran (missing, not dropped), the one-line errors for an unknown cure, a report
# without busy_cycles and a missing file; with ADVISOR_PAIRS, its --list: at least 20 pairs (8
# data-only, 12 code), kernels adv_PAIR and adv_PAIR__v, every cure one advisor.py knows.
set -u
py=$1 script=$2 data=$3 work=$4 pairs_bin=${5:-}
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
rm -rf "$work" && mkdir -p "$work" || exit 1

"$py" "$script" "$data/report.csv" "$data/pairs.csv" > "$work/out" 2> "$work/err"
rc=$?
[ $rc -eq 0 ] && [ ! -s "$work/err" ] || fail "exit status $rc, stderr: $(cat "$work/err")"
cat > "$work/want" <<'LINES'
advisor: no-added-work pairs 4 busy-mape 15.0 time-mape 18.0 in-range 1/4 wrong-direction 1 missing 1
advisor: data-only pairs 2 busy-mape 22.5 time-mape 14.5 in-range 1/2 wrong-direction 0 missing 0
advisor: all pairs 5 busy-mape 17.5 time-mape 13.5 in-range 2/5 wrong-direction 1 missing 1
LINES
tail -n 3 "$work/out" | diff "$work/want" - > "$work/diff" || fail "summary lines differ: $(cat "$work/diff")"
[ "$(grep -c '^advisor:' "$work/out")" -eq 3 ] || fail "not three advisor: lines"
grep -qx '| hist_popc | code | popc | 500.0 | 500.0 | 0.0 | 36.00 | 30.00 \[25.00, 35.00\] | 40.00 | 25.0 | no | WRONG (-16.7/+11.1 %) | none |' \
    "$work/out" || fail "the wrong-direction row differs"
grep -qx '| warpsum | code | aggregate | - | 700.0 | - | 80.00 | - \[-, -\] | 60.00 | - | no | missing: no prediction | none |' \
    "$work/out" || fail "the missing pair's row differs"

# a pair whose kernels are not in the report: listed and counted as missing
cp "$data/pairs.csv" "$work/pairs2.csv"
echo 'ghost,code,native,adv_ghost,adv_ghost__v,none' >> "$work/pairs2.csv"
"$py" "$script" "$data/report.csv" "$work/pairs2.csv" > "$work/out2" 2> "$work/err2"
[ "$(tail -n 1 "$work/out2")" = 'advisor: all pairs 6 busy-mape 17.5 time-mape 13.5 in-range 2/6 wrong-direction 1 missing 2' ] ||
    fail "a pair without launches: '$(tail -n 1 "$work/out2")' $(cat "$work/err2")"
grep -q '^| ghost | .* | missing: no launch of adv_ghost; no launch of adv_ghost__v | none |$' "$work/out2" ||
    fail "the pair without launches has no row saying so"

# errors: exit 1, one line on stderr naming the cause, no summary
err_case() { # err_case WHAT WANT_IN_STDERR ARGS...
    what=$1 want=$2
    shift 2
    "$py" "$script" "$@" > "$work/out3" 2> "$work/err3"
    rc=$?
    [ $rc -eq 1 ] && [ "$(wc -l < "$work/err3")" -eq 1 ] && grep -q "$want" "$work/err3" &&
        ! grep -q '^advisor:' "$work/out3" || fail "$what: exit $rc, stderr: $(cat "$work/err3")"
}
sed 's/^rep2,code,replicate_2,/rep2,code,replicate_3,/' "$data/pairs.csv" > "$work/badcure.csv"
err_case "an unknown cure" "badcure.csv:5: pair 'rep2': unknown cure 'replicate_3'" "$data/report.csv" "$work/badcure.csv"
sed '1s/,busy_cycles,/,busy,/' "$data/report.csv" > "$work/nobusy.csv"
err_case "a report without busy_cycles" "nobusy.csv: no column busy_cycles" "$work/nobusy.csv" "$data/pairs.csv"
err_case "a missing report" "no-such.csv" "$work/no-such.csv" "$data/pairs.csv"

if [ -n "$pairs_bin" ]; then
    "$pairs_bin" --list > "$work/list.csv" || fail "advisor_pairs --list failed"
    "$py" - "$work/list.csv" <<'PY' || fail "advisor_pairs --list: wrong pair table"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
sets = [r["set"] for r in rows]
if len(rows) < 20 or sets.count("data-only") < 8 or sets.count("code") < 12:
    sys.exit("%d pairs, %d data-only, %d code" % (len(rows), sets.count("data-only"), sets.count("code")))
for r in rows:
    if r["base_kernel"] != "adv_" + r["pair"] or r["variant_kernel"] != "adv_%s__v" % r["pair"] or not r["adds_work"]:
        sys.exit("pair %s: kernels %s, %s, adds_work '%s'" % (r["pair"], r["base_kernel"], r["variant_kernel"],
                                                             r["adds_work"]))
if len({r["pair"] for r in rows}) != len(rows):
    sys.exit("two pairs share a name")
PY
    # every pair read by advisor.py (cures and sets it knows), all missing against a report of no launch
    head -n 1 "$data/report.csv" > "$work/empty.csv"
    n=$(($(wc -l < "$work/list.csv") - 1))
    "$py" "$script" "$work/empty.csv" "$work/list.csv" > "$work/out4" 2> "$work/err4"
    tail -n 1 "$work/out4" | grep -qx "advisor: all pairs $n busy-mape - time-mape - in-range 0/$n wrong-direction 0 missing $n" ||
        fail "advisor.py on --list: '$(tail -n 1 "$work/out4")' $(cat "$work/err4")"
fi

if [ $fails -ne 0 ]; then
    echo "--- advisor.py output:"
    cat "$work/out"
    exit 1
fi
echo "advisor.py: summary lines, rows and errors as computed by hand"
exit 0
