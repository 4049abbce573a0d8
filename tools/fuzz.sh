#!/usr/bin/env bash
# fuzz.sh - builds the libFuzzer targets of tests/fuzz and fuzzes each for a set time, then prints
# per target the executions, the coverage reached and the findings (crashes, hangs, leaks, OOMs).
#
#   tools/fuzz.sh SECONDS [TARGET...]      TARGET: table, ncu (default: both)
#
# Environment: CC (default clang, else clang-14), FUZZ_BUILD_DIR (default build-fuzz),
# FUZZ_OUT (default FUZZ_BUILD_DIR/fuzz-out), FUZZ_JOBS (targets run at once, default nproc).
# Each target fuzzes from the seeds (tests/fuzz/corpus/TARGET) and the regression inputs
# (tests/data/fuzz-regressions/TARGET) into its own corpus FUZZ_OUT/TARGET/corpus (kept between
# runs); the source tree is never written.  A finding stops libFuzzer: it is saved under
# FUZZ_OUT/TARGET/findings/ and fuzzing goes on with the time left, so that one bug does not hide
# the next.  Copy what it finds into tests/data/fuzz-regressions/TARGET/ once fixed.
# Exit status: 0 no finding, 1 findings, 2 usage or build failure.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
root=$PWD

usage() { echo "usage: tools/fuzz.sh SECONDS [table|ncu]..." >&2; exit 2; }
[ $# -ge 1 ] || usage
secs=$1
shift
[[ $secs =~ ^[0-9]+$ ]] && [ "$secs" -ge 1 ] || usage
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(table ncu)
for t in "${targets[@]}"; do
    [ -f "tests/fuzz/fuzz_$t.c" ] || { echo "fuzz.sh: unknown target '$t'" >&2; usage; }
done

cc=${CC:-}
if [ -z "$cc" ]; then
    for c in clang clang-14 clang-15 clang-16; do
        command -v "$c" >/dev/null && { cc=$c; break; }
    done
fi
[ -n "$cc" ] || { echo "fuzz.sh: no clang found (Debian: apt-get install clang libclang-rt-dev)" >&2; exit 2; }
build=${FUZZ_BUILD_DIR:-build-fuzz}
out=${FUZZ_OUT:-$build/fuzz-out}
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}

echo "== building the fuzz targets in $build ($cc)"
cmake -S . -B "$build" -DCMAKE_C_COMPILER="$cc" -DATOMUTIL_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    >"$build.configure.log" 2>&1 || { cat "$build.configure.log" >&2; exit 2; }
rm -f "$build.configure.log"
build_targets=()
for t in "${targets[@]}"; do build_targets+=(--target "fuzz_$t"); done
cmake --build "$build" -j"$jobs" "${build_targets[@]}" >/dev/null || {
    echo "fuzz.sh: build failed" >&2; exit 2; }

# fuzz_one TARGET: libFuzzer in rounds until SECONDS are used; one log per round
fuzz_one() {
    local t=$1 bin=$build/tests/fuzz/fuzz_$1 dir=$out/$1
    mkdir -p "$dir/corpus" "$dir/findings" "$dir/logs"
    local inputs=("$root/tests/fuzz/corpus/$t")
    [ -d "$root/tests/data/fuzz-regressions/$t" ] && inputs+=("$root/tests/data/fuzz-regressions/$t")
    local start=$SECONDS round=0 left
    while left=$((secs - (SECONDS - start))); [ "$left" -gt 0 ]; do
        round=$((round + 1))
        # -timeout: an input that runs 10 s is a hang; -rss_limit_mb: 2 GB is an OOM;
        # -max_len: seeds are a few KB, longer inputs only slow the search
        "$bin" -max_total_time="$left" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
            -dict="$root/tests/fuzz/$t.dict" -artifact_prefix="$dir/findings/" \
            -print_final_stats=1 "$dir/corpus" "${inputs[@]}" >"$dir/logs/round$round.log" 2>&1
        local rc=$?
        [ $rc -eq 0 ] && break
        # libFuzzer exits non-zero on a finding (crash, timeout, leak, oom) and saves the input
        if ! grep -qE '^artifact_prefix|Test unit written to' "$dir/logs/round$round.log"; then
            echo "fuzz.sh: $t: libFuzzer failed (status $rc) without a finding, see $dir/logs/round$round.log" >&2
            break
        fi
    done
}

echo "== fuzzing ${targets[*]} for ${secs} s each ($jobs at a time); output in $out"
mkdir -p "$out"
for t in "${targets[@]}"; do rm -rf "$out/$t/logs" "$out/$t/findings"; done
running=0
for t in "${targets[@]}"; do
    fuzz_one "$t" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait -n
        running=$((running - 1))
    fi
done
wait

# summary: executions summed over the rounds, coverage of the last round, findings
status=0
printf '\n%-6s %10s %14s %10s %8s %8s %9s  %s\n' target seconds executions exec/s cov ft corpus findings
for t in "${targets[@]}"; do
    dir=$out/$t
    execs=0 rounds=0
    for log in "$dir"/logs/round*.log; do
        [ -f "$log" ] || continue
        rounds=$((rounds + 1))
        n=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | awk '{print $2}' | tail -n 1)
        if [ -z "$n" ]; then # a crash ends the run before the final stats: use the last status line
            n=$(grep -oE '^#[0-9]+' "$log" | tail -n 1 | tr -d '#')
        fi
        execs=$((execs + ${n:-0}))
    done
    last=$(ls "$dir"/logs/round*.log 2>/dev/null | sort -V | tail -n 1)
    cov=$(grep -oE 'cov: [0-9]+' "$last" 2>/dev/null | tail -n 1 | awk '{print $2}')
    ft=$(grep -oE 'ft: [0-9]+' "$last" 2>/dev/null | tail -n 1 | awk '{print $2}')
    corpus=$(ls "$dir/corpus" | wc -l)
    findings=$(ls "$dir/findings" | wc -l)
    printf '%-6s %10s %14s %10s %8s %8s %9s  %s\n' "$t" "$secs" "$execs" "$((execs / secs))" \
        "${cov:-?}" "${ft:-?}" "$corpus" "$findings"
    if [ "$findings" -gt 0 ]; then
        status=1
        for f in "$dir"/findings/*; do
            echo "    $f"
        done
    fi
done
echo
if [ $status -ne 0 ]; then
    echo "findings: reproduce with $build/tests/fuzz/fuzz_TARGET FILE; once fixed, copy each into"
    echo "tests/data/fuzz-regressions/TARGET/ (fuzz.replay.TARGET then runs it in every build)"
else
    echo "no findings"
fi
exit $status
