#!/usr/bin/env bash
# device_batch.sh - everything docs/calibration.md reports, in one run on a GPU machine: build,
# tests (GPU quick test included), SASS opcode check (cuobjdump), wavefront/instruction check
# (ncu, clock control off), two full tables (repeatability), all operations (rules), burst, a full
# c grid (thinning check) and the plots.
# Usage (from the repository root): calibrate/tools/device_batch.sh RESULT_DIR TABLE_NAME [MODE]
#   e.g. calibrate/tools/device_batch.sh "$OUT/res" nvidia-h200
#   MODE full (default): everything; tables: build, tests, the two tables, compare, key values
#   SKIP_NCU=1 leaves out the ncu checks (they need the profiler and ~10 s)
# Needs cmake, nvcc, ncu, cuobjdump, python3 (+ matplotlib for the plots) and libcsv.
set -u
RES=${1:?result dir}
NAME=${2:?table name, e.g. nvidia-h200}
MODE=${3:-full}
mkdir -p "$RES"
B=/tmp/au-build
CAL=$B/bin/atomutil-calibrate
AN="python3 calibrate/tools/analyze.py"
log() { echo "=== $* ($(date +%T))"; }

log gpu
nvidia-smi --query-gpu=name,compute_cap,clocks.sm,clocks.max.sm,driver_version,power.draw,temperature.gpu \
  --format=csv | tee "$RES/gpu.txt"

log build
cmake -S . -B $B -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$RES/cmake.log" 2>&1 || { tail -30 "$RES/cmake.log"; exit 1; }
cmake --build $B -j16 --target atomutil-calibrate test_calibrate_plan test_calibrate_results \
  test_calibrate_cli test_calibrate_gpu >"$RES/build.log" 2>&1 || { grep -E "error|Error" "$RES/build.log" | head -30; exit 1; }

log tests
(cd $B && ctest -R calibrate --output-on-failure) >"$RES/ctest.log" 2>&1
tail -25 "$RES/ctest.log"

if [ "$MODE" = full ]; then
log sass
cuobjdump -sass "$CAL" >"$RES/sass.txt" 2>&1
$AN sass "$RES/sass.txt" | tee "$RES/sass_check.csv"
cuobjdump -res-usage "$CAL" 2>&1 | grep -A1 "au_cal_kernel" | grep -oE "REG:[0-9]+|SHARED:[0-9]+" | sort | uniq -c \
  | tee "$RES/res_usage.txt"

if [ "${SKIP_NCU:-0}" != 1 ]; then
log ncu
# (family, a_max) from --list; own patterns at several a, CAS mixes, two blocks; then the same
# families with every lane pattern at 32 active lanes (a then counts lanes)
own=() word=() dist=() bank=()
while IFS=, read -r f sass width pat amax rest; do
  [ "$pat" = spread ] && continue # the dsmem families: no --point (their kernel is not ATOMS)
  for a in 1 2 3 8 17 32; do [ "$a" -le "$amax" ] && own+=(--point "$f:4:$a:0"); done
  word+=(--point "$f:4:32:0"); dist+=(--point "$f:4:32:0"); bank+=(--point "$f:4:32:0")
  [ "$pat" = distinct ] && bank+=(--point "$f:4:2:0" --point "$f:4:8:0")
done < <($CAL --list | tail -n +2)
own+=(--point add:8:4:4 --point cas64:8:4:4 --point cast_spin64:8:2:4 --point add:64:2:0 --point cas:48:3:0)
M=smsp__inst_executed_op_shared_atom.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,smsp__inst_executed_op_shared_atom_dot_cas.sum
for pat in own bank word distinct; do
  case $pat in own) pts=("${own[@]}"); po=() ;; bank) pts=("${bank[@]}"); po=(--pattern bank) ;;
    word) pts=("${word[@]}"); po=(--pattern word) ;; distinct) pts=("${dist[@]}"); po=(--pattern distinct) ;; esac
  timeout 300 ncu --clock-control none --metrics $M --csv --page raw -k regex:au_cal_kernel \
    --log-file "$RES/ncu_$pat.csv" "$CAL" "${po[@]}" "${pts[@]}" >"$RES/points_ncu_$pat.csv" 2>"$RES/ncu_$pat.err"
  echo "ncu $pat rc=$?"
  $AN ncu "$RES/ncu_$pat.csv" "$RES/points_ncu_$pat.csv" >"$RES/ncu_check_$pat.csv"
  echo "ncu check $pat rc=$? ($(grep -c ',ok$' "$RES/ncu_check_$pat.csv") ok, $(grep -c ',FAIL$' "$RES/ncu_check_$pat.csv") FAIL)"
  # the same points without the profiler, for their service times
  "$CAL" "${po[@]}" "${pts[@]}" >"$RES/points_$pat.csv" 2>>"$RES/points.err"
done
grep -E ",FAIL$|ncu has" "$RES"/ncu_check_*.csv | head -20
cat "$RES/points.err"
fi

fi

log table run 1
mkdir -p tables
"$CAL" -o "tables/$NAME.csv" 2>&1 | tee "$RES/run1.log"
log table run 2
"$CAL" -o "$RES/run2.csv" 2>&1 | tee "$RES/run2.log"
"$CAL" --compare "tables/$NAME.csv" "$RES/run2.csv" | tee "$RES/compare.txt"

log key values
$AN key "tables/$NAME.csv" | tee "$RES/key.csv"
cp "tables/$NAME.csv" "$RES/"
[ "$MODE" = full ] || { log done; exit 0; }

log all operations
"$CAL" --families all --c-grid ends -o "$RES/all.csv" 2>&1 | tee "$RES/all.log"
$AN ops "$RES/all.csv" | tee "$RES/ops.csv"

log burst
"$CAL" --method burst --families add --c-grid ends -o "$RES/burst.csv" 2>&1 | tee "$RES/burst.log"
$AN burst "tables/$NAME.csv" "$RES/burst.csv" | tee "$RES/burst_vs_steady.csv"

log full c grid
"$CAL" --c-grid full -o /tmp/fullc.csv 2>&1 | tee "$RES/fullc.log"
"$CAL" --check-thinning /tmp/fullc.csv | tee "$RES/thinning.txt"

log plots
python3 calibrate/tools/plot_calibration.py "tables/$NAME.csv" --out "$RES/img" --burst "$RES/burst.csv" \
  --ops "$RES/all.csv" 2>&1 | tail -8
log done
