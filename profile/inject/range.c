/*
 * range.c - the range-profiler collector: every kernel launch is one range of the CUPTI Range
 * Profiler (auto range; kernel replay if the metric set needs several passes).  When a launch
 * returns, its range is decoded, evaluated with the Profiler Host API (GPU-wide rollups) and
 * appended to the counters file in Nsight Compute's long CSV format (docs/live-profiling.md).
 * Two counter sets (model/src/metrics.c), one pass each on GH100: the standard set, and for
 * launches with clusters the cluster set, which sees distributed-shared-memory atomics.  Each has
 * its own host object, config image and counter-data image; the profiler is stopped, configured
 * and started again when a launch needs the other set (docs/counters.md).
 */
#include "range.h"

#include "base.h"
#include "cubins.h"
#include "kernels.h"
#include "stats.h"

#include "chip_metrics.h"

#include <cupti_target.h> /* cuptiDeviceGetChipName */

#include "atomutil/model.h"
#include "atomutil/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The counter sets' metrics, the same for every context (each keeps those its chip has: pick_metrics),
 * made once at init; and the ranges a counter-data image holds. */
static struct {
    const char *metrics[AU_INJECT_NSETS][AU_INJECT_MAX_METRICS];
    size_t nmetrics[AU_INJECT_NSETS];
    /* per set, which metrics count atomics (shared or generic): all 0 in a launch = a quiet launch */
    unsigned char atomic_metric[AU_INJECT_NSETS][AU_INJECT_MAX_METRICS];
} sets;
static size_t max_ranges;

static const struct {
    unsigned bit;
    const char *name;
} set_info[AU_INJECT_NSETS] = {
    [AU_INJECT_SET_STD] = {AU_SET_STD, "standard"},
    [AU_INJECT_SET_CLUSTER] = {AU_SET_CLUSTER, "cluster"},
    [AU_INJECT_SET_GENERIC] = {AU_SET_GENERIC, "generic"},
    [AU_INJECT_SET_DSMEM] = {AU_SET_DSMEM, "dsmem"},
};

unsigned au_range_set_bit(int set)
{
    return set >= 0 && set < AU_INJECT_NSETS ? set_info[set].bit : AU_SET_STD;
}

const char *au_range_set_name(int set)
{
    return set >= 0 && set < AU_INJECT_NSETS ? set_info[set].name : "standard";
}

void au_range_init(void)
{
    const char *mr = au_cf_getenv(AU_ENV_MAX_RANGES);
    /* re-initializing the counter-data image after each launch costs in proportion to its ranges
     * (64: 1.1 ms a launch); with 2, two processes taking turns on one GPU lost launches (2 of 128
     * in 17 of 29 stress runs; none with 16): docs/performance.md, "Scale" */
    max_ranges = mr && atoi(mr) > 0 ? (size_t)atoi(mr) : 16;
    /* the model's counters and the kernel's duration; device name and SM count
     * come from the driver (write_launch) */
    size_t n;
    const au_metric_def *defs = au_metric_defs(&n);
    for (int set = 0; set < AU_INJECT_NSETS; ++set)
        for (size_t i = 0; i < n; ++i) {
            if (!(defs[i].sets & au_range_set_bit(set)))
                continue;
            /* descriptive metrics come from the driver (write_launch), the duration excepted */
            if (!au_metric_collected(&defs[i]))
                continue;
            if (sets.nmetrics[set] == AU_INJECT_MAX_METRICS) {
                au_diag(AU_CF_WARNING, "more metrics than AU_INJECT_MAX_METRICS: %s and later not collected",
                        defs[i].name);
                break;
            }
            unsigned ctr = defs[i].counter;
            sets.atomic_metric[set][sets.nmetrics[set]] = ctr == AU_C_JOBS || ctr == AU_C_CAS ||
                                                          ctr == AU_C_WAVEFRONTS || ctr == AU_C_WAVEFRONTS_MAX ||
                                                          ctr == AU_C_GENERIC || ctr == AU_C_DSHARED_SECT_ATOM;
            sets.metrics[set][sets.nmetrics[set]++] = defs[i].name;
        }
}

