#!/usr/bin/env bash
# Distributed-shared-memory atomics by lane pattern, target rank and cluster size (issue 12): SASS,
# cycles per job and counters of probes/dsmem_patterns.cu on the GPU at hand (sm_90; needs nvcc,
# cuobjdump, ncu; clocks left alone).
#   probes/dsmem_patterns.sh OUT_DIR
set -uo pipefail
out=${1:?usage: dsmem_patterns.sh OUT_DIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
nvcc -arch=sm_90 -O3 -lineinfo -o "$out/dsmem_patterns" "$here/dsmem_patterns.cu" || exit 1
cuobjdump -sass "$out/dsmem_patterns" | grep -E 'Function|ATOM|RED|CCTL|MEMBAR|ERRBAR' > "$out/sass_atoms.txt"
"$out/dsmem_patterns" 256 > "$out/time.csv" || exit 1
M=smsp__inst_executed_op_shared_atom.sum,smsp__inst_executed_op_generic_atom.sum,smsp__inst_executed_op_global_red.sum,smsp__inst_executed_op_redas.sum
M=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.max,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
M=$M,l1tex__t_requests_pipe_lsu_mem_dshared_op_atom.sum,l1tex__t_requests_pipe_lsu_mem_dshared_op_atom.max,l1tex__t_output_wavefronts_pipe_lsu_mem_dshared_op_atom.sum,l1tex__t_output_wavefronts_pipe_lsu_mem_dshared_op_atom.max
M=$M,l1tex__t_requests_pipe_lsu_mem_dshared.sum,l1tex__t_output_wavefronts_pipe_lsu_mem_dshared.sum,l1tex__t_output_wavefronts_pipe_lsu_mem_dshared.max
M=$M,l1tex__t_requests_pipe_lsu_mem_dshared_op_redas.sum,l1tex__t_output_wavefronts_pipe_lsu_mem_dshared_op_redas.sum
M=$M,l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum,l1tex__t_requests_pipe_lsu_mem_global_op_red.sum,l1tex__m_l1tex2xbar_req_cycles_active_mem_dshared.sum,l1tex__m_l1tex2xbar_req_cycles_active_mem_dshared.max
M=$M,sm__cycles_active.avg,sm__cycles_active.max,launch__cluster_size,smsp__inst_executed.sum
# the quick subset (iters 32) under ncu: cluster sizes 2 and 4 (8: ring only), 32 warps
timeout 400 ncu --clock-control none --csv --page raw --metrics "$M" -k regex:k_ds "$out/dsmem_patterns" 32 quick \
    > "$out/ncu.csv" 2> "$out/ncu.log"
echo "ncu: rc $?"
