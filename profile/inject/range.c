/*
 * range.c - the range-profiler collector: every kernel launch is one range of the CUPTI Range
 * Profiler (auto range; kernel replay if the metric set needs several passes).  When a launch
 * returns, its range is decoded, evaluated with the Profiler Host API (GPU-wide rollups) and
 * appended to the counters file in Nsight Compute's long CSV format (docs/live-profiling.md).
 */
#include "inject_internal.h"

#include "atomutil/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The rows of one measured launch, in the column order of AU_NCU_CSV_HEADER. */
static void write_launch(const ctx_state *c, const pending_launch *l, const double *values)
{
    size_t cap = 4096, used = 0;
    char *buf = malloc(cap);
    if (!buf)
        return;
    char kq[1024], prefix[1600];
    au_csv_quote(l->kernel, kq, sizeof kq);
    snprintf(prefix, sizeof prefix,
             "\"%lld\",\"%ld\",\"%s\",\"localhost\",\"%s\",\"%u\",\"%u\",\"(%u, %u, %u)\","
             "\"(%u, %u, %u)\",\"%d\",\"%d.%d\",\"atomutil\",",
             l->id, au_g.pid, au_g.proc_name, kq, c->ctx_id, l->stream_id, l->block[0], l->block[1],
             l->block[2], l->grid[0], l->grid[1], l->grid[2], (int)c->dev, c->cc_major, c->cc_minor);
    for (size_t i = 0; i < au_g.nmetrics + 2; ++i) {
        char row[2048];
        int n;
        if (i < au_g.nmetrics)
            n = snprintf(row, sizeof row, "%s\"%s\",\"\",\"%.17g\"\n", prefix, au_g.metrics[i], values[i]);
        else if (i == au_g.nmetrics)
            n = snprintf(row, sizeof row, "%s\"%s\",\"\",\"%s\"\n", prefix, AU_METRIC_DEVICE_NAME,
                         c->dev_name);
        else
            n = snprintf(row, sizeof row, "%s\"%s\",\"\",\"%d\"\n", prefix, AU_METRIC_SM_COUNT,
                         c->sm_count);
        if (n < 0 || (size_t)n >= sizeof row)
            continue;
        if (used + (size_t)n > cap) {
            char *nb = realloc(buf, (cap + (size_t)n) * 2);
            if (!nb)
                break;
            buf = nb;
            cap = (cap + (size_t)n) * 2;
        }
        memcpy(buf + used, row, (size_t)n);
        used += (size_t)n;
    }
    au_write_all(buf, used);
    free(buf);
}

/* Decodes what the profiler holds, writes one record per finished range (matched in order to the
 * pending launches) and resets the counter-data image. */
