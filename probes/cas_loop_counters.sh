#!/usr/bin/env bash
# Which hardware counters tell CAS-loop contention patterns apart (issue 11, docs/model.md "CAS
# loops"): every unit-bound kernel of calibrate/tools/unit_bound.cu whose case matches one of the
# filters, under ncu with the candidate shared-memory counters (several passes; ncu replays each
# launch), then probes/cas_loop_counters.py prints per case the cycles per instruction (from an
# unprofiled run of the same kernels) beside each counter per ATOMS instruction.
#
#   probes/cas_loop_counters.sh OUT_DIR [BUILD_DIR]      (needs a GPU, ncu; clocks left as they are)
set -uo pipefail
out=${1:?usage: cas_loop_counters.sh OUT_DIR [BUILD_DIR]}
build=${2:-build}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
ub=$build/bin/unit_bound
[ -x "$ub" ] || cmake --build "$build" --target unit_bound > /dev/null || exit 1
"$ub" > "$out/unit_bound.csv" || exit 1
M=smsp__inst_executed_op_shared_atom.sum,smsp__inst_executed_op_shared_atom_dot_cas.sum
M=$M,smsp__inst_executed_op_shared_atom_dot_alu.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum
M=$M,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
M=$M,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
M=$M,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,smsp__inst_executed_op_shared_ld.sum
M=$M,smsp__inst_executed_op_shared_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_read.sum
M=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_write.sum,l1tex__lsu_writeback_active_mem_shared.sum
M=$M,sm__inst_executed_pipe_lsu_mem_shared_cmd_read.sum,sm__inst_pending_pipe_lsu_mem_shared_cmd_read.sum
M=$M,smsp__thread_inst_executed_pipe_lsu_pred_on.sum,smsp__inst_executed_pipe_lsu.sum
M=$M,smsp__mio2rf_writeback_active_pipe_lsu.sum,sm__cycles_active.avg,smsp__inst_executed.sum
M=$M,smsp__inst_executed_op_shared_atom_pred_on_any.sum,smsp__sass_data_bytes_mem_shared_op_atom.sum
M=$M,smsp__sass_inst_executed_op_shared_atom.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_atom.sum
M=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_misc.sum
: > "$out/ncu.csv"
for flt in ${FILTERS:-cast_spin and64 or64 xor64 cas64/ exch64 add/}; do
    timeout 300 ncu --clock-control none --csv --page raw --metrics "$M" -k regex:ub_kernel \
        "$ub" --filter "$flt" --reps 1 >> "$out/ncu.csv" 2>> "$out/ncu.log"
    echo "ncu $flt: rc $?"
done
python3 "$here/probes/cas_loop_counters.py" "$out/ncu.csv" "$out/unit_bound.csv" | tee "$out/table.txt"
