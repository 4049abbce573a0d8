#!/usr/bin/env bash
# run_all.sh - runs every hostile GPU run of tests/hostile and prints one summary line each;
# exits 1 when any failed, 77 when all were skipped (no GPU), else 0.
#   tests/hostile/run_all.sh [BIN_DIR [WORK_ROOT]]
# BIN_DIR defaults to build/bin; each run's evidence goes to WORK_ROOT/NAME (default: a new
# directory under ${TMPDIR:-/tmp}).  The RESULT lines are the figures for docs/reliability.md.
here=$(cd "$(dirname "$0")" && pwd)
bin_dir=${1:-$here/../../build/bin}
# the runs work in their own directories: a relative BIN_DIR must not break there
bin_dir=$(cd "$bin_dir" && pwd) || { echo "run_all.sh: no directory $1" >&2; exit 2; }
root=${2:-$(mktemp -d "${TMPDIR:-/tmp}/atomutil-hostile.XXXXXX")}
mkdir -p "$root"
pass=0 fail=0 skip=0
summary=()
for t in long_run segfault exit_thread sigkill threads_streams threads_start graphs two_gpus; do
    echo "==== $t"
    bash "$here/$t.sh" "$bin_dir" "$root/$t" 2>&1 | tee "$root/$t.log"
    st=${PIPESTATUS[0]}
    case $st in
    0) pass=$((pass + 1)); summary+=("PASS $t") ;;
    77) skip=$((skip + 1)); summary+=("SKIP $t") ;;
    *) fail=$((fail + 1)); summary+=("FAIL $t (status $st)") ;;
    esac
done
echo "==== summary (logs in $root)"
printf '  %s\n' "${summary[@]}"
for t in long_run segfault exit_thread sigkill threads_streams threads_start graphs two_gpus; do
    sed -n "s/^ *RESULT /  $t: /p" "$root/$t.log" 2>/dev/null
done
echo "hostile runs: $pass passed, $fail failed, $skip skipped"
[ $fail -gt 0 ] && exit 1
[ $pass -eq 0 ] && exit 77
exit 0
