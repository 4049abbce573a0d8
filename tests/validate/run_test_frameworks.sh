#!/bin/sh
# tests/validate: validation/advisor_frameworks.py --score (the framework pairs scored from the
# runs' CSVs, no GPU) on the recorded ncu imports of frameworks/ (README.md there).
# Run by CTest (validate.advisor_frameworks):
#   run_test_frameworks.sh PYTHON3 FRAMEWORKS_PY DATA_DIR WORK_DIR [BUILD_DIR TORCH_PAGES_DIR]
# Checks the pairs written (two per op, cure hashed, CUB's added work named; the code pair of
# frameworks/code, one per input, cure native), the merged report
# (the histogram kernel's launches only, named OP__INPUT), each pair's row and the summary lines as
# advisor.py gives them; and the errors: a folder that is not there or holds no run (exit 1, one
# line), a run's CSV without a kernel column (exit 1, one line naming it), usage errors (exit 2).
# With BUILD_DIR and the recorded pages of PyTorch's bincount: --rescore of a tar of kept pages
# (no ncu), and of a folder without any (exit 1, one line).
set -u
py=$1 fw=$2 data=$3 work=$4 build=${5:-} torch=${6:-}
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
rm -rf "$work" && mkdir -p "$work/run" "$work/empty" "$work/bad" || exit 1
cp "$data"/fw_ncu_*.csv "$work/run/" || exit 1

"$py" "$fw" --score "$work/run" > "$work/out" 2> "$work/err"
rc=$?
[ $rc -eq 0 ] && [ ! -s "$work/err" ] || fail "--score: exit status $rc, stderr: $(cat "$work/err")"
cat > "$work/want" <<'OUT'
under ncu:
advisor: no-added-work pairs 2 busy-mape 39.6 time-mape 47.3 in-range 2/2 wrong-direction 0 missing 0
advisor: data-only pairs 4 busy-mape 55.7 time-mape 55.1 in-range 3/4 wrong-direction 1 missing 0
advisor: all pairs 4 busy-mape 55.7 time-mape 55.1 in-range 3/4 wrong-direction 1 missing 0
OUT
cmp -s "$work/out" "$work/want" || fail "--score printed: $(cat "$work/out")"
cat > "$work/want-pairs" <<'CSV'
pair,set,cure,base_kernel,variant_kernel,adds_work
torch_histc_one_rand,data-only,hashed,torch_histc__one,torch_histc__rand,none
torch_histc_skew_rand,data-only,hashed,torch_histc__skew,torch_histc__rand,none
cupy_histogram_one_rand,data-only,hashed,cupy_histogram__one,cupy_histogram__rand,CUB adds runs of equal keys before its atomics: uniform keys leave more atomics
cupy_histogram_skew_rand,data-only,hashed,cupy_histogram__skew,cupy_histogram__rand,CUB adds runs of equal keys before its atomics: uniform keys leave more atomics
CSV
cmp -s "$work/run/pairs.csv" "$work/want-pairs" || fail "pairs.csv: $(cat "$work/run/pairs.csv")"
# six launches a run (the reduce_kernel row of torch_histc_one is not the histogram's)
"$py" - "$work/run/fw_ncu_16777216.csv" > "$work/names" 2>&1 <<'PY' || fail "merged report: $(cat "$work/names")"
import collections, csv, sys
n = collections.Counter(r["kernel"] for r in csv.DictReader(open(sys.argv[1])))
want = {"%s__%s" % (op, i): 6 for op in ("torch_histc", "cupy_histogram") for i in ("one", "skew", "rand")}
assert n == want, dict(n)
PY
[ -f "$work/run/fw_16777216.csv" ] && fail "a live report merged from no live run"
log=$work/run/advisor_fw_ncu.log
grep -q '^| torch_histc_one_rand | data-only | hashed | 42325.9 | 72203.5 | 41.4 | 1588.21 | 33.31 \[23.25, 1373.90\] | 81.76 | 59.3 | yes | ok (-97.9/-94.9 %) | none |$' "$log" ||
    fail "row: $(grep '^| torch_histc_one_rand' "$log")"
grep -q '^| cupy_histogram_one_rand | .* | 163.17 | .* | 180.66 | 72.2 | no | WRONG (-69.2/+10.7 %) | CUB adds' "$log" ||
    fail "row: $(grep '^| cupy_histogram_one_rand' "$log")"

# the code pair (frameworks/code: live runs at 2 Mi, README.md): PyTorch's bincount against its cure
# native written here, one pair per input; its data-only pairs missing live (CAS loops: no entries)
mkdir -p "$work/code" && cp "$data"/code/fw_*.csv "$work/code/" || exit 1
"$py" "$fw" --score "$work/code" > "$work/out" 2> "$work/err"
rc=$?
[ $rc -eq 0 ] && [ ! -s "$work/err" ] || fail "code: exit status $rc, stderr: $(cat "$work/err")"
[ "$(tail -n 1 "$work/out")" = "advisor: all pairs 5 busy-mape 3337.0 time-mape 302.8 in-range 3/5 wrong-direction 0 missing 2" ] ||
    fail "code: $(tail -n 1 "$work/out")"
