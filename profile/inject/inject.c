/*
 * inject.c - atomutil's CUPTI injection library (libatomutil_inject.so).
 *
 * atomutil-profile sets CUDA_INJECTION64_PATH to this library; the CUDA driver loads it into the
 * unmodified target at cuInit and calls InitializeInjection, its only exported symbol.  Every
 * kernel launch becomes one range of the CUPTI Range Profiler (auto range, kernel replay when the
 * metric set needs several passes); right after the launch returns the range is decoded,
 * evaluated with the Profiler Host API and appended to the counters file in Nsight Compute's
 * long CSV format, so that a crash or kill of the target loses at most the launch in flight.
 * Nothing here calls exit() or prints into the target's output: problems become '==ATOMUTIL=='
 * lines in the counters file, which atomutil-profile relays.
 *
 * Environment (set by atomutil-profile; docs/live-profiling.md):
 *   ATOMUTIL_COUNTERS_FILE  the counters file to append to (default atomutil-<pid>.counters.csv)
 *   ATOMUTIL_MAX_RANGES     ranges per counter-data image before a forced decode (default 64)
 */
#include "atomutil/model.h"
#include "ncu_import.h"

#include <cuda.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

/* C++ demangler of the C++ runtime (libstdc++), so that kernel names read as ncu prints them. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* ------------------------------------------------------------------ state */

typedef struct pending_launch {
    long long id;
    char *kernel;
    unsigned grid[3], block[3];
    uint32_t stream_id;
} pending_launch;

typedef struct ctx_state {
    CUcontext ctx;
    uint32_t ctx_id;
    CUdevice dev;
    char dev_name[256];
    int cc_major, cc_minor, sm_count;
    int failed; /* profiling could not be set up for this context: launches are not measured */
    CUpti_Profiler_Host_Object *host;
    CUpti_RangeProfiler_Object *rp;
    int started; /* rp is between Start and Stop (stopped while a stream is being captured) */
    uint8_t *config, *cdata;
    size_t config_size, cdata_size;
    pending_launch *pend;
    size_t npend, cap;
    struct ctx_state *next;
} ctx_state;

static struct {
    pthread_mutex_t lock;
    int initialized;
    CUpti_SubscriberHandle sub;
    int fd; /* counters file, O_APPEND */
    long long next_id;
    long pid;
    char proc_name[64];
    const char *metrics[8];
    size_t nmetrics;
    size_t max_ranges;
    ctx_state *contexts;
    ctx_state *active; /* the one context whose range profiler is enabled */
    int profiler_initialized;
    int captures;              /* stream captures in progress in this process */
    long long graph_skipped;   /* graph launches, not measured */
    long long capture_skipped; /* launches that ran while another stream was being captured */
} g = {.lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1};

/* ------------------------------------------------------------------ output */

/* Writes all of buf with one write() where possible: O_APPEND keeps concurrent writers (several
 * processes of one target) from interleaving within a call. */
static void write_all(const char *buf, size_t len)
{
    while (len > 0 && g.fd >= 0) {
        ssize_t n = write(g.fd, buf, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return;
        }
        buf += n;
        len -= (size_t)n;
    }
}

