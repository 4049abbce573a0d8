#!/bin/sh
# tests/validate: validation/validate.py on data-generic/, eight points of the generic family cut from
# an H100 run, whose launches have shared-atomic wavefronts and no jobs (README.md).  Run by CTest
# (validate.generic):
#   run_test_generic.sh PYTHON VALIDATE_PY ATOMUTIL_PROFILE DATA_DIR TABLE WORK_DIR
# Checks that every point is priced (no launch without U), family generic from the kernels' code,
# the summary line, the line exact: (as computed by hand, and against validation_points.csv), the
# per-operation and per-pattern rows of the generic tables, the line on U ranges (U_true in each
# point's range), and nothing written into the results directory.
set -u
py=$1 script=$2 prof=$3 data=$4 table=$5 work=$6
want='summary: points 8 families 1 MAE 10.1 max 39.1 saturated 8/8'
exact='exact: generic points 8 MAE 10.10 max 39.08 uncertain 5 dsmem points 0 MAE - max - uncertain 0'
. "$(dirname "$0")/lib.sh"
start "$data" "$work" "$table"
last=$(tail -n 1 "$work/out")
[ "$last" = "$want" ] || fail "last line '$last', expected '$want'"
grep -q '^| generic | 8 | 14-100 % | 10.1 | 39.1 | 100.0 / 100.0 / 100.0 | 8 of 8 | 1.00 | 0 |$' "$work/out" ||
    fail "the per-family row of generic differs"
grep -qx "$exact" "$work/out" || fail "the exact: line differs from '$exact'"
check_exact
grep -qx '| generic | 8 | 14-100 % | 10.10 | 39.08 | 8 |' "$work/out" || fail "the per-operation row of generic differs"
grep -qx '| distinct | 4 | 27-100 % | 0.22 | 0.41 | 4 |' "$work/out" &&
    grep -qx '| words4_bank | 4 | 14-100 % | 19.98 | 39.08 | 4 |' "$work/out" ||
    fail "the generic atomics' per-pattern rows differ"
grep -qx "U ranges (the report's util_pct_lo..util_pct_hi; flags unpriced_wavefronts): U_true lies in the range at 8 of 8 points." \
    "$work/out" || fail "the U ranges line differs"
diff -r "$data" "$res" > "$work/diff" || fail "the results directory was changed: $(head -c 300 "$work/diff")"

if [ $fails -ne 0 ]; then
    echo "--- validate.py output:"
    cat "$work/out"
    exit 1
fi
echo "validate.py: generic points priced, U_true in their ranges"
exit 0
