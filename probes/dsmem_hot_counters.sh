#!/usr/bin/env bash
# Where a hot receiver's work is counted (issue 36, docs/model.md "DSMEM"): the validation's
# hot-receiver points (every block of a cluster on rank 0's word 0) and, beside them, the ring
# points of one word per warp, under ncu with the DSMEM counters' .sum, .max (the busiest SM) and
# .avg; probes/dsmem_hot_counters.py then prints each launch's busiest SM over the mean active SM.
#
#   probes/dsmem_hot_counters.sh OUT_DIR [BUILD_DIR]   (sm_90 clusters, ncu; clocks left as they are)
set -uo pipefail
out=${1:?usage: dsmem_hot_counters.sh OUT_DIR [BUILD_DIR]}
build=${2:-build}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
[ -x "$build/bin/validation" ] || cmake --build "$build" --target validation > /dev/null || exit 1
M=
for c in l1tex__t_output_wavefronts_pipe_lsu_mem_dshared_op_atom l1tex__t_requests_pipe_lsu_mem_dshared_op_atom \
    l1tex__m_xbar2l1tex_read_sectors_mem_dshared_op_atom l1tex__m_l1tex2xbar_write_sectors_mem_dshared_op_atom \
    l1tex__m_l1tex2xbar_req_cycles_active_mem_dshared l1tex__m_l1tex2xbar_req_cycles_stalled \
    l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom l1tex__t_set_accesses_pipe_lsu_mem_dshared_op_atom sm__cycles_active; do
    M=$M${M:+,}$c.sum,$c.max,$c.avg
done
ncu --metrics "$M" --clock-control none --kernel-name regex:_full --csv --page raw \
    "$build/bin/validation" --mode profile -W -f _hot > "$out/hot.csv" || exit 1
ncu --metrics "$M" --clock-control none --kernel-name regex:_full --csv --page raw \
    "$build/bin/validation" --mode profile -W -f dsmem_c4_ring_word > "$out/ring.csv" || exit 1
python3 "$here/probes/dsmem_hot_counters.py" "$out/hot.csv" "$out/ring.csv"
