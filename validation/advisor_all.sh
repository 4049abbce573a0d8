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
# at 2 Mi elements the 5 timed launches of a kernel spanned up to 36.9 % (median 1.6 %; an H200,
# docs/validation.md "Advisor pairs"), which the medians of advisor.py need to outweigh.
# With ADVISOR_NCU (sizes, e.g. "2097152 16777216"), the pairs also run under Nsight Compute once
# per size, its source counters giving the CAS loops' entries (application replay, 3 timed
# launches: about 160 and 200 s on an H200; ncu on PATH or in ATOMUTIL_NCU, its own sections in
# NCU_SECTIONS or found beside it): adv_ncu_N.ncu-rep, adv_ncu_N.csv and .txt (the imports),
# pages/adv_ncu_N.PAGE.csv (the pages the imports read: validation/ncu_pages.sh), and
# advisor_ncu.log scoring them all, whose lines are printed last, after "under ncu:".
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
[ -n "${ADVISOR_NCU:-}" ] && targets+=" atomutil_python" # the AtomicUnit section and its rule in BUILD_DIR/share
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
ncu_runs() { # the ADVISOR_NCU sizes under Nsight Compute (docs/results/advisor-cas-entries-h200-2026-11-28)
    [ -n "${ADVISOR_NCU:-}" ] || return 0
    local ncu=${ATOMUTIL_NCU:-$(command -v ncu)} secs ours scored=() n
    if [ -z "$ncu" ]; then
        echo "advisor_all: ADVISOR_NCU needs ncu (on PATH, or its path in ATOMUTIL_NCU)" >&2
        failed=1
        return
    fi
    secs=$("$here/validation/ncu_sections.sh" "$ncu") || { failed=1; return; }
    ours=$(cd "$build" && pwd)/share/atomutil/ncu
    for n in $ADVISOR_NCU; do
        run_step "ncu_$n" 900 "$ncu" --section-folder "$secs" --section-folder "$ours" --section AtomicUnit \
            --section SourceCounters --metrics sass__inst_executed_per_opcode_with_modifier_all \
            --replay-mode application --cache-control none --clock-control none -f -o "$res/adv_ncu_$n" \
            "$B/advisor_pairs" --elements "$n" --reps 3 > "$res/adv_ncu_$n.log" 2>&1 || continue
        # the pages the import reads are kept in pages/ (validation/ncu_pages.sh), to score again later
        ATOMUTIL_NCU=$here/validation/ncu_pages.sh NCU_PAGES_NCU=$ncu NCU_PAGES_DIR=$res/pages \
            run_step "import_ncu_$n" 600 "$P" --import "$res/adv_ncu_$n.ncu-rep" --csv \
            > "$res/adv_ncu_$n.csv" 2>> "$res/adv_ncu_$n.log" || continue
        ATOMUTIL_NCU=$here/validation/ncu_pages.sh NCU_PAGES_DIR=$res/pages \
            "$P" --import "$res/adv_ncu_$n.ncu-rep" > "$res/adv_ncu_$n.txt" 2>> "$res/adv_ncu_$n.log"
        scored+=("$res/adv_ncu_$n.csv" "$res/pairs.csv")
    done
    [ ${#scored[@]} -gt 0 ] &&
        run_step advisor_ncu 60 python3 "$here/validation/advisor.py" "${scored[@]}" > "$res/advisor_ncu.log" 2>&1
}
ncu_lines() {
    [ -n "${ADVISOR_NCU:-}" ] || return 0
    echo "under ncu:"
    grep '^advisor:' "$res/advisor_ncu.log" 2> /dev/null || echo "(no ncu run scored: $res/steps.txt)"
}
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
    ncu_runs
    cat "$res/steps.txt"
    for n in "${sizes[@]}"; do
        echo "$n elements:"
        grep '^advisor:' "$res/advisor_$n.log"
    done
    echo "all sizes:"
    grep '^advisor:' "$res/advisor.log" || tail -n 3 "$res/advisor.log"
    ncu_lines
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
ncu_runs

cat "$res/steps.txt"
grep '^advisor:' "$res/advisor.log" || tail -n 3 "$res/advisor.log"
ncu_lines
exit $failed
