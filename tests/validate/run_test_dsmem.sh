#!/bin/sh
# tests/validate: validation/validate.py on data-dsmem/, four points of the dsmem class cut from a
# device run (README.md).  Run by CTest (validate.dsmem):
#   run_test_dsmem.sh PYTHON VALIDATE_PY ATOMUTIL_PROFILE DATA_DIR WORK_DIR
# Checks what validate.py itself decides for DSMEM points, not the model's U: family dsmem in the
# summary's counts and in the line exact: (against validation_points.csv), the half-warps check (the edited point excluded, listed with its numbers), the
# DSMEM table's counts, "in range" against the report's util_pct_lo..util_pct_hi, --dsmem-truth,
# that no unit_bound.csv is needed, and the one-line error when no dsmem point can be priced.
set -u
py=$1 script=$2 prof=$3 data=$4 work=$5
. "$(dirname "$0")/lib.sh"
start "$data" "$work" "$data/table.csv"
tail -n 1 "$work/out" | grep -Eqx 'summary: points 3 families 1 MAE [0-9]+\.[0-9] max [0-9]+\.[0-9] saturated [0-3]/3' ||
    fail "last line '$(tail -n 1 "$work/out")', expected 3 points of 1 family"
grep -Eqx 'exact: generic points 0 MAE - max - uncertain 0 dsmem points 3 MAE [0-9.]+ max [0-9.]+ uncertain [0-3]' \
    "$work/out" || fail "the exact: line does not count 3 dsmem points and no generic point"
check_exact
grep -q '^GPU: .* 4 points (3 counted, 1 excluded: reference not shown to be bound by the unit or the DSMEM path)' \
    "$work/out" || fail "the header line does not count 4 points, 3 counted, 1 excluded"
grep -qx '| dsmem_c2_ring_bank32_L384 | dsmem | dsmem | - | 16 warps per block | 106.600 | 95.928 | 0.900 |' "$work/out" ||
    fail "the excluded point's row is missing"
grep -Eq '^\| dsmem \| 3 \| 63-100 % \|' "$work/out" || fail "the per-family row of dsmem differs"
grep -Eq '^\| own \| 2 \| 1 \| .* \| [01] of 1 \| 1\.000 \| 1\.000 \| 0 \| 0 \|$' "$work/out" ||
    fail "the DSMEM table's own-rank row differs"
grep -Eq '^\| ring \| 2 \| 2 \| .* \| - \| 0\.900 \| 1\.014 \| 1 \| 0 \|$' "$work/out" ||
    fail "the DSMEM table's ring row differs"
grep -q '^| dsmem:distinct | 3 |' "$work/out" || fail "the per-pattern row of dsmem:distinct is missing"
grep -q '^| dsmem: level 1 (~70 % intended) | 2 | 2-48 |' "$work/out" || fail "the dsmem work level row is missing"
# "in range" as the per-point rows' own U range and U_true (events) say
"$py" - "$work/out" <<'PY' || fail "a per-point 'in range' cell disagrees with its row"
import sys
ok = n = 0
for line in open(sys.argv[1]):
    c = [x.strip() for x in line.split("|")[1:-1]]
    if len(c) != 19 or not c[0].startswith("dsmem_"):
        continue
    n += 1
    if c[9] == "-":
        ok += c[10] == "-"
        continue
    lo, hi = (float(x) for x in c[9].split("-"))
    ok += c[10] == ("yes" if lo <= float(c[5]) <= hi else "no")
sys.exit(0 if n == 4 and ok == 4 else 1)
PY
# --dsmem-truth sm: the same points, U_true from u_true_sm
"$py" "$script" "$res" --profile "$prof" --table "$res/table.csv" --out "$work/o-sm" --dsmem-truth sm > "$work/out_sm" 2> "$work/err"
rc=$?
[ $rc -eq 0 ] && grep -q 'U_true here is U_true per SM' "$work/out_sm" &&
    tail -n 1 "$work/out_sm" | grep -Eq '^summary: points 3 families 1 ' || fail "--dsmem-truth sm: exit $rc"
grep -Eq '^\| dsmem \| 3 \| 62-100 % \|' "$work/out_sm" || fail "--dsmem-truth sm: U_true is not u_true_sm"
# a table without dsmem families: the points are not priced, and nothing is left to count
grep -v '^dsmem' "$res/table.csv" > "$work/nodsmem.csv"
"$py" "$script" "$res" --profile "$prof" --table "$work/nodsmem.csv" --out "$work/o2" > "$work/out2" 2> "$work/err2"
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l < "$work/err2")" -eq 1 ] && grep -q '3 not priced (dsmem_uncalibrated' "$work/err2" ||
    fail "a table without dsmem families: exit $rc, $(cat "$work/err2")"

if [ $fails -ne 0 ]; then
    echo "--- validate.py output:"
    cat "$work/out"
    exit 1
fi
echo "validate.py: dsmem points grouped, checked and counted"
exit 0
