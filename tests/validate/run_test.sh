#!/bin/sh
# tests/validate: validation/validate.py on data/, a results directory whose answers were computed by
# hand (README.md).  Run by CTest (validate.*):
#   run_test.sh PYTHON VALIDATE_PY ATOMUTIL_PROFILE DATA_DIR WORK_DIR
# Checks the exact summary line and the line exact: before it (no generic or dsmem point), the
# excluded point's row, validation_tables.md and validation_points.csv in --out DIR (or a temporary
# directory named on stderr) and nothing written into the results directory, the --doc markers,
# the same summary from compressed raw files, and the one-line errors for a missing raw file, a
# missing atomutil-profile and an --out that cannot be made.
set -u
py=$1 script=$2 prof=$3 data=$4 work=$5
want='summary: points 5 families 4 MAE 2.8 max 8.5 saturated 3/5'
exact='exact: generic points 0 MAE - max - uncertain 0 dsmem points 0 MAE - max - uncertain 0'
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

rm -rf "$work" && mkdir -p "$work" && cp -R "$data" "$work/res" || exit 1
res=$work/res
printf 'x\n<!-- validate.py t begin -->\nold\n<!-- validate.py t end -->\ny\n' > "$work/doc.md"
"$py" "$script" "$res" --profile "$prof" --table "$res/table.csv" --out "$work/o" --doc "$work/doc.md" --tag t \
    > "$work/out" 2> "$work/err"
rc=$?
[ $rc -eq 0 ] || fail "exit status $rc, stderr: $(cat "$work/err")"
[ -s "$work/err" ] && fail "unexpected stderr: $(cat "$work/err")"
last=$(tail -n 1 "$work/out")
[ "$last" = "$want" ] || fail "last line '$last', expected '$want'"
[ "$(grep -c '^summary:' "$work/out")" -eq 1 ] || fail "more than one summary line"
grep -qx '| add_d8_L32 | alu | add | 0.895 | add/bank8 | 8.000 | 8.900 | 0.899 |' "$work/out" ||
    fail "the excluded point's row is missing"
grep -q '^| \*\*all\*\* | 5 | 14-73 % | 2.8 | 8.5 | 89.6 / 104.3 / 124.4 | 3 of 5 | 0.96 | 1 |$' "$work/out" ||
    fail "the per-family total row differs"
[ "$(tail -n 1 "$work/o/validation_tables.md")" = "$want" ] || fail "validation_tables.md does not end with the summary"
# no point of family generic or dsmem: the line exact: before the summary, in the tables too
[ "$(tail -n 3 "$work/out" | head -n 1)" = "$exact" ] && [ "$(tail -n 3 "$work/o/validation_tables.md" | head -n 1)" = "$exact" ] ||
    fail "the line before the summary is not '$exact'"
[ "$(wc -l < "$work/o/validation_points.csv")" -eq 7 ] || fail "validation_points.csv: not 6 points"
diff -r "$data" "$res" > "$work/diff" || fail "the results directory was changed: $(head -c 300 "$work/diff")"
# without --out: a temporary directory, named in the one line on stderr
"$py" "$script" "$res" --profile "$prof" --table "$res/table.csv" > "$work/out3" 2> "$work/err3"
rc=$?
tmp_out=$(sed -n 's/^validate\.py: validation_tables\.md and validation_points\.csv written to \(.*\) (--out DIR)$/\1/p' "$work/err3")
if [ $rc -ne 0 ] || [ "$(wc -l < "$work/err3")" -ne 1 ] || [ -z "$tmp_out" ]; then
    fail "without --out: exit $rc, stderr: $(cat "$work/err3")"
else
    [ "$(tail -n 1 "$tmp_out/validation_tables.md")" = "$want" ] && [ "$(wc -l < "$tmp_out/validation_points.csv")" -eq 7 ] ||
        fail "without --out: $tmp_out lacks the tables or the points"
    case $tmp_out in "$res"*) fail "without --out: written into the results directory" ;; esac
    rm -rf "$tmp_out"
fi
diff -r "$data" "$res" > "$work/diff" || fail "without --out: the results directory was changed: $(head -c 300 "$work/diff")"
# an --out that cannot be made: exit 1, one line naming it, no summary
"$py" "$script" "$res" --profile "$prof" --table "$res/table.csv" --out "$work/doc.md/o" > "$work/out2" 2> "$work/err2"
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l < "$work/err2")" -eq 1 ] && grep -q 'doc.md/o' "$work/err2" && ! grep -q '^summary:' "$work/out2" ||
    fail "an --out that cannot be made: exit $rc, $(cat "$work/err2")"
grep -q "^$want\$" "$work/doc.md" && ! grep -q '^old$' "$work/doc.md" && [ "$(head -n 1 "$work/doc.md")" = x ] &&
    [ "$(tail -n 1 "$work/doc.md")" = y ] || fail "--doc did not replace the marked section"

# the raw files compressed as the committed results keep them (counters .xz, vtime.csv .gz, the listings in
# vop.cubins.tar.xz): the same summary
rm -rf "$work/packed" && cp -R "$data" "$work/packed" || exit 1
"$py" - "$work/packed" <<'EOF' || fail "cannot compress the copy of the results directory"
import gzip, lzma, os, shutil, sys, tarfile
d = sys.argv[1]
for name, module, ext in (("vop.counters.csv", lzma, ".xz"), ("vtime.csv", gzip, ".gz")):
    with open(os.path.join(d, name), "rb") as f, module.open(os.path.join(d, name + ext), "wb") as g:
        shutil.copyfileobj(f, g)
    os.remove(os.path.join(d, name))
with tarfile.open(os.path.join(d, "vop.cubins.tar.xz"), "w:xz") as t:
    t.add(os.path.join(d, "vop.cubins"), "vop.cubins")
shutil.rmtree(os.path.join(d, "vop.cubins"))
EOF
"$py" "$script" "$work/packed" --profile "$prof" --table "$res/table.csv" --out "$work/o4" > "$work/out4" 2> "$work/err4"
[ "$(tail -n 1 "$work/out4")" = "$want" ] || fail "compressed raw files: '$(tail -n 1 "$work/out4")', $(cat "$work/err4")"

# a missing raw file: exit 1, one line on stderr naming it, no summary
for f in unit_bound.csv vop.counters.csv vtime.csv vop_points.csv; do
    mv "$res/$f" "$res/$f.away"
    "$py" "$script" "$res" --profile "$prof" --table "$res/table.csv" > "$work/out2" 2> "$work/err2"
    rc=$?
    [ $rc -eq 1 ] || fail "without $f: exit status $rc"
    [ "$(wc -l < "$work/err2")" -eq 1 ] && grep -q "$f" "$work/err2" ||
        fail "without $f: stderr is not one line naming it: $(cat "$work/err2")"
    grep -q '^summary:' "$work/out2" && fail "without $f: a summary was printed"
    mv "$res/$f.away" "$res/$f"
done
"$py" "$script" "$res" --profile "$work/no-such-profile" > "$work/out2" 2> "$work/err2"
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l < "$work/err2")" -eq 1 ] && grep -q 'no-such-profile' "$work/err2" ||
    fail "a missing atomutil-profile: exit $rc, $(cat "$work/err2")"

if [ $fails -ne 0 ]; then
    echo "--- validate.py output:"
    cat "$work/out"
    exit 1
fi
echo "validate.py: summary and errors as computed by hand"
exit 0
