#!/bin/sh
# tests/validate: validation --list against unit_bound --list (neither needs a GPU).  Run by CTest
# (validate.points):
#   run_test_points.sh VALIDATION UNIT_BOUND WORK_DIR
# Checks that every point naming a unit_bound case (ub_case, which validate.py's boundness check
# looks up in unit_bound.csv) names one that unit_bound has, that point names are unique, and that
# `-f gen` selects the 220 points of class generic (11 operations x 5 lane patterns x 4 work levels,
# each operation and pattern once per level) beside the family class's 60 generic ones.
set -u
val=$1 ub=$2 work=$3
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
rm -rf "$work" && mkdir -p "$work" || exit 1
"$val" --list > "$work/all" && "$val" --list -f gen > "$work/gen" && "$ub" --list > "$work/cases" ||
    { echo "FAIL: --list failed"; exit 1; }
sed -n 's/.* ub_case=\([^ ]*\)$/\1/p' "$work/all" | grep -v '^-$' | sort -u > "$work/named"
sort -u "$work/cases" > "$work/have"
missing=$(comm -23 "$work/named" "$work/have" | head -5)
[ -z "$missing" ] || fail "points name unit_bound cases it lacks: $missing"
[ "$(awk '{print $3}' "$work/all" | sort | uniq -d | wc -l)" -eq 0 ] || fail "two points share a name"
[ "$(awk '$2 == "generic"' "$work/gen" | wc -l)" -eq 220 ] || fail "-f gen: not 220 points of class generic"
[ "$(awk '$2 == "family"' "$work/gen" | wc -l)" -eq 60 ] || fail "-f gen: not 60 generic points of class family"
for op in add ptr_add max min exch cas and or xor inc dec; do
    for pat in distinct random256 random4096 skewed grouped; do
        n=$(awk -v p="generic_${op}_$pat" '$2 == "generic" && ($3 == p || index($3, p "_L") == 1)' "$work/gen" | wc -l)
        [ "$n" -eq 4 ] || fail "generic_${op}_$pat: $n points, not 4 work levels"
    done
done
grep -q ' generic    generic_inc_skewed .* ub_case=gen_inc/skewed$' "$work/gen" ||
    fail "generic_inc_skewed does not name unit_bound's case gen_inc/skewed"

[ $fails -eq 0 ] || exit 1
echo "validation --list: every unit_bound case named exists, the generic class complete"
exit 0