for i in one skew rand; do
    grep -qx "cupy_bincount32_native_$i,code,native,torch_bincount__$i,cupy_bincount32__$i,none" "$work/code/pairs.csv" ||
        fail "code: no pair for $i: $(cat "$work/code/pairs.csv")"
done
grep -q '^| cupy_bincount32_native_one | code | native | 41439.2 | 502.5 | 8147.4 | 401.30 | 65.39 \[8.41, 385.99\] | 10.05 | 550.8 | yes | ok (-83.7/-97.5 %) | none |$' \
    "$work/code/advisor_fw.log" || fail "code: row $(grep '^| cupy_bincount32_native_one' "$work/code/advisor_fw.log")"

# errors: exit 1 with one line; usage: exit 2
refused() { # refused STATUS TEXT ARGS...: exit STATUS, nothing on stdout, one line on stderr holding TEXT
    want=$1 text=$2
    shift 2
    "$py" "$fw" "$@" > "$work/out" 2> "$work/err"
    rc=$?
    [ $rc -eq "$want" ] || fail "$*: exit status $rc, want $want"
    [ -s "$work/out" ] && fail "$*: stdout: $(head -n 1 "$work/out")"
    [ "$want" -eq 2 ] || [ "$(wc -l < "$work/err")" -eq 1 ] || fail "$*: stderr not one line: $(cat "$work/err")"
    grep -qF -- "$text" "$work/err" || fail "$*: stderr lacks '$text': $(cat "$work/err")"
}
# an empty run's CSV (a run that failed) is left out, said so; the others are scored as before
mkdir -p "$work/part" && cp "$data"/fw_ncu_*.csv "$work/part/" && : > "$work/part/fw_ncu_16777216_torch_histc_skew.csv" || exit 1
"$py" "$fw" --score "$work/part" > "$work/out" 2> "$work/err"
rc=$?
[ $rc -eq 0 ] || fail "empty run: exit status $rc"
[ "$(cat "$work/err")" = "advisor_frameworks.py: $work/part/fw_ncu_16777216_torch_histc_skew.csv: empty, left out" ] ||
    fail "empty run: stderr: $(cat "$work/err")"
grep -q '^advisor: all pairs 4 .* in-range 2/4 wrong-direction 1 missing 1$' "$work/out" || fail "empty run: $(tail -n 1 "$work/out")"

refused 1 "$work/none: no such folder" --score "$work/none"
refused 1 "$work/empty: no run's CSV" --score "$work/empty"
printf 'launch_id,name\n0,x\n' > "$work/bad/fw_ncu_16777216_torch_histc_one.csv"
refused 1 "$work/bad/fw_ncu_16777216_torch_histc_one.csv: no column kernel" --score "$work/bad"
refused 2 "--score takes RESULT_DIR alone" --score "$work/run" extra
refused 2 "unknown option --fast" "$work/x" --fast
refused 2 "--elements needs an integer" "$work/x" --elements many
refused 2 "--ops: unknown op foo" "$work/x" --ops torch_histc,foo
[ -e "$work/x" ] && fail "a usage error made the result folder"

# --rescore: a run's kept pages (PyTorch's bincount, tests/data/ncu-torch-bincount-h200), in a tar,
# imported again without ncu (validation/ncu_pages.sh gives them back; a failing ncu on PATH): the
# loop's 524,288 entries read from the source page, the hashed cure priced
if [ -n "$build" ] && [ -n "$torch" ]; then
    mkdir -p "$work/kept/run/pages" "$work/failbin" || exit 1
    printf '#!/bin/sh\necho ran >> %s/ncu-ran.log\nexit 1\n' "$work" > "$work/failbin/ncu" && chmod +x "$work/failbin/ncu"
    for pg in raw opcodes source; do
        cp "$torch/bincount-one-$pg.ncu.csv" "$work/kept/run/pages/fw_ncu_16777216_torch_bincount_one.$pg.csv" || exit 1
    done
    tar -czf "$work/kept.tar.gz" -C "$work/kept" run || exit 1
    PATH=$work/failbin:$PATH "$py" "$fw" --rescore "$work/kept.tar.gz" "$work/re" "$build" > "$work/out-re" 2> "$work/err-re"
    rc=$?
    [ $rc -eq 0 ] || fail "--rescore: exit status $rc, stderr: $(cat "$work/err-re")"
    [ -s "$work/ncu-ran.log" ] && fail "--rescore: ncu ran"
    "$py" - "$work/re/fw_ncu_16777216.csv" <<'PY' || fail "--rescore: the merged import lacks the loop's entries or the hashed price"
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["kernel"] == "torch_bincount__one"]
sys.exit(not rows or any(r["loop_entries"] != "524288" or not r["whatif_hashed_busy_cycles"] for r in rows))
PY
    "$py" "$fw" --rescore "$work/empty" "$work/re2" "$build" > /dev/null 2> "$work/err-re2"
    rc=$?
    [ $rc -eq 1 ] && [ "$(wc -l < "$work/err-re2")" -eq 1 ] && grep -q "no kept pages in $work/empty" "$work/err-re2" ||
        fail "--rescore of a folder without pages: exit $rc, stderr: $(cat "$work/err-re2")"
fi
[ $fails -eq 0 ] || exit 1
echo "advisor_frameworks: ok"
