#!/usr/bin/env bash
# memcheck.sh - runs a build tree's whole CTest suite under valgrind memcheck; any memory error
# and any definite or indirect leak fails the test it happens in.
#
#   tools/memcheck.sh [BUILD_DIR] [CTEST_ARGS...]      BUILD_DIR defaults to build
#
# Valgrind must check our programs, not the shells and tools around them, so the suite runs in two
# parts:
#   1. the test executables under CTest's memcheck (`ctest -T memcheck`): the model, importer,
#      calibration and fuzz-replay tests, and (--trace-children) the atomutil binaries they start,
#      e.g. test_calibrate_cli running atomutil-calibrate through system();
#   2. the script-driven tests (labels cli, install, device, hostile): the CLI and install scripts
#      put $ATOMUTIL_TEST_WRAPPER (valgrind and its options) before each run of atomutil-profile
#      or atomutil-calibrate, so valgrind wraps the binary and not the shell; the GPU scripts
#      (device, hostile) run as they are and return 77 (skipped) without a GPU, as in CI.
# Valgrind exits 88 on a report (--error-exitcode), a status no test expects, so the test fails;
# its report is in the test's output.  On a machine with a GPU the GPU tests are left out (CUDA
# under valgrind is neither fast nor clean, and they are not what this run is for).
# Use a build without sanitizers (valgrind and ASan exclude each other).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
[ $# -gt 0 ] && shift
[ -f "$build/CTestTestfile.cmake" ] || { echo "memcheck.sh: $build is not a configured build tree" >&2; exit 2; }
if grep -qE '^ATOMUTIL_(SANITIZE|FUZZ):BOOL=ON' "$build/CMakeCache.txt"; then
    echo "memcheck.sh: $build is built with sanitizers; valgrind needs a plain build" >&2
    exit 2
fi
valgrind=$(command -v valgrind) || { echo "memcheck.sh: valgrind not found (apt-get install valgrind)" >&2; exit 2; }
jobs=${MEMCHECK_JOBS:-$(nproc 2>/dev/null || echo 2)}

# -q: nothing on stderr unless there is something to report (the CLI tests check stderr too)
# shellcheck disable=SC2054 # the commas are inside option values
opts=(--error-exitcode=88 --leak-check=full --show-leak-kinds=definite,indirect
      --errors-for-leak-kinds=definite,indirect --num-callers=30 -q)
# tools the tests start that are not ours: not traced in part 1
skip='*/nvidia-smi,*/python3,*/python3.*,*/cmake,*/ctest,*/grep,*/sed,*/awk,*/mawk,*/gawk,*/head'
skip+=',*/tail,*/wc,*/tr,*/cut,*/sort,*/mktemp,*/rm,*/cat,*/cp,*/mkdir,*/find,*/ldd,*/readelf'
skip+=',*/groff,*/troff,*/grotty,*/env,*/time,*/jq,*/timeout'

gpu_skip=()
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    echo "memcheck.sh: a GPU is present: leaving out the GPU tests (labels device, hostile; calibrate_gpu*)"
    gpu_skip=(-E '^(device\.|hostile\.|calibrate_gpu)')
fi

scripted='^(cli|install|device|hostile|script)$' # labels of the tests of part 2
# CUPTI's own host library under valgrind reports leaks of its own: the tests that only call it are left out
cupti='^cupti$'
start=$SECONDS
echo "== part 1: test executables under ctest -T memcheck"
# (without include(CTest) there is no DartConfiguration.tcl: ctest says so, and works without it)
set +e
ctest --test-dir "$build" -T memcheck -LE "$scripted|$cupti" "${gpu_skip[@]}" -j"$jobs" --output-on-failure \
    --overwrite MemoryCheckCommand="$valgrind" \
    --overwrite "MemoryCheckCommandOptions=${opts[*]} --trace-children=yes --trace-children-skip=$skip" \
    "$@" 2>&1 | grep -v 'DartConfiguration.tcl'
rc1=${PIPESTATUS[0]}
set -e

echo "== part 2: script-driven tests, binaries under valgrind through ATOMUTIL_TEST_WRAPPER"
rc2=0
ATOMUTIL_TEST_WRAPPER="$valgrind ${opts[*]}" \
    ctest --test-dir "$build" -L "$scripted" "${gpu_skip[@]}" -j"$jobs" --output-on-failure "$@" || rc2=$?

echo "== memcheck: part 1 status $rc1, part 2 status $rc2, $((SECONDS - start)) s"
[ "$rc1" = 0 ] && [ "$rc2" = 0 ]
