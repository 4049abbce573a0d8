#!/usr/bin/env bash
# Runs the advisor's validation (docs/validation.md, "Advisor pairs") on the GPU at hand:
#
#   validation/advisor_all.sh RESULT_DIR [BUILD_DIR [ELEMENTS...]]
#
# BUILD_DIR (default build) is configured if needed and atomutil-profile and advisor_pairs are
# built (incrementally).  Needs a CUDA GPU with counter access and python3.  RESULT_DIR receives
#   pairs.csv                    advisor_pairs --list: the pairs, their cures and kernels
#   adv.csv                      atomutil-profile --csv of every launch of advisor_pairs (with the
#                                advisor's whatif_* columns), from the live run that also keeps
#   adv.counters.csv, adv.cubins/  its raw counters and kernel code (for --import with a later model)
#   adv_l2.*                     the same on 2 Mi elements (8 MB: the inputs stay in L2)
#   adv.log                      advisor_pairs' lines (each pair's median times) and the profiler's
#   advisor.log                  validation/advisor.py over both runs: the per-pair table and the
#                                summary lines
#   env.txt, steps.txt           the GPU, the commit, each step's exit status and seconds
# With ELEMENTS (e.g. 2097152 4194304 8388608 16777216), the pairs run once per size instead, as
# adv_N.* for N elements, and advisor.log scores them all; advisor_N.log scores each alone.
# Every kernel runs a warm-up and ADVISOR_REPS timed launches (default 15; advisor_pairs' --reps):
# the 5 timed launches of a kernel of a few microseconds spanned up to 37 % (median 1.6 %; on an
# H200, docs/validation.md "Advisor pairs"), which the medians of advisor.py need to outweigh.
# The output ends with advisor.py's three summary lines, the last of them the summary of all pairs.
# Exit status 1 if a step failed (a result differing from the CPU's makes advisor_pairs fail).
set -uo pipefail
res=${1:?usage: advisor_all.sh RESULT_DIR [BUILD_DIR [ELEMENTS...]]}
build=${2:-build}
shift $(($# < 2 ? $# : 2))
sizes=("$@")
reps=${ADVISOR_REPS:-15}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$res" || exit 1
: > "$res/steps.txt"
failed=0
run_step() { # run_step NAME SECONDS COMMAND...: with a time limit; logs the status and seconds
    local name=$1 limit=$2 t0=$SECONDS rc
    shift 2
    timeout "$limit" "$@"
    rc=$?
    echo "$name: rc $rc, $((SECONDS - t0)) s" >> "$res/steps.txt"
    [ $rc -eq 0 ] || failed=1
    return $rc
}

targets="atomutil-profile advisor_pairs"
if [ ! -f "$build/CMakeCache.txt" ]; then
    run_step configure 300 cmake -S "$here" -B "$build" -DATOMUTIL_ENABLE_TESTS=OFF > "$res/build.log" 2>&1 ||
        { cat "$res/steps.txt"; exit 1; }
fi
run_step build 600 cmake --build "$build" -j --target $targets >> "$res/build.log" 2>&1 || { cat "$res/steps.txt"; exit 1; }
P=$build/bin/atomutil-profile
B=$build/bin
# the GPU, its driver and clocks, the commit (-dirty: uncommitted changes) and the time
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader; git -C "$here" describe \
    --always --dirty; date -u +%FT%TZ; } > "$res/env.txt" 2>&1

run_step list 30 "$B/advisor_pairs" --list > "$res/pairs.csv"
if [ ${#sizes[@]} -gt 0 ]; then
    scored=()
    for n in "${sizes[@]}"; do
        run_step "profile_$n" 600 "$P" -q --csv --opcodes -o "$res/adv_$n" -- "$B/advisor_pairs" --elements "$n" --reps "$reps" \
            > "$res/adv_$n.log" 2>&1
        run_step "advisor_$n" 60 python3 "$here/validation/advisor.py" "$res/adv_$n.csv" "$res/pairs.csv" \
            > "$res/advisor_$n.log" 2>&1
        scored+=("$res/adv_$n.csv" "$res/pairs.csv")
    done
    run_step advisor 60 python3 "$here/validation/advisor.py" "${scored[@]}" > "$res/advisor.log" 2>&1
    cat "$res/steps.txt"
    for n in "${sizes[@]}"; do
        echo "$n elements:"
        grep '^advisor:' "$res/advisor_$n.log"
    done
    echo "all sizes:"
    grep '^advisor:' "$res/advisor.log" || tail -n 3 "$res/advisor.log"
    exit $failed
fi
# the live run: every launch measured and priced by the opcodes of its code (-o keeps the counters
# and the cubins beside the report)
run_step profile 600 "$P" -q --csv --opcodes -o "$res/adv" -- "$B/advisor_pairs" --reps "$reps" > "$res/adv.log" 2>&1
# the same pairs on 2 Mi elements, whose 8 MB stay in L2: loads that hit in L2 share the LSU pipe
# with the atomics, where the 16 Mi elements' loads wait on DRAM
run_step profile_l2 600 "$P" -q --csv --opcodes -o "$res/adv_l2" -- "$B/advisor_pairs" --elements 2097152 --reps "$reps" \
    > "$res/adv_l2.log" 2>&1
run_step advisor 60 python3 "$here/validation/advisor.py" "$res/adv.csv" "$res/pairs.csv" "$res/adv_l2.csv" \
    "$res/pairs.csv" > "$res/advisor.log" 2>&1

cat "$res/steps.txt"
grep '^advisor:' "$res/advisor.log" || tail -n 3 "$res/advisor.log"
exit $failed