static void range_flush(ctx_state *c)
{
    if (!c->rp || c->npend == 0)
        return;
    CUpti_RangeProfiler_DecodeData_Params dec = {.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    dec.pRangeProfilerObject = c->rp;
    CUPTI_CHECK(cuptiRangeProfilerDecodeData(&dec), return);
    if (dec.numOfRangeDropped)
        au_diag("warning", "%zu launches were dropped by the range profiler", dec.numOfRangeDropped);
    CUpti_RangeProfiler_GetCounterDataInfo_Params info = {
        .structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
    info.pCounterDataImage = c->cdata;
    info.counterDataImageSize = c->cdata_size;
    CUPTI_CHECK(cuptiRangeProfilerGetCounterDataInfo(&info), return);
    size_t n = info.numTotalRanges;
    if (n > c->npend) {
        au_diag("warning", "%zu ranges for %zu launches: extra ranges ignored", n, c->npend);
        n = c->npend;
    }
    double values[AU_INJECT_MAX_METRICS];
    for (size_t r = 0; r < n; ++r) {
        CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {
            .structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
        ev.pHostObject = c->host;
        ev.pCounterDataImage = c->cdata;
        ev.counterDataImageSize = c->cdata_size;
        ev.rangeIndex = r;
        ev.ppMetricNames = au_g.metrics;
        ev.numMetrics = au_g.nmetrics;
        ev.pMetricValues = values;
        CUPTI_CHECK(cuptiProfilerHostEvaluateToGpuValues(&ev), continue);
        write_launch(c, &c->pend[r], values);
    }
    au_free_pending(c, n);
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params ini = {
        .structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    ini.pRangeProfilerObject = c->rp;
    ini.counterDataSize = c->cdata_size;
    ini.pCounterData = c->cdata;
    CUPTI_CHECK(cuptiRangeProfilerCounterDataImageInitialize(&ini), return);
}

/* Host object and config image for the metric list on this context's chip. */
static int range_setup(ctx_state *c)
{
    CUpti_Device_GetChipName_Params chip = {.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    chip.deviceIndex = (size_t)c->dev;
    CUPTI_CHECK(cuptiDeviceGetChipName(&chip), return -1);
    CUpti_Profiler_GetCounterAvailability_Params av = {
        .structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
    av.ctx = c->ctx;
    CUPTI_CHECK(cuptiProfilerGetCounterAvailability(&av), return -1);
    uint8_t *avail = malloc(av.counterAvailabilityImageSize);
    if (!avail)
        return -1;
    av.pCounterAvailabilityImage = avail;
    int rc = -1;
    CUPTI_CHECK(cuptiProfilerGetCounterAvailability(&av), goto out);
    CUpti_Profiler_Host_Initialize_Params hi = {.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    hi.pChipName = chip.pChipName;
    hi.pCounterAvailabilityImage = avail;
    CUPTI_CHECK(cuptiProfilerHostInitialize(&hi), goto out);
    c->host = hi.pHostObject;
    CUpti_Profiler_Host_ConfigAddMetrics_Params add = {
        .structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    add.pHostObject = c->host;
    add.ppMetricNames = au_g.metrics;
    add.numMetrics = au_g.nmetrics;
    CUPTI_CHECK(cuptiProfilerHostConfigAddMetrics(&add), goto out);
    CUpti_Profiler_Host_GetConfigImageSize_Params sz = {
        .structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
    sz.pHostObject = c->host;
    CUPTI_CHECK(cuptiProfilerHostGetConfigImageSize(&sz), goto out);
    c->config_size = sz.configImageSize;
    if (!(c->config = malloc(c->config_size)))
        goto out;
    CUpti_Profiler_Host_GetConfigImage_Params ci = {.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
    ci.pHostObject = c->host;
    ci.configImageSize = c->config_size;
    ci.pConfigImage = c->config;
    CUPTI_CHECK(cuptiProfilerHostGetConfigImage(&ci), goto out);
    CUpti_Profiler_Host_GetNumOfPasses_Params np = {.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
    np.configImageSize = c->config_size;
    np.pConfigImage = c->config;
    CUPTI_CHECK(cuptiProfilerHostGetNumOfPasses(&np), goto out);
    au_diag("info", "passes: %zu (chip %s, device %d %s)", np.numOfPasses, chip.pChipName, (int)c->dev,
            c->dev_name);
    rc = 0;
out:
    free(avail);
    return rc;
}

/* Enables the range profiler on c (auto range: one range per kernel; kernel replay). */
static int range_enable(ctx_state *c)
{
    CUpti_RangeProfiler_Enable_Params en = {.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    en.ctx = c->ctx;
    CUPTI_CHECK(cuptiRangeProfilerEnable(&en), return -1);
    c->rp = en.pRangeProfilerObject;
    c->enabled = 1;
    CUpti_RangeProfiler_GetCounterDataSize_Params cs = {
        .structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
    cs.pRangeProfilerObject = c->rp;
    cs.pMetricNames = au_g.metrics;
    cs.numMetrics = au_g.nmetrics;
    cs.maxNumOfRanges = au_g.max_ranges;
    cs.maxNumRangeTreeNodes = (uint32_t)au_g.max_ranges;
    CUPTI_CHECK(cuptiRangeProfilerGetCounterDataSize(&cs), return -1);
    c->cdata_size = cs.counterDataSize;
    free(c->cdata);
    if (!(c->cdata = malloc(c->cdata_size)))
        return -1;
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params ini = {
        .structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    ini.pRangeProfilerObject = c->rp;
    ini.counterDataSize = c->cdata_size;
    ini.pCounterData = c->cdata;
    CUPTI_CHECK(cuptiRangeProfilerCounterDataImageInitialize(&ini), return -1);
    CUpti_RangeProfiler_SetConfig_Params sc = {.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
    sc.pRangeProfilerObject = c->rp;
    sc.configSize = c->config_size;
    sc.pConfig = c->config;
    sc.counterDataImageSize = c->cdata_size;
    sc.pCounterDataImage = c->cdata;
    sc.range = CUPTI_AutoRange;
    sc.replayMode = CUPTI_KernelReplay;
    sc.maxRangesPerPass = au_g.max_ranges;
    sc.numNestingLevels = 1;
    sc.minNestingLevel = 1;
    sc.passIndex = 0;
    sc.targetNestingLevel = 1;
    CUPTI_CHECK(cuptiRangeProfilerSetConfig(&sc), return -1);
    CUpti_RangeProfiler_Start_Params st = {.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
    st.pRangeProfilerObject = c->rp;
    CUPTI_CHECK(cuptiRangeProfilerStart(&st), return -1);
    c->started = 1;
    return 0;
}

/* Stream capture and the range profiler do not mix (auto range synchronizes after each kernel,
 * which invalidates a capture): the profiler is stopped while a capture runs and started again
 * at the next launch that runs. */
static void range_pause(ctx_state *c)
{
    if (!c->rp || !c->started)
        return;
    range_flush(c);
    CUpti_RangeProfiler_Stop_Params sp = {.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    sp.pRangeProfilerObject = c->rp;
    CUPTI_CHECK(cuptiRangeProfilerStop(&sp), return);
    c->started = 0;
}

static int range_resume(ctx_state *c)
{
    if (!c->rp || c->started)
        return 0;
    CUpti_RangeProfiler_Start_Params st = {.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
    st.pRangeProfilerObject = c->rp;
    CUPTI_CHECK(cuptiRangeProfilerStart(&st), return -1);
    c->started = 1;
    return 0;
}

/* Flushes and disables c's range profiler (context switch, context destruction, exit). */
static void range_disable(ctx_state *c)
{
    if (!c->rp)
        return;
    range_flush(c);
    if (c->started) {
        CUpti_RangeProfiler_Stop_Params sp = {.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
        sp.pRangeProfilerObject = c->rp;
        CUPTI_CHECK(cuptiRangeProfilerStop(&sp), (void)0);
        c->started = 0;
    }
    CUpti_RangeProfiler_Disable_Params dp = {.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
    dp.pRangeProfilerObject = c->rp;
    CUPTI_CHECK(cuptiRangeProfilerDisable(&dp), (void)0);
    c->rp = NULL;
    c->enabled = 0;
}

const collector au_range_collector = {
    "counters", range_setup, range_enable, range_flush, range_pause, range_resume, range_disable,
};