/* A diagnostic line for atomutil-profile: "==ATOMUTIL== <pid> error|warning: text". */
static void diag(const char *level, const char *fmt, ...)
{
    char msg[768], line[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    for (char *p = msg; *p; ++p)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    int n = snprintf(line, sizeof line, "==ATOMUTIL== %ld %s: %s\n", g.pid, level, msg);
    if (n > 0)
        write_all(line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

static const char *cupti_err(CUptiResult r)
{
    const char *s = NULL;
    if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s)
        return "unknown CUPTI error";
    return s;
}

/* One check per CUPTI call: on failure, a diagnostic naming the call, then `action`. */
#define CUPTI_CHECK(call, action)                                                                  \
    do {                                                                                           \
        CUptiResult r_ = (call);                                                                   \
        if (r_ != CUPTI_SUCCESS) {                                                                 \
            report_cupti(#call, r_);                                                               \
            action;                                                                                \
        }                                                                                          \
    } while (0)

static void report_cupti(const char *call, CUptiResult r)
{
    const char *name = call;
    const char *paren = strchr(call, '(');
    char fn[96];
    if (paren && (size_t)(paren - call) < sizeof fn) {
        memcpy(fn, call, (size_t)(paren - call));
        fn[paren - call] = '\0';
        name = fn;
    }
    switch (r) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
        diag("error", "permission: %s: %s", name, cupti_err(r));
        break;
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
        diag("error", "subscriber: %s: %s", name, cupti_err(r));
        break;
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_SUPPORTED:
        diag("error", "unsupported: %s: %s", name, cupti_err(r));
        break;
    default:
        diag("error", "cupti: %s: %s", name, cupti_err(r));
    }
}

/* The rows of one measured launch, in the column order of AU_NCU_CSV_HEADER. */
static void write_launch(const ctx_state *c, const pending_launch *l, const double *values)
{
    size_t cap = 4096, used = 0;
    char *buf = malloc(cap);
    if (!buf)
        return;
    /* kernel names can hold quotes in principle: double them, CSV style */
    char kq[1024];
    size_t k = 0;
    for (const char *p = l->kernel; *p && k + 2 < sizeof kq; ++p) {
        if (*p == '"')
            kq[k++] = '"';
        kq[k++] = *p;
    }
    kq[k] = '\0';
    char prefix[1600];
    snprintf(prefix, sizeof prefix,
             "\"%lld\",\"%ld\",\"%s\",\"localhost\",\"%s\",\"%u\",\"%u\",\"(%u, %u, %u)\","
             "\"(%u, %u, %u)\",\"%d\",\"%d.%d\",\"atomutil\",",
             l->id, g.pid, g.proc_name, kq, c->ctx_id, l->stream_id, l->block[0], l->block[1],
             l->block[2], l->grid[0], l->grid[1], l->grid[2], (int)c->dev, c->cc_major, c->cc_minor);
    for (size_t i = 0; i < g.nmetrics + 2; ++i) {
        char row[2048];
        int n;
        if (i < g.nmetrics)
            n = snprintf(row, sizeof row, "%s\"%s\",\"\",\"%.17g\"\n", prefix, g.metrics[i], values[i]);
        else if (i == g.nmetrics)
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
    write_all(buf, used);
    free(buf);
}

/* ------------------------------------------------------------------ range profiler */

static void free_pending(ctx_state *c, size_t first_n)
{
    for (size_t i = 0; i < first_n && i < c->npend; ++i)
        free(c->pend[i].kernel);
    if (first_n >= c->npend) {
        c->npend = 0;
        return;
    }
    memmove(c->pend, c->pend + first_n, (c->npend - first_n) * sizeof *c->pend);
    c->npend -= first_n;
}

/* Decodes what the profiler holds, writes one record per finished range (matched in order to the
 * pending launches) and resets the counter-data image. */
static void flush_ranges(ctx_state *c)
{
    if (!c->rp || c->npend == 0)
        return;
    CUpti_RangeProfiler_DecodeData_Params dec = {.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    dec.pRangeProfilerObject = c->rp;
    CUPTI_CHECK(cuptiRangeProfilerDecodeData(&dec), return);
    if (dec.numOfRangeDropped)
        diag("warning", "%zu launches were dropped by the range profiler", dec.numOfRangeDropped);
    CUpti_RangeProfiler_GetCounterDataInfo_Params info = {.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
    info.pCounterDataImage = c->cdata;
    info.counterDataImageSize = c->cdata_size;
    CUPTI_CHECK(cuptiRangeProfilerGetCounterDataInfo(&info), return);
    size_t n = info.numTotalRanges;
    if (n > c->npend) {
        diag("warning", "%zu ranges for %zu launches: extra ranges ignored", n, c->npend);
        n = c->npend;
    }
    double values[8];
    for (size_t r = 0; r < n; ++r) {
        CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {.structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
        ev.pHostObject = c->host;
        ev.pCounterDataImage = c->cdata;
        ev.counterDataImageSize = c->cdata_size;
        ev.rangeIndex = r;
        ev.ppMetricNames = g.metrics;
        ev.numMetrics = g.nmetrics;
        ev.pMetricValues = values;
        CUPTI_CHECK(cuptiProfilerHostEvaluateToGpuValues(&ev), continue);
        write_launch(c, &c->pend[r], values);
    }
    free_pending(c, n);
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params ini = {.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    ini.pRangeProfilerObject = c->rp;
    ini.counterDataSize = c->cdata_size;
    ini.pCounterData = c->cdata;
    CUPTI_CHECK(cuptiRangeProfilerCounterDataImageInitialize(&ini), return);
}

/* Host object and config image for the metric list on this context's chip. */
static int setup_host(ctx_state *c)
{
    CUpti_Device_GetChipName_Params chip = {.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    chip.deviceIndex = (size_t)c->dev;
    CUPTI_CHECK(cuptiDeviceGetChipName(&chip), return -1);
    CUpti_Profiler_GetCounterAvailability_Params av = {.structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
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
    CUpti_Profiler_Host_ConfigAddMetrics_Params add = {.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    add.pHostObject = c->host;
    add.ppMetricNames = g.metrics;
    add.numMetrics = g.nmetrics;
    CUPTI_CHECK(cuptiProfilerHostConfigAddMetrics(&add), goto out);
    CUpti_Profiler_Host_GetConfigImageSize_Params sz = {.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
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
    diag("info", "passes: %zu (chip %s, device %d %s)", np.numOfPasses, chip.pChipName, (int)c->dev,
         c->dev_name);
    rc = 0;
out:
    free(avail);
    return rc;
}

/* Enables the range profiler on c (auto range: one range per kernel; kernel replay). */
static int enable_profiler(ctx_state *c)
{
    CUpti_RangeProfiler_Enable_Params en = {.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    en.ctx = c->ctx;
    CUPTI_CHECK(cuptiRangeProfilerEnable(&en), return -1);
    c->rp = en.pRangeProfilerObject;
    CUpti_RangeProfiler_GetCounterDataSize_Params cs = {.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
    cs.pRangeProfilerObject = c->rp;
    cs.pMetricNames = g.metrics;
    cs.numMetrics = g.nmetrics;
    cs.maxNumOfRanges = g.max_ranges;
    cs.maxNumRangeTreeNodes = (uint32_t)g.max_ranges;
    CUPTI_CHECK(cuptiRangeProfilerGetCounterDataSize(&cs), return -1);
    c->cdata_size = cs.counterDataSize;
    free(c->cdata);
    if (!(c->cdata = malloc(c->cdata_size)))
        return -1;
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params ini = {.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
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
    sc.maxRangesPerPass = g.max_ranges;
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
 * which invalidates a capture): the profiler is stopped while a launch is captured and started
 * again at the next launch that runs. */
static void pause_profiler(ctx_state *c)
{
    if (!c->rp || !c->started)
        return;
    flush_ranges(c);
    CUpti_RangeProfiler_Stop_Params sp = {.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    sp.pRangeProfilerObject = c->rp;
    CUPTI_CHECK(cuptiRangeProfilerStop(&sp), return);
    c->started = 0;
}

static int resume_profiler(ctx_state *c)
{
    if (!c->rp || c->started)
        return 0;
    CUpti_RangeProfiler_Start_Params st = {.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
    st.pRangeProfilerObject = c->rp;
    CUPTI_CHECK(cuptiRangeProfilerStart(&st), return -1);
    c->started = 1;
    return 0;
}

static int stream_capturing(CUstream s)
{
    CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
    return cuStreamIsCapturing(s, &st) == CUDA_SUCCESS && st != CU_STREAM_CAPTURE_STATUS_NONE;
}

/* Flushes and disables c's range profiler (context switch, context destruction, exit). */
static void disable_profiler(ctx_state *c)
{
    if (!c->rp)
        return;
    flush_ranges(c);
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
    if (c->npend)
        diag("warning", "%zu launches on device %d were not measured", c->npend, (int)c->dev);
    free_pending(c, c->npend);
    if (g.active == c)
        g.active = NULL;
}

static ctx_state *find_ctx(CUcontext ctx)
{
    for (ctx_state *c = g.contexts; c; c = c->next)
        if (c->ctx == ctx)
            return c;
    return NULL;
}

static ctx_state *get_ctx(CUcontext ctx)
{
    ctx_state *c = find_ctx(ctx);
    if (c)
        return c;
    if (!g.profiler_initialized) {
        /* not in InitializeInjection: the driver is not ready there (CUPTI_ERROR_UNKNOWN) */
        CUpti_Profiler_Initialize_Params pi = {.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
        CUPTI_CHECK(cuptiProfilerInitialize(&pi), return NULL);
        g.profiler_initialized = 1;
    }
    if (!(c = calloc(1, sizeof *c)))
        return NULL;
    c->ctx = ctx;
    c->next = g.contexts;
    g.contexts = c;
    cuptiGetContextId(ctx, &c->ctx_id);
    if (cuCtxPushCurrent(ctx) == CUDA_SUCCESS) {
        cuCtxGetDevice(&c->dev);
        CUcontext dummy;
        cuCtxPopCurrent(&dummy);
    }
    cuDeviceGetName(c->dev_name, sizeof c->dev_name, c->dev);
    cuDeviceGetAttribute(&c->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, c->dev);
    cuDeviceGetAttribute(&c->cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, c->dev);
    cuDeviceGetAttribute(&c->sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, c->dev);

    CUpti_Profiler_DeviceSupported_Params ds = {.structSize = CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE};
    ds.cuDevice = c->dev;
    ds.api = CUPTI_PROFILER_RANGE_PROFILING;
    if (cuptiProfilerDeviceSupported(&ds) == CUPTI_SUCCESS &&
        ds.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
        const char *why = ds.architecture != CUPTI_PROFILER_CONFIGURATION_SUPPORTED ? "architecture (needs compute capability 7.0 or newer)"
                          : ds.vGpu != CUPTI_PROFILER_CONFIGURATION_SUPPORTED ? "virtualized GPU (vGPU) without profiling enabled"
                          : ds.confidentialCompute != CUPTI_PROFILER_CONFIGURATION_SUPPORTED ? "confidential computing mode"
                          : ds.cmp != CUPTI_PROFILER_CONFIGURATION_SUPPORTED ? "crypto-mining processor"
                          : ds.wsl != CUPTI_PROFILER_CONFIGURATION_SUPPORTED ? "WSL"
                          : ds.sli != CUPTI_PROFILER_CONFIGURATION_SUPPORTED ? "SLI"
                                                                              : "configuration";
        diag("error", "unsupported: device %d (%s) cannot be profiled: %s", (int)c->dev, c->dev_name, why);
        c->failed = 1;
        return c;
    }
    if (setup_host(c) != 0)
        c->failed = 1;
    return c;
}

/* ------------------------------------------------------------------ callbacks */

static char *demangle(const char *name)
{
    if (!name)
        return strdup("<unknown kernel>");
    int status = -1;
    char *d = __cxa_demangle(name, NULL, NULL, &status);
    if (d && status == 0)
        return d;
    free(d);
    return strdup(name);
}

/* Grid, block and stream of a launch from the driver call's parameters; 0 if not a kernel launch. */
static int launch_params(const CUpti_CallbackData *cb, CUpti_CallbackId id, pending_launch *l, CUstream *stream)
{
    switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
        const cuLaunchKernel_params *p = cb->functionParams;
        l->grid[0] = p->gridDimX, l->grid[1] = p->gridDimY, l->grid[2] = p->gridDimZ;
        l->block[0] = p->blockDimX, l->block[1] = p->blockDimY, l->block[2] = p->blockDimZ;
        *stream = p->hStream;
        return 1;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
        const cuLaunchCooperativeKernel_params *p = cb->functionParams;
        l->grid[0] = p->gridDimX, l->grid[1] = p->gridDimY, l->grid[2] = p->gridDimZ;
        l->block[0] = p->blockDimX, l->block[1] = p->blockDimY, l->block[2] = p->blockDimZ;
        *stream = p->hStream;
        return 1;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
        const cuLaunchKernelEx_params *p = cb->functionParams;
        if (p->config) {
            l->grid[0] = p->config->gridDimX, l->grid[1] = p->config->gridDimY, l->grid[2] = p->config->gridDimZ;
            l->block[0] = p->config->blockDimX, l->block[1] = p->config->blockDimY,
            l->block[2] = p->config->blockDimZ;
            *stream = p->config->hStream;
        }
        return 1;
    }
    default:
        return 0;
    }
}

static void on_launch_enter(const CUpti_CallbackData *cb, CUpti_CallbackId id)
{
    pending_launch l;
    CUstream stream = NULL;
    memset(&l, 0, sizeof l);
    if (!launch_params(cb, id, &l, &stream))
        return;
    /* a launch into a capturing stream is recorded into a graph, not run.  While any capture is in
     * progress nothing here may synchronize (profiler setup, auto range, decoding), or that capture
     * becomes invalid: such launches run unmeasured and are counted. */
    if (g.captures > 0 || stream_capturing(stream)) {
        if (!stream_capturing(stream))
            g.capture_skipped++;
        return;
    }
    ctx_state *c = get_ctx(cb->context);
    if (!c || c->failed)
        return;
    if (g.active != c) {
        if (g.active)
            disable_profiler(g.active);
        if (enable_profiler(c) != 0) {
            c->failed = 1;
            return;
        }
        g.active = c;
    }
    if (resume_profiler(c) != 0)
        return;
    if (c->npend == c->cap) {
        size_t ncap = c->cap ? c->cap * 2 : 16;
        pending_launch *np = realloc(c->pend, ncap * sizeof *np);
        if (!np)
            return;
        c->pend = np;
        c->cap = ncap;
    }
    if (stream)
        cuptiGetStreamId(cb->context, stream, &l.stream_id);
    l.kernel = demangle(cb->symbolName);
    l.id = g.next_id++;
    c->pend[c->npend++] = l;
}

static void on_launch_exit(const CUpti_CallbackData *cb)
{
    ctx_state *c = find_ctx(cb->context);
    /* auto range: the launch has run (and been replayed) when the call returns */
    if (c && c == g.active && c->npend)
        flush_ranges(c);
}

static int is_begin_capture(CUpti_CallbackId id)
{
    return id == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture ||
           id == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz ||
           id == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2 ||
           id == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz ||
           id == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph ||
           id == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz;
}

static void CUPTIAPI callback(void *ud, CUpti_CallbackDomain dom, CUpti_CallbackId id, const void *data)
{
    (void)ud;
    pthread_mutex_lock(&g.lock);
    if (dom == CUPTI_CB_DOMAIN_DRIVER_API) {
        const CUpti_CallbackData *cb = data;
        if (is_begin_capture(id)) {
            /* stop before the capture starts: once it runs, the profiler's synchronization
             * would invalidate it */
            if (cb->callbackSite == CUPTI_API_ENTER) {
                if (g.active && g.captures == 0)
                    pause_profiler(g.active);
            } else if (*(const CUresult *)cb->functionReturnValue == CUDA_SUCCESS) {
                g.captures++;
            }
        } else if (id == CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture ||
                   id == CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz) {
            /* a capture ends at EndCapture whether it succeeded or was invalidated */
            if (cb->callbackSite == CUPTI_API_EXIT && g.captures > 0)
                g.captures--;
        } else if (id == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch ||
                   id == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz) {
            /* the auto-range profiler does not measure graph kernel nodes and disturbs their
             * execution (CUDA 13.0, docs/live-profiling.md): graphs run with it stopped */
            if (cb->callbackSite == CUPTI_API_ENTER) {
                if (g.active && g.captures == 0)
                    pause_profiler(g.active);
                g.graph_skipped++;
            }
        } else if (cb->callbackSite == CUPTI_API_ENTER) {
            on_launch_enter(cb, id);
        } else {
            on_launch_exit(cb);
        }
    } else if (dom == CUPTI_CB_DOMAIN_RESOURCE && id == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
        const CUpti_ResourceData *rd = data;
        ctx_state *c = find_ctx(rd->context);
        if (c)
            disable_profiler(c);
    }
    pthread_mutex_unlock(&g.lock);
}

static void at_exit(void)
{
    pthread_mutex_lock(&g.lock);
    if (g.active)
        disable_profiler(g.active);
    if (g.graph_skipped)
        diag("warning", "not measured: %lld CUDA graph launches (graphs run unprofiled)", g.graph_skipped);
    if (g.capture_skipped)
        diag("warning", "not measured: %lld launches made while a stream was being captured",
             g.capture_skipped);
    if (g.fd >= 0) {
        close(g.fd);
        g.fd = -1;
    }
    pthread_mutex_unlock(&g.lock);
}

/* ------------------------------------------------------------------ entry */

static void open_counters_file(void)
{
    const char *path = getenv("ATOMUTIL_COUNTERS_FILE");
    char def[64];
    if (!path || !*path) {
        snprintf(def, sizeof def, "atomutil-%ld.counters.csv", g.pid);
        path = def;
    }
    g.fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (g.fd < 0)
        return;
    off_t end = lseek(g.fd, 0, SEEK_END);
    if (end == 0) /* started without atomutil-profile: this process writes the header */
        write_all(AU_NCU_CSV_HEADER, strlen(AU_NCU_CSV_HEADER));
}

EXPORT int InitializeInjection(void)
{
    pthread_mutex_lock(&g.lock);
    if (g.initialized) {
        pthread_mutex_unlock(&g.lock);
        return 1;
    }
    g.initialized = 1;
    g.pid = (long)getpid();
    FILE *f = fopen("/proc/self/comm", "r");
    if (f) {
        if (fgets(g.proc_name, sizeof g.proc_name, f))
            g.proc_name[strcspn(g.proc_name, "\n\"")] = '\0';
        fclose(f);
    }
    open_counters_file();
    const char *mr = getenv("ATOMUTIL_MAX_RANGES");
    g.max_ranges = mr && atoi(mr) > 0 ? (size_t)atoi(mr) : 64;
    size_t n;
    const au_metric_def *defs = au_metric_defs(&n);
    /* the model's counters and the kernel's duration; device name and SM count come from the
     * driver (write_launch) */
    for (size_t i = 0; i < n && g.nmetrics < sizeof g.metrics / sizeof g.metrics[0]; ++i)
        if (defs[i].counter || strcmp(defs[i].name, AU_METRIC_DURATION) == 0)
            g.metrics[g.nmetrics++] = defs[i].name;

    CUPTI_CHECK(cuptiSubscribe(&g.sub, callback, NULL), goto fail);
    CUPTI_CHECK(cuptiEnableCallback(1, g.sub, CUPTI_CB_DOMAIN_RESOURCE,
                                    CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING), goto fail);
    static const CUpti_CallbackId launches[] = {
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,          CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,           CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture,    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2, CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph,
        CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture,      CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz,
    };
    for (size_t i = 0; i < sizeof launches / sizeof launches[0]; ++i)
        CUPTI_CHECK(cuptiEnableCallback(1, g.sub, CUPTI_CB_DOMAIN_DRIVER_API, launches[i]), goto fail);
    atexit(at_exit);
    diag("info", "attached");
    pthread_mutex_unlock(&g.lock);
    return 1;
fail:
    /* the target runs on, unprofiled; atomutil-profile reports the diagnostic */
    pthread_mutex_unlock(&g.lock);
    return 1;
}
