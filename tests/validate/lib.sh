# lib.sh - what run_test_dsmem.sh and run_test_generic.sh share (sourced; they set py, script,
# prof): fail counts a failed check; start DATA WORK TABLE copies DATA to WORK/res (res) and runs
# validate.py on it with TABLE and --out WORK/o, stdout in WORK/out, and fails a non-zero exit or
# any stderr.
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
