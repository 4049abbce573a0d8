/*
 * metrics.c - the hardware metrics behind the model's counters (names as Nsight Compute and the
 * CUPTI Profiler Host API spell them; verified on GH100, see docs/counters.md).  One table serves
 * the ncu importer, --print-ncu-metrics and the live collector.
 */
#include "internal.h"

#include <string.h>

static const au_metric_def defs[] = {
    {"smsp__inst_executed_op_shared_atom.sum", AU_C_JOBS, 1,
     "jobs J: shared-atomic warp-instructions (ATOMS.*, CAS-loop retries included)", AU_SET_ALL, "inst"},
    {"smsp__inst_executed_op_shared_atom_dot_cas.sum", AU_C_CAS, 1,
     "CAS jobs: ATOMS.CAS and the ATOMS.CAST.SPIN of CAS loops", AU_SET_ALL, "inst"},
    {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum", AU_C_WAVEFRONTS, 1,
     "shared-atomic wavefronts: a = wavefronts / J", AU_SET_STD_GENERIC | AU_SET_DSMEM, "wavefront"},
    {"sm__cycles_active.avg", AU_C_ACTIVE_CYCLES, 1, "T: active cycles per SM (mean over SMs)", AU_SET_ALL, "cycle"},
    {"sm__warps_active.avg.per_cycle_active", AU_C_WARPS, 1, "N estimate: resident warps per active cycle", AU_SET_ALL,
     "warp"},
    {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.max", AU_C_WAVEFRONTS_MAX, 0,
     "busiest SM: its shared-atomic wavefronts (imbalance = max / mean)", AU_SET_STD_GENERIC | AU_SET_DSMEM,
     "wavefront"},
    {"sm__cycles_active.max", AU_C_ACTIVE_MAX, 0, "busiest SM: the longest active time of an SM", AU_SET_ALL, "cycle"},
    /* the loads of CAS loops: shared wavefronts of every kind, and the load and store instructions
     * they belong to (with the above, still one pass on GH100: docs/counters.md) */
    {"l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", AU_C_SHARED_WAVEFRONTS, 0,
     "CAS loops: all shared wavefronts (minus the atomic ones: the loops' loads and other LDS/STS)", AU_SET_STD_GENERIC,
     "wavefront"},
    {"smsp__inst_executed_op_shared_ld.sum", AU_C_LD_INST, 0, "CAS loops: LDS instructions (one per attempt)",
     AU_SET_STD, "inst"},
    {"smsp__inst_executed_op_shared_st.sum", AU_C_ST_INST, 0, "CAS loops: STS instructions (not the loops')",
     AU_SET_STD, "inst"},
    /* the advisor's time model: loads served by L2 wait behind the unit's queue in the L1 data
     * pipe, loads from DRAM hardly (docs/advisor.md, "Kernel time"); one pass with the above on
     * every chip CUPTI knows (tests/data/chip-sets.txt) */
    {"lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum", AU_C_L2_HIT, 0,
     "time model: sectors of the SMs' global reads that hit in L2 (loads that wait behind the unit)", AU_SET_STD,
     "sector"},
    /* ... and the loads that miss, for the rest of a CAS loop's entry (docs/advisor.md, "CAS loops
     * with their entries"); one pass with the above where the chip has it (not GB20x, not Tegra:
     * tests/data/chip-sets.txt) */
    {"dram__bytes_read.sum", AU_C_DRAM_READ, 0, "time model: bytes read from DRAM (the loads that miss in L2)",
     AU_SET_STD, "byte"},
    /* distributed shared memory (launches with clusters; one pass with the four above that both
     * sets share: docs/counters.md) */
    /* generic atomics (ATOM): the cluster set's DSMEM jobs; in the generic set, with their CAS
     * share, the instructions whose passes the wavefronts give (docs/opcodes.md, "Generic atomics") */
    {"smsp__inst_executed_op_generic_atom.sum", AU_C_GENERIC, 0,
     "generic-address atomics (ATOM): DSMEM jobs (map_shared_rank's), generic atomics' instructions",
     AU_SET_CLUSTER | AU_SET_GENERIC | AU_SET_DSMEM, "inst"},
    {"smsp__inst_executed_op_generic_atom_dot_cas.sum", AU_C_GENERIC_CAS, 0, "generic atomics: ATOM.CAS",
     AU_SET_GENERIC | AU_SET_DSMEM, "inst"},
    {"l1tex__t_output_wavefronts_pipe_lsu_mem_dshared.sum", AU_C_DSHARED_WF, 0,
     "DSMEM: wavefronts sent to other SMs' shared memory (same-word lanes serialize)", AU_SET_CLUSTER_DSMEM,
     "wavefront"},
    {"l1tex__m_l1tex2xbar_req_cycles_active_mem_dshared.sum", AU_C_DSHARED_XBAR, 0,
     "DSMEM: cycles the SM-to-SM interface was busy sending (one per rank a request reaches)", AU_SET_CLUSTER_DSMEM,
     "cycle"},
    /* the atomics' share of that traffic (the rest: loads and stores of library kernels with
     * clusters); still one pass on GH100 (docs/counters.md, "The cluster counter set") */
    {"l1tex__t_sectors_pipe_lsu_mem_dshared.sum", AU_C_DSHARED_SECT, 0,
     "DSMEM: sectors of requests to other SMs' shared memory (loads, stores, atomics)", AU_SET_CLUSTER_DSMEM, "sector"},
    {"l1tex__t_sectors_pipe_lsu_mem_dshared_op_atom.sum", AU_C_DSHARED_SECT_ATOM, 0,
     "DSMEM: ... of atomics (their share of the DSMEM path)", AU_SET_CLUSTER_DSMEM, "sector"},
    /* the dsmem set's own (several passes with the above, kernel replay): the stalls of the SM's
     * requests behind the receiving SMs, which with the active cycles give the DSMEM path's busy
     * time, and the remote requests, which tell the local generic jobs from the remote ones
     * (docs/model.md, "DSMEM") */
    {"l1tex__m_l1tex2xbar_req_cycles_stalled.sum", AU_C_XBAR_STALLED, 0,
     "DSMEM: cycles the SM's crossbar requests were stalled (every memory; the receiver's back-pressure)", AU_SET_DSMEM,
     "cycle"},
    {"l1tex__m_l1tex2xbar_req_cycles_active.sum", AU_C_XBAR_ACTIVE, 0,
     "DSMEM: cycles the SM's crossbar requests were active (every memory: the stalls' DSMEM share)", AU_SET_DSMEM,
     "cycle"},
    {"l1tex__t_requests_pipe_lsu_mem_dshared_op_atom.sum", AU_C_DSHARED_REQ_ATOM, 0,
     "DSMEM: atomic requests to other SMs' shared memory (the remote generic jobs)", AU_SET_DSMEM, "request"},
    {AU_METRIC_CLUSTER_SIZE, AU_C_CLUSTER, 0, "blocks per cluster (picks the dsmem_remote family)", AU_SET_ALL,
     "block"},
    {AU_METRIC_DEVICE_NAME, 0, 0, "device name, picks the table", AU_SET_ALL, ""},
    {AU_METRIC_SM_COUNT, 0, 0, "SM count (else taken from the table)", AU_SET_ALL, ""},
    {AU_METRIC_DURATION, 0, 0, "kernel duration, reported only", AU_SET_ALL, ""},
    {AU_METRIC_PASSES, AU_C_PASSES, 0, "passes the launch was measured in (more than 1: kernel replay)", AU_SET_ALL,
     "pass"},
};

