# lib.sh - what run_test_dsmem.sh and run_test_generic.sh share (sourced; they set py, script,
# prof): fail counts a failed check; start DATA WORK TABLE copies DATA to WORK/res (res) and runs
# validate.py on it with TABLE and --out WORK/o, stdout in WORK/out, and fails a non-zero exit or
# any stderr; check_exact (below) checks the line exact: against the points' own figures.
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
start() {
    rm -rf "$2" && mkdir -p "$2" && cp -R "$1" "$2/res" || exit 1
    res=$2/res
    "$py" "$script" "$res" --profile "$prof" --table "$3" --out "$2/o" > "$2/out" 2> "$2/err"
    rc=$?
    [ $rc -eq 0 ] || fail "exit status $rc, stderr: $(cat "$2/err")"
    [ -s "$2/err" ] && fail "unexpected stderr: $(cat "$2/err")"
}
# check_exact: the line `exact: generic points P MAE M max X uncertain U dsmem points ...` is printed
# once, two lines before the summary, ends validation_tables.md's tables the same way, and its figures
# are those of WORK/o/validation_points.csv's counted points (not excluded, priced) of family generic
# and of family dsmem: their number, mean and largest err (within 0.006: the file keeps 4 decimals)
# and how many have the verdict `uncertain`.
check_exact() {
    "$py" - "$work/out" "$work/o/validation_tables.md" "$work/o/validation_points.csv" <<'PY' ||
import csv, re, sys
out = open(sys.argv[1]).read().splitlines()
md = open(sys.argv[2]).read().splitlines()
lines = [l for l in out if l.startswith("exact:")]
if len(lines) != 1 or out[-3:-1] != [lines[0], ""] or md[-3:-1] != [lines[0], ""]:
    sys.exit("the exact: line is not printed once, before the summary, in the output and the tables")
num = r"(-|[0-9]+\.[0-9]{2})"
m = re.fullmatch(r"exact: generic points (\d+) MAE %s max %s uncertain (\d+) dsmem points (\d+) MAE %s max %s "
                 r"uncertain (\d+)" % (num, num, num, num), lines[0])
if not m:
    sys.exit("the exact: line is malformed: %s" % lines[0])
rows = list(csv.DictReader(open(sys.argv[3])))
for k, fam in enumerate(("generic", "dsmem")):
    n, mae, mx, unc = m.group(4 * k + 1), m.group(4 * k + 2), m.group(4 * k + 3), m.group(4 * k + 4)
    rs = [r for r in rows if r["family"] == fam and r["excluded"] == "False" and not r["unpriced"]]
    e = [float(r["err"]) for r in rs]
    if int(n) != len(rs) or int(unc) != sum(1 for r in rs if r["verdict"] == "uncertain"):
        sys.exit("%s: %s points, %s uncertain; validation_points.csv: %d, %d" % (
            fam, n, unc, len(rs), sum(1 for r in rs if r["verdict"] == "uncertain")))
    if not e:
        if (mae, mx) != ("-", "-"):
            sys.exit("%s: MAE %s max %s without points" % (fam, mae, mx))
    elif mae == "-" or abs(float(mae) - sum(e) / len(e)) > 0.006 or abs(float(mx) - max(e)) > 0.006:
        sys.exit("%s: MAE %s max %s; validation_points.csv: %.4f, %.4f" % (fam, mae, mx, sum(e) / len(e), max(e)))
PY
        fail "the exact: line disagrees with validation_points.csv"
}