/* Kernel name quoted for CSV ("" doubled) into buf. */
static void csv_quote(const char *s, char *buf, size_t size)
{
    size_t k = 0;
    for (; s && *s && k + 2 < size; ++s) {
        if (*s == '"')
            buf[k++] = '"';
        buf[k++] = *s;
    }
    buf[k] = '\0';
}

/* The rows of one measured launch, in the column order of AU_NCU_CSV_HEADER.  Kernel names of
 * any length are written whole (CUB's run past 1,500 characters): the report finds a kernel's
 * code by its full name. */
static void write_launch(const ctx_state *c, const pending_launch *l, const double *values)
{
    const char *const *metrics = c->range.metrics[l->set];
    size_t nm = c->range.nmetrics[l->set];
    size_t klen = strlen(l->kernel), qsize = 2 * klen + 1, psize = qsize + 512;
    size_t cap = 4096 + (nm + 4) * psize, used = 0;
    size_t passes = au_range_passes(c, l->set);
    char *buf = malloc(cap), *kq = malloc(qsize), *prefix = malloc(psize);
    if (!buf || !kq || !prefix) {
        free(buf);
        free(kq);
        free(prefix);
        return;
    }
    csv_quote(l->kernel, kq, qsize);
    snprintf(prefix, psize,
             "\"%lld\",\"%ld\",\"%s\",\"localhost\",\"%s\",\"%u\",\"%u\",\"(%u, %u, %u)\","
             "\"(%u, %u, %u)\",\"%d\",\"%d.%d\",\"atomutil\",",
             l->id, au_pid(), au_proc_name(), kq, c->ctx_id, l->stream_id, l->block[0], l->block[1], l->block[2],
             l->grid[0], l->grid[1], l->grid[2], (int)c->dev, c->cc_major, c->cc_minor);
    for (size_t i = 0; i < nm + 4; ++i) {
        char *row = buf + used;
        size_t room = cap - used;
        int n;
        if (i < nm && !isfinite(values[i]))
            continue; /* not evaluated: the counter is missing from this launch's record */
        if (i == nm + 3 && passes <= 1)
            continue; /* one pass: no replay to tell */
        if (i < nm)
            n = snprintf(row, room, "%s\"%s\",\"\",\"%.17g\"\n", prefix, metrics[i], values[i]);
        else if (i == nm)
            n = snprintf(row, room, "%s\"%s\",\"\",\"%s\"\n", prefix, AU_METRIC_DEVICE_NAME, c->dev_name);
        else if (i == nm + 1)
            n = snprintf(row, room, "%s\"%s\",\"\",\"%d\"\n", prefix, AU_METRIC_SM_COUNT, c->sm_count);
        else if (i == nm + 2)
            n = snprintf(row, room, "%s\"%s\",\"\",\"%u\"\n", prefix, AU_METRIC_CLUSTER_SIZE, l->cluster);
        else
            n = snprintf(row, room, "%s\"%s\",\"pass\",\"%zu\"\n", prefix, AU_METRIC_PASSES, passes);
        if (n < 0 || (size_t)n >= room)
            break; /* cap holds every row: not reached */
        used += (size_t)n;
    }
    au_write_all(buf, used);
    au_stats_count(AU_N_MEASURED);
    free(buf);
    free(kq);
    free(prefix);
}

size_t au_range_passes(const ctx_state *c, int set)
{
    return set >= 0 && set < AU_INJECT_NSETS && c->range.config[set] ? c->range.passes[set] : 1;
}

int au_range_current_set(const ctx_state *c)
{
    return c->range.cur;
}