const au_metric_def *au_metric_defs(size_t *count)
{
    *count = sizeof defs / sizeof defs[0];
    return defs;
}

int au_metric_for_ncu(const au_metric_def *d)
{
    return strcmp(d->name, AU_METRIC_PASSES) != 0; /* ncu reports it itself, not as a metric to collect */
}

int au_metric_collected(const au_metric_def *d)
{
    if (strcmp(d->name, AU_METRIC_CLUSTER_SIZE) == 0 || strcmp(d->name, AU_METRIC_PASSES) == 0)
        return 0;
    return d->counter || strcmp(d->name, AU_METRIC_DURATION) == 0;
}

int au_counters_set(au_counters *c, const char *name, double v)
{
    for (size_t i = 0; i < sizeof defs / sizeof defs[0]; ++i) {
        if (!defs[i].counter || strcmp(defs[i].name, name) != 0)
            continue;
        switch (defs[i].counter) {
        case AU_C_JOBS: c->jobs = v; break;
        case AU_C_CAS: c->cas_jobs = v; break;
        case AU_C_WAVEFRONTS: c->wavefronts = v; break;
        case AU_C_ACTIVE_CYCLES: c->active_cycles = v; break;
        case AU_C_WARPS: c->warps = v; break;
        case AU_C_WAVEFRONTS_MAX: c->wavefronts_max = v; break;
        case AU_C_ACTIVE_MAX: c->active_max = v; break;
        case AU_C_SHARED_WAVEFRONTS: c->shared_wavefronts = v; break;
        case AU_C_LD_INST: c->ld_inst = v; break;
        case AU_C_ST_INST: c->st_inst = v; break;
        case AU_C_GENERIC: c->generic_jobs = v; break;
        case AU_C_GENERIC_CAS: c->generic_cas = v; break;
        case AU_C_XBAR_STALLED: c->xbar_stalled = v; break;
        case AU_C_XBAR_ACTIVE: c->xbar_active = v; break;
        case AU_C_DSHARED_REQ_ATOM: c->dshared_requests = v; break;
        case AU_C_PASSES: c->passes = v; break;
        case AU_C_DSHARED_WF: c->dshared_wavefronts = v; break;
        case AU_C_DSHARED_XBAR: c->dshared_xbar = v; break;
        case AU_C_CLUSTER: c->cluster_size = v; break;
        case AU_C_DSHARED_SECT: c->dshared_sectors = v; break;
        case AU_C_DSHARED_SECT_ATOM: c->dshared_sectors_atom = v; break;
        case AU_C_L2_HIT: c->l2_hit_sectors = v; break;
        case AU_C_DRAM_READ: c->dram_read_bytes = v; break;
        default: return 0;
        }
        c->have |= defs[i].counter;
        return 1;
    }
    return 0;
}
