#!/usr/bin/env bash
# Reruns the ground-truth validation (docs/validation.md) and the case studies (docs/case-study.md)
# on the GPU at hand, one command per GPU:
#
#   scripts/validation_all.sh RESULT_DIR [BUILD_DIR]
#
# RESULT_DIR receives every raw output and the tables (validation_tables.md, case_tables.md);
# figures go to RESULT_DIR/img (IMG_DIR=docs/img to write them where the docs look).  BUILD_DIR
# (default build) is configured and built here if it lacks the four programs.  Needs a CUDA GPU
# with counter access, python3 (matplotlib for the figures), and ncu for the LSU-queue step
# (SKIP_NCU=1 leaves it out).  Clocks are left as they are (ncu --clock-control none).
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

if [ ! -x "$build/bin/atomutil-profile" ] || [ ! -x "$build/bin/validation" ] ||
   [ ! -x "$build/bin/histogram" ] || [ ! -x "$build/bin/kmeans" ]; then
    step build 600 bash -c "cmake -S '$here' -B '$build' -DATOMUTIL_ENABLE_TESTS=OFF > '$res/build.log' &&
        cmake --build '$build' -j --target atomutil-profile validation histogram kmeans >> '$res/build.log'" || exit 1
fi
P=$build/bin/atomutil-profile
B=$build/bin
{
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
    (cd "$here" && git rev-parse HEAD 2>/dev/null)
    date -u +%Y-%m-%dT%H:%M:%SZ
} > "$res/env.txt" 2>&1

# 1. ground truth: T_full, T_atom, U_true of every point, the program alone
step vtime 300 "$B/validation" -o "$res/vtime.csv" 2> "$res/vtime.log"
# 2. atomutil's counters of the same points (each point's full kernel twice, atomics-only once);
#    the reports are made with one family (--no-opcodes) and the paper's pricing (--busy queue):
#    validate.py computes the saturated pricing from the same counters with its port of the model
step vprof 300 "$P" -q --no-opcodes --busy queue -o "$res/vprof" --csv -- "$B/validation" --mode profile -o "$res/vprof_points.csv" \
    > "$res/vprof.log" 2>&1
for f in popc_inc cas cas64 cast_spin cast_spin64; do
    step "vprof-$f" 60 "$P" -q --busy queue --import "$res/vprof.counters.csv" --family "$f" --csv -o "$res/vprof_$f"
done
step validate 120 python3 "$here/scripts/validate.py" "$res" --img "$img" > "$res/validate.log" 2>&1
# 2b. the same points with --opcodes (each kernel priced by the opcodes of its code)
step vop 300 "$P" -q --opcodes -o "$res/vop" --csv -- "$B/validation" --mode profile -o "$res/vop_points.csv" \
    > "$res/vop.log" 2>&1
step validate-opcodes 60 python3 "$here/scripts/validate_opcodes.py" "$res" > "$res/validate_opcodes.md" 2>&1

# 3. histogram case study: every size, block size, image and kernel; timings, then counters
step hist-time 300 "$B/histogram" --sweep -i all > "$res/hist_time.txt"
step hist-prof 300 "$P" -q --no-opcodes -o "$res/hprof" --csv -- "$B/histogram" --sweep -i all -r 1 > "$res/hist_prof.txt"
step hist-popc 60 "$P" -q --import "$res/hprof.counters.csv" --family popc_inc --csv -o "$res/hprof_popc_inc"

# 4. k-means centroid update: replication and padding
step km-time 300 "$B/kmeans" --sweep > "$res/km_time.txt"
step km-prof 300 "$P" -q --no-opcodes -o "$res/kprof" --csv -- "$B/kmeans" --sweep -r 1 > "$res/km_prof.txt"
step km-cast 60 "$P" -q --import "$res/kprof.counters.csv" --family cast_spin --csv -o "$res/kprof_cast_spin"
step case-study 120 python3 "$here/scripts/case_study.py" "$res" --img "$img" > "$res/case_study.log" 2>&1

# 5. (last: the slowest step) the LSU-queue estimate of N needs counters atomutil does not collect: ncu on the same program
if [ "${SKIP_NCU:-0}" != 1 ] && command -v ncu > /dev/null; then
    m="$("$P" --print-ncu-metrics),sm__cycles_active.sum,sm__cycles_active.max"
    m="$m,sm__inst_pending_pipe_lsu_mem_shared_cmd_read.sum,sm__inst_executed_pipe_lsu_mem_shared_cmd_read.sum"
    m="$m,sm__average_inst_latency_pipe_lsu_mem_shared_cmd_read.ratio"
    step vncu ${NCU_LIMIT:-300} bash -c "ncu --csv --print-units base --clock-control none --cache-control none \
        --kernel-name regex:^vk_ --metrics '$m' '$B/validation' --mode profile --no-warm -o '$res/vncu_points.csv' \
        > '$res/vncu.csv' 2> '$res/vncu.log'"
fi
step validate-ncu 120 python3 "$here/scripts/validate.py" "$res" --img "$img" > "$res/validate.log" 2>&1

cat "$res/steps.txt"
exit $failed