/* Decodes what the profiler holds, writes one record per finished range (matched in order to the
 * pending launches, all of the set configured now) and resets the counter-data image. */
void au_range_flush(ctx_state *c)
{
    if (!c->range.rp || c->npend == 0 || c->range.cur < 0)
        return;
    double t0 = au_now();
    int set = c->range.cur;
    CUpti_RangeProfiler_DecodeData_Params dec = {.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    dec.pRangeProfilerObject = c->range.rp;
    CUPTI_CHECK(cuptiRangeProfilerDecodeData(&dec), return );
    double t1 = au_now();
    au_stats_add(AU_T_DECODE, t1 - t0);
    if (dec.numOfRangeDropped)
        au_diag(AU_CF_WARNING, "%zu launches were dropped by the range profiler", dec.numOfRangeDropped);
    CUpti_RangeProfiler_GetCounterDataInfo_Params info = {
        .structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
    info.pCounterDataImage = c->range.cdata[set];
    info.counterDataImageSize = c->range.cdata_size[set];
    CUPTI_CHECK(cuptiRangeProfilerGetCounterDataInfo(&info), return );
    size_t n = info.numTotalRanges;
    if (n > c->npend) {
        au_diag(AU_CF_WARNING, "%zu ranges for %zu launches: extra ranges ignored", n, c->npend);
        n = c->npend;
    }
    double values[AU_INJECT_MAX_METRICS], t_code = 0;
    for (size_t r = 0; r < n; ++r) {
        CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {
            .structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
        ev.pHostObject = c->range.host[set];
        ev.pCounterDataImage = c->range.cdata[set];
        ev.counterDataImageSize = c->range.cdata_size[set];
        ev.rangeIndex = r;
        ev.ppMetricNames = c->range.metrics[set];
        ev.numMetrics = c->range.nmetrics[set];
        ev.pMetricValues = values;
        double t2 = au_now();
        CUPTI_CHECK(cuptiProfilerHostEvaluateToGpuValues(&ev), continue);
        double t3 = au_now();
        au_stats_add(AU_T_EVAL, t3 - t2);
        c->pend[r].set = set;
        write_launch(c, &c->pend[r], values);
        au_stats_add(AU_T_WRITE, au_now() - t3);
        /* quiet: every atomic counter of the set read 0 (on_launch_enter's use of it) */
        int quiet = 1;
        for (size_t i = 0; i < c->range.nmetrics[set]; ++i)
            if (c->range.atomic_metric[set][i] && !(isfinite(values[i]) && values[i] == 0))
                quiet = 0;
        au_kernel_info *k = au_kernel_seen(c->pend[r].func, quiet);
        /* only a kernel that ran atomics needs its code (the report lists no other): keeping the
         * rest cost a training loop's 33 kernels 0.1 s (docs/performance.md, "Scale") */
        if (!quiet && k && k->mangled) {
            double tc = au_now();
            au_cubin_note_launch(k->mangled);
            t_code += au_now() - tc;
        }
    }
    au_free_pending(c, n);
    double t4 = au_now();
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params ini = {
        .structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    ini.pRangeProfilerObject = c->range.rp;
    ini.counterDataSize = c->range.cdata_size[set];
    ini.pCounterData = c->range.cdata[set];
    CUPTI_CHECK(cuptiRangeProfilerCounterDataImageInitialize(&ini), (void)0);
    au_stats_add(AU_T_REINIT, au_now() - t4);
    au_stats_add(AU_T_FLUSH, au_now() - t0 - t_code);
    au_stats_add(AU_T_CODE, t_code);
}

/* drop_missing's state: a required metric missing makes the set unusable. */
typedef struct {
    const ctx_state *c;
    int set, required_missing;
} drop_state;

/* au_chip_usable's missing(): says what the chip's lack of the metric costs. */
static void metric_missing(const char *name, void *ud)
{
    drop_state *d = ud;
    size_t n;
    const au_metric_def *defs = au_metric_defs(&n), *def = NULL;
    for (size_t i = 0; i < n && !def; ++i)
        if (strcmp(defs[i].name, name) == 0)
            def = &defs[i];
    const char *meaning = def ? def->meaning : "not one of the model's counters";
    if (def && def->required) {
        d->required_missing = 1;
        au_error(AU_CF_E_UNSUPPORTED,
                 "chip %s (device %d %s) lacks the counter %s, which the model needs (%s): its "
                 "launches are not measured",
                 d->c->range.chip, (int)d->c->dev, d->c->dev_name, name, meaning);
    } else {
        au_diag(AU_CF_WARNING,
                "chip %s (device %d %s) lacks the counter %s: the %s set is collected without it, and the report "
                "lacks what it gives (%s)",
                d->c->range.chip, (int)d->c->dev, d->c->dev_name, name, au_range_set_name(d->set), meaning);
    }
}

/* The set's metrics for c: all of au_range_init's (all = 1), or those the chip has (each tried alone,
 * chip_metrics.c); -1 when a required one is missing. */
static int pick_metrics(ctx_state *c, int set, const uint8_t *avail, int all)
{
    const char *kept[AU_INJECT_MAX_METRICS];
    size_t n = sets.nmetrics[set];
    drop_state d = {c, set, 0};
    if (!all)
        n = au_chip_usable(c->range.chip, avail, sets.metrics[set], sets.nmetrics[set], kept, metric_missing, &d);
    else
        memcpy(kept, sets.metrics[set], n * sizeof *kept);
    if (d.required_missing || n == 0)
        return -1;
    c->range.nmetrics[set] = 0;
    for (size_t i = 0, j = 0; i < sets.nmetrics[set] && j < n; ++i)
        if (sets.metrics[set][i] == kept[j]) {
            c->range.metrics[set][c->range.nmetrics[set]] = kept[j++];
            c->range.atomic_metric[set][c->range.nmetrics[set]++] = sets.atomic_metric[set][i];
        }
    return 0;
}

/* Forgets set `set`'s host object and config image (made again at its next use). */
static void drop_set(ctx_state *c, int set)
{
    if (c->range.host[set]) {
        CUpti_Profiler_Host_Deinitialize_Params dh = {.structSize =
                                                          CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
        dh.pHostObject = c->range.host[set];
        cuptiProfilerHostDeinitialize(&dh);
        c->range.host[set] = NULL;
    }
    free(c->range.config[set]);
    c->range.config[set] = NULL;
}

/* Host object and config image of counter set `set` on this context's chip.  A chip that lacks
 * an optional metric gets the set without it (said once, with what it costs); one that lacks a
 * required metric is not measured, with an error naming chip and counter. */
static int setup_set(ctx_state *c, int set, const char *chip, uint8_t *avail)
{
    CUpti_Profiler_Host_Initialize_Params hi = {.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    hi.pChipName = chip;
    hi.pCounterAvailabilityImage = avail;
    CUPTI_CHECK(cuptiProfilerHostInitialize(&hi), return -1);
    c->range.host[set] = hi.pHostObject;
    CUpti_Profiler_Host_ConfigAddMetrics_Params add = {.structSize =
                                                           CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    add.pHostObject = c->range.host[set];
    if (pick_metrics(c, set, avail, 1) != 0)
        return -1;
    add.ppMetricNames = c->range.metrics[set];
    add.numMetrics = c->range.nmetrics[set];
    if (cuptiProfilerHostConfigAddMetrics(&add) != CUPTI_SUCCESS) {
        /* a metric this chip lacks: a new host object with the set less the missing ones */
        drop_set(c, set);
        if (pick_metrics(c, set, avail, 0) != 0)
            return -1;
        CUPTI_CHECK(cuptiProfilerHostInitialize(&hi), return -1);
        c->range.host[set] = add.pHostObject = hi.pHostObject;
        add.ppMetricNames = c->range.metrics[set];
        add.numMetrics = c->range.nmetrics[set];
        CUPTI_CHECK(cuptiProfilerHostConfigAddMetrics(&add), return -1);
    }
    if (au_chip_config_image(c->range.host[set], &c->range.config[set], &c->range.config_size[set],
                             &c->range.passes[set]) != 0) {
        au_error(AU_CF_E_CUPTI, "the %s set's config image could not be made (chip %s)", au_range_set_name(set), chip);
        return -1;
    }
    au_diag(AU_CF_INFO, "passes: %zu, %s set (chip %s, device %d %s)", c->range.passes[set], au_range_set_name(set),
            chip, (int)c->dev, c->dev_name);
    return 0;
}

/* Host object and config image of set `set`, made at its first use (the cluster set's costs
 * about as much as the standard set's and most programs never launch a cluster).  quiet: a
 * counter-availability query that fails is not reported (the early set-up's, which another
 * process's collection makes fail: it is made again at the first enable). */
static int ensure_set(ctx_state *c, int set, int quiet)
{
    if (c->range.host[set] && c->range.config[set])
        return 0;
    if (c->range.set_failed[set])
        return -1;    /* said at the first attempt */
    drop_set(c, set); /* what a failed attempt left */
    CUpti_Profiler_GetCounterAvailability_Params av = {.structSize =
                                                           CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
    av.ctx = c->ctx;
    CUptiResult r = cuptiProfilerGetCounterAvailability(&av);
    uint8_t *avail = r == CUPTI_SUCCESS ? malloc(av.counterAvailabilityImageSize) : NULL;
    if (avail) {
        av.pCounterAvailabilityImage = avail;
        r = cuptiProfilerGetCounterAvailability(&av);
    }
    int rc = -1;
    if (r != CUPTI_SUCCESS) {
        if (!quiet)
            au_report_cupti("cuptiProfilerGetCounterAvailability", r);
    } else if (avail) {
        rc = setup_set(c, set, c->range.chip, avail);
        c->range.set_failed[set] = rc != 0; /* the chip's answer: the same at every attempt */
    }
    free(avail);
    if (rc != 0)
        drop_set(c, set);
    return rc;
}

/* The chip name at a context's first launch.  The sets' host objects and config images are made
 * at their first enable (ensure_set), once the GPU's lock is held: reading the counter
 * availability fails with CUPTI_ERROR_HARDWARE_BUSY while another process collects (share.c). */
int au_range_setup(ctx_state *c)
{
    c->range.cur = -1;
    CUpti_Device_GetChipName_Params chip = {.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    chip.deviceIndex = (size_t)c->dev;
    CUPTI_CHECK(cuptiDeviceGetChipName(&chip), return -1);
    snprintf(c->range.chip, sizeof c->range.chip, "%s", chip.pChipName);
    return 0;
}

/* Configures set `set` on c's (stopped) profiler: its counter-data image, then the config; auto
 * range (one range per kernel, kernel replay) or user range (one range that the caller pushes and
 * pops, user replay: one pass needs no replay). */
static int configure(ctx_state *c, int set, int user_range)
{
    if (!c->range.cdata[set]) {
        CUpti_RangeProfiler_GetCounterDataSize_Params cs = {
            .structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
        cs.pRangeProfilerObject = c->range.rp;
        cs.pMetricNames = c->range.metrics[set];
        cs.numMetrics = c->range.nmetrics[set];
        cs.maxNumOfRanges = max_ranges;
        cs.maxNumRangeTreeNodes = (uint32_t)max_ranges;
        CUPTI_CHECK(cuptiRangeProfilerGetCounterDataSize(&cs), return -1);
        c->range.cdata_size[set] = cs.counterDataSize;
        if (!(c->range.cdata[set] = malloc(c->range.cdata_size[set])))
            return -1;
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params ini = {
            .structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
        ini.pRangeProfilerObject = c->range.rp;
        ini.counterDataSize = c->range.cdata_size[set];
        ini.pCounterData = c->range.cdata[set];
        CUPTI_CHECK(cuptiRangeProfilerCounterDataImageInitialize(&ini), return -1);
    }
    CUpti_RangeProfiler_SetConfig_Params sc = {.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
    sc.pRangeProfilerObject = c->range.rp;
    sc.configSize = c->range.config_size[set];
    sc.pConfig = c->range.config[set];
    sc.counterDataImageSize = c->range.cdata_size[set];
    sc.pCounterDataImage = c->range.cdata[set];
    sc.range = user_range ? CUPTI_UserRange : CUPTI_AutoRange;
    sc.replayMode = user_range ? CUPTI_UserReplay : CUPTI_KernelReplay;
    sc.maxRangesPerPass = max_ranges;
    sc.numNestingLevels = 1;
    sc.minNestingLevel = 1;
    sc.passIndex = 0;
    sc.targetNestingLevel = 1;
    CUPTI_CHECK(cuptiRangeProfilerSetConfig(&sc), return -1);
    c->range.cur = set;
    return 0;
}

/* Enables the range profiler on c (auto or user range) with counter set `set`; the dsmem set
 * falls back to the cluster set on a chip that cannot configure it (said once, ensure_set). */
static int enable_set(ctx_state *c, int set, int user_range)
{
    double t0 = au_now();
    if (set == AU_INJECT_SET_DSMEM && ensure_set(c, set, 0) != 0 && c->range.set_failed[set])
        set = AU_INJECT_SET_CLUSTER;
    if (ensure_set(c, set, 0) != 0)
        return -1;
    double t1 = au_now();
    au_stats_add(AU_T_SETS, t1 - t0);
    CUpti_RangeProfiler_Enable_Params en = {.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    en.ctx = c->ctx;
    CUPTI_CHECK(cuptiRangeProfilerEnable(&en), return -1);
    c->range.rp = en.pRangeProfilerObject;
    c->enabled = 1;
    au_stats_count(AU_N_ENABLES);
    double t2 = au_now();
    au_stats_add(AU_T_ENABLE, t2 - t1);
    if (configure(c, set, user_range) != 0)
        return -1;
    double t3 = au_now();
    au_stats_add(AU_T_CONFIG, t3 - t2);
    CUpti_RangeProfiler_Start_Params st = {.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
    st.pRangeProfilerObject = c->range.rp;
    CUPTI_CHECK(cuptiRangeProfilerStart(&st), return -1);
    c->range.started = 1;
    au_stats_add(AU_T_START, au_now() - t3);
    return 0;
}

int au_range_enable(ctx_state *c, int set)
{
    return enable_set(c, set, 0);
}

/* The early set-up's first step: the standard set's configuration (setup.c). */
int au_range_prepare(ctx_state *c)
{
    return ensure_set(c, AU_INJECT_SET_STD, 1);
}

/* The next launch needs set `set`: the profiler is disabled (flushing what it holds) and enabled
 * again with that set.  A second SetConfig on a stopped profiler kept collecting the first
 * config's counters (CUDA 13.0, driver 580: the other set's metrics evaluated to NaN). */
int au_range_use_set(ctx_state *c, int set)
{
    if (set == AU_INJECT_SET_DSMEM && c->range.set_failed[set])
        set = AU_INJECT_SET_CLUSTER; /* as enable_set falls back */
    if (!c->range.rp || c->range.cur == set)
        return 0;
    double t0 = au_now();
    au_range_disable(c);
    int rc = enable_set(c, set, 0);
    au_stats_add(AU_T_SWITCH, au_now() - t0);
    au_stats_count(AU_N_SET_SWITCHES);
    return rc;
}

/* Stream capture and the range profiler do not mix (auto range synchronizes after each kernel,
 * which invalidates a capture): the profiler is stopped while a capture runs and started again
 * at the next launch that runs. */
void au_range_pause(ctx_state *c)
{
    if (!c->range.rp || !c->range.started)
        return;
    au_range_flush(c);
    CUpti_RangeProfiler_Stop_Params sp = {.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    sp.pRangeProfilerObject = c->range.rp;
    CUPTI_CHECK(cuptiRangeProfilerStop(&sp), return );
    c->range.started = 0;
}

int au_range_resume(ctx_state *c)
{
    if (!c->range.rp || c->range.started)
        return 0;
    CUpti_RangeProfiler_Start_Params st = {.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
    st.pRangeProfilerObject = c->range.rp;
    CUPTI_CHECK(cuptiRangeProfilerStart(&st), return -1);
    c->range.started = 1;
    return 0;
}

/* Flushes and disables c's range profiler (context switch, context destruction, exit). */
void au_range_disable(ctx_state *c)
{
    if (!c->range.rp)
        return;
    au_range_flush(c);
    if (c->range.started) {
        CUpti_RangeProfiler_Stop_Params sp = {.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
        sp.pRangeProfilerObject = c->range.rp;
        CUPTI_CHECK(cuptiRangeProfilerStop(&sp), (void)0);
        c->range.started = 0;
    }
    CUpti_RangeProfiler_Disable_Params dp = {.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
    dp.pRangeProfilerObject = c->range.rp;
    double t0 = au_now();
    CUPTI_CHECK(cuptiRangeProfilerDisable(&dp), (void)0);
    au_stats_add(AU_T_DISABLE, au_now() - t0);
    au_stats_count(AU_N_DISABLES);
    c->range.rp = NULL;
    c->enabled = 0;
    c->range.cur = -1;
    for (int set = 0; set < AU_INJECT_NSETS; ++set) {
        free(c->range.cdata[set]);
        c->range.cdata[set] = NULL;
    }
}

/* A graph launch as one user range of the standard set: the auto-range profiler does not see a
 * graph's kernel nodes and disturbed their execution (CUDA 13.0, docs/performance.md).  Whatever
 * the profiler holds is written first; after the graph the profiler is disabled, and the next
 * kernel launch enables auto range again. */
int au_range_graph_begin(ctx_state *c)
{
    au_range_disable(c);
    if (enable_set(c, AU_INJECT_SET_STD, 1) != 0) {
        au_range_disable(c);
        return -1;
    }
    CUpti_RangeProfiler_PushRange_Params pr = {.structSize = CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE};
    pr.pRangeProfilerObject = c->range.rp;
    pr.pRangeName = "graph";
    CUPTI_CHECK(cuptiRangeProfilerPushRange(&pr), au_range_disable(c); return -1);
    c->in_graph = 1;
    return 0;
}

void au_range_graph_end(ctx_state *c, pending_launch *l, CUstream stream)
{
    if (!c->in_graph || !c->range.rp)
        return;
    c->in_graph = 0;
    CUpti_RangeProfiler_PopRange_Params pp = {.structSize = CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE};
    pp.pRangeProfilerObject = c->range.rp;
    CUPTI_CHECK(cuptiRangeProfilerPopRange(&pp), au_range_disable(c); return );
    /* the graph has run when its stream is idle */
    cuStreamSynchronize(stream);
    CUpti_RangeProfiler_Stop_Params sp = {.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    sp.pRangeProfilerObject = c->range.rp;
    CUPTI_CHECK(cuptiRangeProfilerStop(&sp), au_range_disable(c); return );
    c->range.started = 0;
    if (au_grow(&c->pend, &c->cap, c->npend, sizeof *c->pend, 16) == 0) {
        c->pend[c->npend++] = *l;
        l->kernel = NULL; /* the pending entry owns it now */
        au_range_flush(c);
    }
    au_range_disable(c);
}
