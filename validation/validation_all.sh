#!/usr/bin/env bash
# Reruns the ground-truth validation (docs/validation.md) and the case studies (docs/case-study.md)
# on the GPU at hand, one command per GPU:
#
#   validation/validation_all.sh RESULT_DIR [BUILD_DIR]
#
# RESULT_DIR receives every raw output and the tables (validation_tables.md, case_tables.md);
# figures go to RESULT_DIR/img (IMG_DIR=docs/img to write them where the docs look).  BUILD_DIR
# (default build) is configured if needed and the programs are built (incrementally).  Needs a
# CUDA GPU with counter access and python3 (matplotlib for the figures; ncu for the optional
# LSU-queue step).  Clocks are left as they are.
#
# The steps the summary comes from run first (a few tens of seconds on an H100):
#   unit_bound   unit_bound.csv: the unit's cycles per job of every case (the boundness check)
#   vtime        vtime.csv: T_full, T_atom, U_true, the reference's cycles per job, per point
#                (the dsmem class too, with its half reference: docs/validation.md; it needs
#                thread block clusters, sm_90, and is skipped with a note without them)
#   vop          vop.counters.csv + vop.cubins/ (raw counters and kernel code) and vop.csv, the
#                report with the default pricing; vop_points.csv, the launch list
#   validate     validate.py: the report remade from vop.counters.csv, validation_tables.md,
#                validate.log whose last line is the summary
# then the older and optional ones, none of which the summary needs: validate_opcodes.py, the
# --busy queue run with its per-family re-imports (SKIP_OLD=1 leaves them out), the case studies
# (SKIP_CASES=1), and the ncu LSU-queue run (SKIP_NCU=1, or no ncu).
# Each step has a time limit and the script goes on after a failed step, so that one failure
# does not lose the others' results; the exit status is 1 if any step failed.
set -uo pipefail
res=${1:?usage: validation_all.sh RESULT_DIR [BUILD_DIR]}
build=${2:-build}
img=${IMG_DIR:-$res/img}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$res" "$img"
failed=0
step() { # step NAME SECONDS COMMAND...: runs with a time limit, logs the wall time
    local name=$1 limit=$2 t0=$SECONDS
    shift 2
    echo "== $name"
    timeout "$limit" "$@"
    local rc=$?
    echo "== $name: rc $rc, $((SECONDS - t0)) s" | tee -a "$res/steps.txt"
    [ $rc -eq 0 ] || failed=1
    return $rc
}

# build (configure first if BUILD_DIR is not configured); incremental: up-to-date programs cost
# seconds, and stale ones (an older validation without the family class) are never measured
targets="atomutil-profile validation unit_bound"
[ "${SKIP_CASES:-0}" = 1 ] || targets="$targets histogram kmeans"
if [ -f "$build/CMakeCache.txt" ]; then
    step build 600 bash -c "cmake --build '$build' -j --target $targets > '$res/build.log' 2>&1" || exit 1
else
    step build 600 bash -c "cmake -S '$here' -B '$build' -DATOMUTIL_ENABLE_TESTS=OFF > '$res/build.log' 2>&1 &&
        cmake --build '$build' -j --target $targets >> '$res/build.log' 2>&1" || exit 1
fi
P=$build/bin/atomutil-profile
B=$build/bin
{
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
    (cd "$here" && git rev-parse HEAD 2>/dev/null && git status --short 2>/dev/null | head -50)
    date -u +%Y-%m-%dT%H:%M:%SZ
} > "$res/env.txt" 2>&1

# 1. the unit's rate for the jobs of every reference (calibrate/tools/unit_bound.cu)
step unit_bound 120 bash -c "'$B/unit_bound' > '$res/unit_bound.csv' 2> '$res/unit_bound.log'"
# 2. ground truth: T_full, T_atom, U_true and the reference's cycles per job of every point
step vtime 300 "$B/validation" -o "$res/vtime.csv" 2> "$res/vtime.log"
# 3. atomutil's counters of the same points, live, default pricing (each kernel priced by the
#    opcodes of its code): each point's full kernel twice, atomics-only once
step vop 300 "$P" -q --opcodes -o "$res/vop" --csv -- "$B/validation" --mode profile -o "$res/vop_points.csv" \
    > "$res/vop.log" 2>&1
# 4. the summary, from the raw files: the report remade from vop.counters.csv
step validate 120 python3 "$here/validation/validate.py" "$res" --profile "$P" --out "$res" --img "$img" > "$res/validate.log" 2>&1
tail -n 1 "$res/validate.log"

