/*
 * sass.c - the SASS-metrics collector (ATOMUTIL_MODE=sass; groundwork for per-SM and per-opcode
 * reports, docs/per-sm.md): CUPTI patches every kernel's SASS and counts, per instruction and per
 * SM, the executed shared-atomic warp-instructions, their active threads and their shared
 * wavefronts.  After each launch the records are flushed and the shared-atomic instructions written
 * to the SASS file (profile/import/sass_file.h), one row per instruction and SM.  The cubins of
 * the measured kernels are kept (captured at module load) for their opcodes.
 * Measured limits (CUDA 13.0, driver 580.159.04; tests/device/sass_api_check.cu, docs/opcodes.md):
 * at SM and SMSP granularity every instance reports SM 0's value, and only the first kernel
 * launched in a context is ever counted (nothing after a first flush, nothing once any kernel ran
 * before collection was enabled).  So it counts at GPU granularity by default
 * (ATOMUTIL_SASS_GRANULARITY=sm|smsp for scripts/sass_check.py), and atomutil-profile does not
 * use it: --opcodes reads the opcodes from the cubins instead (cubins.c).
 */
#include "inject_internal.h"

#include "sass_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { M_INST, M_THREADS, M_WAVES, NM };

/* Candidate names per quantity, first available wins (GH100 has the first of each). */
static const char *const metric_names[NM][2] = {
    {"smsp__sass_inst_executed_op_shared_atom", NULL},
    {"smsp__sass_thread_inst_executed_op_shared_pred_on", "smsp__sass_thread_inst_executed"},
    {"smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared", "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_atom"},
};

static struct {
    uint64_t ids[NM];
    unsigned configured; /* bit per device ordinal (< 32) */
} s;

static int sass_setup(ctx_state *c)
{
    if ((unsigned)c->dev < 32 && (s.configured & (1u << c->dev)))
        return 0;
    CUpti_Device_GetChipName_Params chip = {.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    chip.deviceIndex = (size_t)c->dev;
    CUPTI_CHECK(cuptiDeviceGetChipName(&chip), return -1);
    CUpti_SassMetrics_Config cfg[NM];
    for (int m = 0; m < NM; ++m) {
        CUptiResult r = CUPTI_ERROR_INVALID_METRIC_NAME;
        for (int k = 0; k < 2 && metric_names[m][k] && r != CUPTI_SUCCESS; ++k) {
            CUpti_SassMetrics_GetProperties_Params gp = {.structSize =
                                                             CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE};
            gp.pChipName = chip.pChipName;
            gp.pMetricName = metric_names[m][k];
            r = cuptiSassMetricsGetProperties(&gp);
            if (r == CUPTI_SUCCESS)
                s.ids[m] = gp.metric.metricId;
        }
        if (r != CUPTI_SUCCESS) {
            au_report_cupti("cuptiSassMetricsGetProperties()", r);
            return -1;
        }
        cfg[m].metricId = s.ids[m];
        /* GPU totals; ATOMUTIL_SASS_GRANULARITY=sm|smsp selects the others (scripts/sass_check.py
         * shows that their per-SM values are not usable on CUDA 13.0: docs/opcodes.md) */
        const char *gr = getenv("ATOMUTIL_SASS_GRANULARITY");
        cfg[m].outputGranularity = gr && strcmp(gr, "sm") == 0     ? CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_SM
                                   : gr && strcmp(gr, "smsp") == 0 ? CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_SMSP
                                                                   : CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU;
    }
    CUpti_SassMetricsSetConfig_Params sc = {.structSize = CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE};
    sc.numOfMetricConfig = NM;
    sc.pConfigs = cfg;
    sc.deviceIndex = (uint32_t)c->dev;
    CUPTI_CHECK(cuptiSassMetricsSetConfig(&sc), return -1);
    if ((unsigned)c->dev < 32)
        s.configured |= 1u << c->dev;
    au_diag("info", "sass metrics configured (chip %s, device %d %s)", chip.pChipName, (int)c->dev, c->dev_name);
    return 0;
}

static int sass_enable(ctx_state *c)
{
    CUpti_SassMetricsEnable_Params en = {.structSize = CUpti_SassMetricsEnable_Params_STRUCT_SIZE};
    en.ctx = c->ctx;
    en.enableLazyPatching = 1; /* patch each kernel at its first launch, not whole modules */
    CUPTI_CHECK(cuptiSassMetricsEnable(&en), return -1);
    c->enabled = c->started = 1;
    return 0;
}

typedef struct {
    size_t rec;
} rec_ref;
static const CUpti_SassMetrics_Data *sort_recs;

static int cmp_rec(const void *x, const void *y)
{
    const CUpti_SassMetrics_Data *a = &sort_recs[((const rec_ref *)x)->rec], *b = &sort_recs[((const rec_ref *)y)->rec];
    if (a->cubinCrc != b->cubinCrc)
        return a->cubinCrc < b->cubinCrc ? -1 : 1;
    if (a->functionIndex != b->functionIndex)
        return a->functionIndex < b->functionIndex ? -1 : 1;
    return (a->pcOffset > b->pcOffset) - (a->pcOffset < b->pcOffset);
}

/* Writes the shared-atomic instructions of one group of records (one PC, one record per metric). */
static void write_group(const pending_launch *l, const CUpti_SassMetrics_Data *recs, const rec_ref *grp, size_t ng,
                        size_t ninst)
{
    const CUpti_SassMetrics_InstanceValue *val[NM] = {NULL};
    for (size_t k = 0; k < ng; ++k) {
        const CUpti_SassMetrics_Data *r = &recs[grp[k].rec];
        for (int m = 0; m < NM; ++m)
            if (ninst && r->pInstanceValues[0].metricId == s.ids[m])
                val[m] = r->pInstanceValues;
    }
    if (!val[M_INST])
        return;
    uint64_t total = 0;
    for (size_t i = 0; i < ninst; ++i)
        total += val[M_INST][i].value;
    if (total == 0)
        return; /* not a shared atomic (or never executed) */
    const CUpti_SassMetrics_Data *r0 = &recs[grp[0].rec];
    au_cubin_write_crc32(r0->cubinCrc);
    char kq[1024], fq[1024], line[2600];
    au_csv_quote(l->kernel, kq, sizeof kq);
    au_csv_quote(r0->functionName, fq, sizeof fq);
    size_t cap = 65536, used = 0;
    char *buf = malloc(cap);
    if (!buf)
        return;
    for (size_t i = 0; i < ninst; ++i) {
        uint64_t inst = val[M_INST][i].value;
        uint64_t thr = val[M_THREADS] ? val[M_THREADS][i].value : 0;
        uint64_t wav = val[M_WAVES] ? val[M_WAVES][i].value : 0;
        if (inst == 0 && wav == 0)
            continue;
        int n = snprintf(line, sizeof line, "%lld,%ld,\"%s\",%u,\"%s\",%u,%zu,%llu,%llu,%llu\n", l->id, au_g.pid, kq,
                         r0->cubinCrc, fq, r0->pcOffset, i, (unsigned long long)inst, (unsigned long long)thr,
                         (unsigned long long)wav);
        if (n < 0 || (size_t)n >= sizeof line)
            continue;
        if (used + (size_t)n > cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb)
                break;
            buf = nb;
            cap *= 2;
        }
        memcpy(buf + used, line, (size_t)n);
        used += (size_t)n;
    }
    au_write_all(buf, used);
    free(buf);
}

