#!/usr/bin/env bash
# gpu_check.sh - what a change of the injection library must pass on a GPU machine before it lands
# (CODING.md, "Tests"): a build for the GPU the machine shows, the GPU tests (ctest -L
# "device|hostile", then the race-prone ones again REPEAT times each) and tools/stress.sh.  A race
# shows in a few runs of a hundred: run it on a fresh machine, right after the build.
#
#   tools/gpu_check.sh [-b BUILD_DIR] [-o OUT_DIR] [-r STRESS_ROUNDS] [-n REPEAT] [PHASE...]
#
# PHASE: build, tests, repeat, stress (default: all four, in that order; a call per phase fits a
# time limit).  OUT_DIR (default gpu-check-out) gets build.log, ctest.log, repeat.log and
# stress/ (runs.csv, failures).  Each phase prints one summary line:
#   gpu_check: build ok (ARCH, N s)
#   gpu_check: tests passed P failed F skipped S
#   gpu_check: repeat T: R runs, F failed          (one line per repeated test)
#   stress: runs R crashes C lost L                (tools/stress.sh's own)
# Exit status 0 when every phase run passed.  It changes no device setting.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
build=$here/build out=gpu-check-out rounds=12 repeat=20
while getopts "b:o:r:n:h" opt; do
    case $opt in
    b) build=$OPTARG ;;
    o) out=$OPTARG ;;
    r) rounds=$OPTARG ;;
    n) repeat=$OPTARG ;;
    h) sed -n '2,18p' "$0"; exit 0 ;;
    *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
phases=${*:-build tests repeat stress}
mkdir -p "$out" && out=$(cd "$out" && pwd) || exit 2
nvidia-smi -L >/dev/null 2>&1 || { echo "gpu_check: no GPU (nvidia-smi -L failed)" >&2; exit 77; }
status=0
# the tests whose subject is concurrency: threads, streams, graphs, processes sharing a GPU
racy="hostile.threads_start hostile.threads_streams hostile.graphs device.shared_gpu device.child_processes"

for phase in $phases; do
    case $phase in
    build)
        t0=$SECONDS
        if cmake -S "$here" -B "$build" -DATOMUTIL_CUDA_ARCHS=native -DATOMUTIL_REQUIRE_CUDA=ON \
            >"$out/build.log" 2>&1 && cmake --build "$build" -j"$(nproc)" >>"$out/build.log" 2>&1; then
            arch=$(sed -n 's/^CMAKE_CUDA_ARCHITECTURES:STRING=//p' "$build/CMakeCache.txt")
            echo "gpu_check: build ok ($arch, $((SECONDS - t0)) s)"
        else
            tail -20 "$out/build.log"
            echo "gpu_check: build failed (see $out/build.log)"
            exit 1
        fi ;;
    tests)
        ctest --test-dir "$build" -L "device|hostile" --output-on-failure >"$out/ctest.log" 2>&1 || status=1
        passed=$(grep -c 'Test *#[0-9]*: .* Passed' "$out/ctest.log")
        failed=$(grep -cE 'Test *#[0-9]*: .*(Failed|Timeout|Exception)' "$out/ctest.log")
        skipped=$(grep -c 'Test *#[0-9]*: .*Skipped' "$out/ctest.log")
        grep -E 'Test *#[0-9]*: .*(Failed|Timeout|Exception)' "$out/ctest.log"
        echo "gpu_check: tests passed $passed failed $failed skipped $skipped" ;;
    repeat)
        : >"$out/repeat.log"
        for t in $racy; do
            fails=0
            for ((i = 0; i < repeat; i++)); do
                if ! ctest --test-dir "$build" -R "^$t\$" --output-on-failure >>"$out/repeat.log" 2>&1; then
                    fails=$((fails + 1))
                    status=1
                fi
            done
            echo "gpu_check: repeat $t: $repeat runs, $fails failed"
        done ;;
    stress)
        "$here/tools/stress.sh" -b "$build/bin" -o "$out/stress" -r "$rounds" -c 5 >"$out/stress.log" 2>&1 || status=1
        grep '^FAIL' "$out/stress.log"
        tail -1 "$out/stress.log" ;;
    *) echo "gpu_check: unknown phase '$phase' (build, tests, repeat, stress)" >&2; exit 2 ;;
    esac
done
exit $status
