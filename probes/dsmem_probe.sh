#!/usr/bin/env bash
# Distributed-shared-memory atomics (issue 12 groundwork): SASS, cycles per job and counters of
# probes/dsmem_probe.cu on the GPU at hand (sm_90; needs nvcc, cuobjdump, ncu; clocks left alone).
#   probes/dsmem_probe.sh OUT_DIR
set -uo pipefail
out=${1:?usage: dsmem_probe.sh OUT_DIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
nvcc -arch=sm_90 -O3 -lineinfo -o "$out/dsmem_probe" "$here/dsmem_probe.cu" || exit 1
cuobjdump -sass "$out/dsmem_probe" > "$out/sass.txt"
"$out/dsmem_probe" 256 > "$out/time.csv" || exit 1
M=smsp__inst_executed_op_shared_atom.sum,smsp__inst_executed_op_shared_atom_dot_alu.sum
M=$M,smsp__inst_executed_op_generic_atom.sum,smsp__inst_executed_op_generic_atom_dot_alu.sum
M=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.max
M=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__t_requests_pipe_lsu_mem_dshared_op_atom.sum
M=$M,l1tex__t_output_wavefronts_pipe_lsu_mem_dshared_op_atom.sum,l1tex__t_requests_pipe_lsu_mem_dshared.sum
M=$M,l1tex__m_xbar2l1tex_read_bytes_mem_dshared_op_atom.sum,l1tex__m_l1tex2xbar_write_bytes_mem_dshared_op_atom.sum
M=$M,smsp__sass_inst_executed_op_dshared_atom.sum,smsp__sass_inst_executed_op_shared_atom.sum
M=$M,l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum,sm__cycles_active.avg,smsp__inst_executed.sum
# iters 32 under ncu (each case: a warm-up and a measured launch)
timeout 300 ncu --clock-control none --csv --page raw --metrics "$M" -k regex:k_dsmem "$out/dsmem_probe" 32 \
    > "$out/ncu.csv" 2> "$out/ncu.log"
echo "ncu: rc $?"