/* Flushes the records of the finished launch(es); all are attributed to the first pending launch
 * (launches are flushed one at a time, at the end of each). */
static void sass_flush(ctx_state *c)
{
    if (!c->enabled || c->npend == 0)
        return;
    if (cuCtxSynchronize() != CUDA_SUCCESS)
        au_diag("warning", "cuCtxSynchronize failed before flushing SASS metrics");
    CUpti_SassMetricsGetDataProperties_Params dp = {.structSize =
                                                        CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE};
    dp.ctx = c->ctx;
    CUPTI_CHECK(cuptiSassMetricsGetDataProperties(&dp), goto done);
    size_t nrec = dp.numOfPatchedInstructionRecords, ninst = dp.numOfInstances;
    au_diag("info", "sass flush: launch %lld, %zu records, %zu instances", c->pend[0].id, nrec, ninst);
    if (nrec == 0 || ninst == 0)
        goto done;
    CUpti_SassMetrics_Data *recs = calloc(nrec, sizeof *recs);
    CUpti_SassMetrics_InstanceValue *vals = calloc(nrec * ninst, sizeof *vals);
    rec_ref *refs = calloc(nrec, sizeof *refs);
    if (!recs || !vals || !refs) {
        free(recs);
        free(vals);
        free(refs);
        goto done;
    }
    for (size_t r = 0; r < nrec; ++r) {
        recs[r].structSize = sizeof recs[r];
        recs[r].pInstanceValues = vals + r * ninst;
        refs[r].rec = r;
    }
    CUpti_SassMetricsFlushData_Params fd = {.structSize = CUpti_SassMetricsFlushData_Params_STRUCT_SIZE};
    fd.ctx = c->ctx;
    fd.numOfPatchedInstructionRecords = nrec;
    fd.numOfInstances = ninst;
    fd.pMetricsData = recs;
    CUptiResult rr = cuptiSassMetricsFlushData(&fd);
    if (rr == CUPTI_SUCCESS) {
        sort_recs = recs;
        qsort(refs, nrec, sizeof *refs, cmp_rec);
        for (size_t a = 0; a < nrec;) {
            size_t b = a + 1;
            while (b < nrec && cmp_rec(&refs[a], &refs[b]) == 0)
                ++b;
            write_group(&c->pend[0], recs, refs + a, b - a, ninst);
            a = b;
        }
        for (size_t r = 0; r < nrec; ++r)
            free((void *)recs[r].functionName);
    } else {
        au_report_cupti("cuptiSassMetricsFlushData()", rr);
    }
    free(recs);
    free(vals);
    free(refs);
    if (c->npend > 1)
        au_diag("warning", "SASS records of %zu launches merged into launch %lld", c->npend, c->pend[0].id);
done:
    au_free_pending(c, c->npend);
}

static void sass_disable(ctx_state *c)
{
    if (!c->enabled)
        return;
    sass_flush(c);
    CUpti_SassMetricsDisable_Params dp = {.structSize = CUpti_SassMetricsDisable_Params_STRUCT_SIZE};
    dp.ctx = c->ctx;
    CUPTI_CHECK(cuptiSassMetricsDisable(&dp), (void)0);
    if (dp.numOfDroppedRecords)
        au_diag("warning", "%zu SASS records dropped", dp.numOfDroppedRecords);
    c->enabled = c->started = 0;
}

/* Graph launches and captures: counts of patched kernels inside a graph would be merged into the
 * next launch's, so collection is disabled (unflushed records dropped) and enabled again at the
 * next launch that runs. */
static void sass_pause(ctx_state *c)
{
    sass_disable(c);
}

static int sass_resume(ctx_state *c)
{
    return c->enabled ? 0 : sass_enable(c);
}

const collector au_sass_collector = {
    "sass", sass_setup, sass_enable, sass_flush, sass_pause, sass_resume, sass_disable, NULL, NULL, NULL, 0,
};