# 5. older tables (not needed for the summary).  validate_opcodes.py compares the ATOMS pricing by
#    opcode with --no-opcodes; the dsmem class (cluster launches, priced from the cluster counter set)
#    has no --no-opcodes figure, so it reads a copy of its three files without the dsmem rows
ores=$res
if grep -q ',dsmem,' "$res/vop_points.csv" 2> /dev/null; then
    ores=$res/opcodes_atoms
    mkdir -p "$ores"
    grep -v ',dsmem,' "$res/vtime.csv" > "$ores/vtime.csv"
    grep -v ',dsmem,' "$res/vop_points.csv" > "$ores/vop_points.csv"
    grep -v 'vk_dsmem_' "$res/vop.csv" > "$ores/vop.csv"
fi
step validate-opcodes 60 python3 "$here/validation/validate_opcodes.py" "$ores" > "$res/validate_opcodes.md" 2>&1
if [ "${SKIP_OLD:-0}" != 1 ]; then
    # the paper's pricing (--busy queue) with one family, and the same counters re-imported per family
    step vprof 300 "$P" -q --no-opcodes --busy queue -o "$res/vprof" --csv -- "$B/validation" --mode profile \
        -o "$res/vprof_points.csv" > "$res/vprof.log" 2>&1
    for f in popc_inc cas cas64 cast_spin cast_spin64; do
        step "vprof-$f" 60 "$P" -q --busy queue --import "$res/vprof.counters.csv" --family "$f" --csv -o "$res/vprof_$f"
    done
fi

# 6. case studies: histogram (every size, block size, image and kernel) and k-means (replication, padding)
if [ "${SKIP_CASES:-0}" != 1 ]; then
    step hist-time 300 "$B/histogram" --sweep -i all > "$res/hist_time.txt"
    step hist-prof 300 "$P" -q --no-opcodes -o "$res/hprof" --csv -- "$B/histogram" --sweep -i all -r 1 > "$res/hist_prof.txt"
    step hist-popc 60 "$P" -q --import "$res/hprof.counters.csv" --family popc_inc --csv -o "$res/hprof_popc_inc"
    # the source paper's pricing (--busy queue), for comparison in the case-study tables
    step hist-queue 60 "$P" -q --import "$res/hprof.counters.csv" --busy queue --csv -o "$res/hprof_queue"
    step hist-popc-queue 60 "$P" -q --import "$res/hprof.counters.csv" --family popc_inc --busy queue --csv \
        -o "$res/hprof_popc_inc_queue"
    step km-time 300 "$B/kmeans" --sweep > "$res/km_time.txt"
    step km-prof 300 "$P" -q --no-opcodes -o "$res/kprof" --csv -- "$B/kmeans" --sweep -r 1 > "$res/km_prof.txt"
    step km-cast 60 "$P" -q --import "$res/kprof.counters.csv" --family cast_spin --csv -o "$res/kprof_cast_spin"
    step km-cast-queue 60 "$P" -q --import "$res/kprof.counters.csv" --family cast_spin --busy queue --csv \
        -o "$res/kprof_cast_spin_queue"
    step case-study 120 python3 "$here/validation/case_study.py" "$res" --img "$img" > "$res/case_study.log" 2>&1
fi

# 7. (last: the slowest step) the LSU-queue estimate of N needs counters atomutil does not collect:
#    ncu on the same program (the summary does not use it), the ATOMS classes only (-x dsmem: the
#    LSU-queue figures concern the shared-atomic unit's queue)
if [ "${SKIP_NCU:-0}" != 1 ] && command -v ncu > /dev/null; then
    m="$("$P" --print-ncu-metrics),sm__cycles_active.sum,sm__cycles_active.max"
    m="$m,sm__inst_pending_pipe_lsu_mem_shared_cmd_read.sum,sm__inst_executed_pipe_lsu_mem_shared_cmd_read.sum"
    m="$m,sm__average_inst_latency_pipe_lsu_mem_shared_cmd_read.ratio"
    step vncu ${NCU_LIMIT:-300} bash -c "ncu --csv --print-units base --clock-control none --cache-control none \
        --kernel-name regex:^vk_ --metrics '$m' '$B/validation' --mode profile --no-warm -x dsmem -o '$res/vncu_points.csv' \
        > '$res/vncu.csv' 2> '$res/vncu.log'"
fi

cat "$res/steps.txt"
exit $failed
