#!/usr/bin/env bash
# dsmem_traffic_probe.sh - builds probes/dsmem_traffic_probe.cu and runs it under Nsight Compute
# with the cluster counter set's DSMEM counters and the tag-stage sector counters of distributed
# shared memory by operation (docs/counters.md, "The cluster counter set"): which of them tell
# atomics from the remote loads, stores and cluster barriers of kernels without atomics.  Needs
# an sm_90 GPU, nvcc and ncu; never changes device settings (--clock-control none).
#   probes/dsmem_traffic_probe.sh OUT_DIR [ITERS]
#   OUT_DIR/traffic.csv    ncu --csv --page raw, one row per launch (warm-up launches included)
#   OUT_DIR/traffic.sass   the kernel's SASS (cuobjdump): what each mode compiles to
set -euo pipefail
out=${1:?usage: dsmem_traffic_probe.sh OUT_DIR [ITERS]}
iters=${2:-64}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
nvcc -arch=sm_90 -O2 -o "$out/dsmem_traffic_probe" "$here/probes/dsmem_traffic_probe.cu"
cuobjdump -sass "$out/dsmem_traffic_probe" > "$out/traffic.sass" 2>&1 || true
M=smsp__inst_executed_op_generic_atom.sum,smsp__inst_executed_op_shared_atom.sum
M=$M,l1tex__t_output_wavefronts_pipe_lsu_mem_dshared.sum,l1tex__m_l1tex2xbar_req_cycles_active_mem_dshared.sum
M=$M,l1tex__t_sectors_pipe_lsu_mem_dshared.sum,l1tex__t_sectors_pipe_lsu_mem_dshared_op_atom.sum
M=$M,l1tex__t_sectors_pipe_lsu_mem_dshared_op_redas.sum,l1tex__t_sectors_pipe_lsu_mem_dshared_op_st.sum
M=$M,l1tex__t_sectors_pipe_lsu_mem_dshared_op_ld.sum,launch__cluster_size,sm__cycles_active.avg
ncu --clock-control none --csv --page raw --metrics "$M" "$out/dsmem_traffic_probe" "$iters" > "$out/traffic.csv"
