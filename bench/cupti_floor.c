/*
 * cupti_floor.c - the floor cost of one measured launch with the CUPTI Range Profiler, without
 * atomutil's injection library: a tiny kernel (one shared atomic per thread) is launched N times
 * plain, then with the profiler collecting atomutil's standard counter set (au_metric_defs,
 * chosen as the injection library chooses it) in auto range with kernel replay, the CUPTI calls
 * made as profile/inject/range.c makes them.  Modes: each range decoded and evaluated right after
 * its launch (what the library does), once per 64 ranges, the profiler stopped (an unselected
 * launch while it is enabled), started and stopped around each launch, enabled and disabled
 * around each launch; then the last two with user replay instead of kernel replay (auto-user,
 * reenable-user: is a one-pass set cheaper without kernel replay?).  docs/performance.md, "Scale".
 *   cupti_floor [-n LAUNCHES] [-r RANGES]
 * RANGES: ranges per counter-data image (default 16, the injection library's ATOMUTIL_MAX_RANGES
 * default: re-initializing the image after each launch costs in proportion to it).
 * Output: a `setup:` line (seconds of each set-up step: CUDA, profiler initialization, counter
 * availability, host object, metrics, config image, the first enable with its configuration, the
 * first start), one line per mode, a `setup-user:` line (the enable and first start with user
 * replay), a `lifecycle:` line (a launch call's cost, a run of the tiny
 * kernel and a GPU-bound run, per launch, at each stage of the profiler's life: does it leave the
 * launch path or the GPU slower?), then
 * `floor: per-launch-ms F batchR-ms B stopped-ms S plain-us P auto-user-ms U`.
 * Exit 1 when a CUDA or CUPTI call fails or a range's shared-atomic count is not the kernel's,
 * 77 without a GPU.
 */
#include "atomutil/model.h"

#include <cuda.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_METRICS 16
#define RANGES      16 /* ranges per counter-data image: the injection library's default (ATOMUTIL_MAX_RANGES) */
#define GRID        2
#define BLOCK       64
#define WARMUP      16 /* launches of each mode before it is timed */
#define REENABLE_N  20 /* launches of the enable/disable mode (about 0.15 s each) */

/* the set-up steps timed once, in order */
enum { S_CUDA, S_INIT, S_AVAIL, S_HOST, S_ADD, S_IMAGE, S_ENABLE, S_START, S_N };

/* one shared atomic per thread: GRID * BLOCK / 32 shared-atomic warp-instructions per launch */
static const char ptx[] = ".version 7.0\n"
                          ".target sm_75\n"
                          ".address_size 64\n"
                          ".visible .entry k()\n"
                          "{\n"
                          "    .shared .align 4 .b32 s[32];\n"
                          "    .reg .b32 r<4>;\n"
                          "    mov.u32 r1, %tid.x;\n"
                          "    and.b32 r1, r1, 31;\n"
                          "    mov.u32 r2, s;\n"
                          "    mad.lo.u32 r2, r1, 4, r2;\n"
                          "    atom.shared.add.u32 r3, [r2], 1;\n"
                          "    ret;\n"
                          "}\n"
                          /* spins for cyc clocks: a kernel longer than a launch call, so that a run
                           * of them is GPU-bound and shows what the GPU adds between kernels */
                          ".visible .entry spin(.param .u64 cyc)\n"
                          "{\n"
                          "    .reg .u64 t0, t1, c, d;\n"
                          "    .reg .pred p;\n"
                          "    ld.param.u64 c, [cyc];\n"
                          "    mov.u64 t0, %clock64;\n"
                          "L:  mov.u64 t1, %clock64;\n"
                          "    sub.u64 d, t1, t0;\n"
                          "    setp.lt.u64 p, d, c;\n"
                          "    @p bra L;\n"
                          "    ret;\n"
                          "}\n";

typedef struct floor_state {
    CUcontext ctx;
    CUfunction f, spin;
    char device[256], chip[64];
    const char *metrics[MAX_METRICS];
    size_t nmetrics, jobs_index, passes;
    CUpti_Profiler_Host_Object *host;
    uint8_t *config, *cdata;
    size_t config_size, cdata_size;
    CUpti_RangeProfiler_Object *rp;
    CUpti_SubscriberHandle sub;
    int started;
    long long evaluated, wrong;      /* ranges evaluated, and those whose shared-atomic count was not the kernel's */
    double t_launch, t_decode;       /* seconds in the launch calls and in decoding, of the mode being timed */
    int ranges;                      /* ranges per counter-data image (-r) */
    CUpti_ProfilerReplayMode replay; /* kernel replay, or user replay for the auto-user mode */
    double t_setup[S_N];             /* seconds of each set-up step (the "setup:" line) */
} floor_state;

static void fail_cu(const char *call, CUresult r)
{
    const char *s = "?";
    cuGetErrorString(r, &s);
    fprintf(stderr, "cupti_floor: %s: %s\n", call, s);
    exit(1);
}

static void fail_cupti(const char *call, CUptiResult r)
{
    const char *s = "?";
    cuptiGetResultString(r, &s);
    fprintf(stderr, "cupti_floor: %s: %s\n", call, s);
    exit(1);
}

#define CU(call)                \
    do {                        \
        CUresult r_ = (call);   \
        if (r_ != CUDA_SUCCESS) \
            fail_cu(#call, r_); \
    } while (0)
#define CP(call)                   \
    do {                           \
        CUptiResult r_ = (call);   \
        if (r_ != CUPTI_SUCCESS)   \
            fail_cupti(#call, r_); \
    } while (0)

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (!p) {
        fprintf(stderr, "cupti_floor: out of memory (%zu bytes)\n", n);
        exit(1);
    }
    return p;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The standard set's metrics as the injection library collects them (InitializeInjection in
 * profile/inject/inject.c): the model's counters and the duration, not the descriptive ones. */
static void pick_metrics(floor_state *fs)
{
    size_t n;
    const au_metric_def *defs = au_metric_defs(&n);
    for (size_t i = 0; i < n && fs->nmetrics < MAX_METRICS; ++i) {
        if (!(defs[i].sets & AU_SET_STD) || !au_metric_collected(&defs[i]))
            continue;
        if (defs[i].counter == AU_C_JOBS)
            fs->jobs_index = fs->nmetrics;
        fs->metrics[fs->nmetrics++] = defs[i].name;
    }
}

/* Device 0's primary context (as the CUDA runtime uses) and the kernel; 77 without a GPU. */
static int setup_cuda(floor_state *fs)
{
    CUresult r = cuInit(0);
    int count = 0;
    if (r != CUDA_SUCCESS) {
        const char *s = "?";
        cuGetErrorString(r, &s);
        fprintf(stderr, "cupti_floor: no CUDA device (cuInit: %s): skipped\n", s);
        return 77;
    }
    if (cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
        fprintf(stderr, "cupti_floor: no CUDA device: skipped\n");
        return 77;
    }
    CUdevice dev;
    CU(cuDeviceGet(&dev, 0));
    CU(cuDeviceGetName(fs->device, sizeof fs->device, dev));
    CU(cuDevicePrimaryCtxRetain(&fs->ctx, dev));
    CU(cuCtxSetCurrent(fs->ctx));
    CUmodule m;
    CU(cuModuleLoadData(&m, ptx));
    CU(cuModuleGetFunction(&fs->f, m, "k"));
    CU(cuModuleGetFunction(&fs->spin, m, "spin"));
    return 0;
}

/* Profiler, chip, counter availability, host object, config image (range.c: ensure_set, setup_set). */
static void setup_host(floor_state *fs)
{
    double t0 = now_s();
    CUpti_Profiler_Initialize_Params pi = {.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    CP(cuptiProfilerInitialize(&pi));
    fs->t_setup[S_INIT] = now_s() - t0;
    CUpti_Device_GetChipName_Params cn = {.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    cn.deviceIndex = 0;
    CP(cuptiDeviceGetChipName(&cn));
    snprintf(fs->chip, sizeof fs->chip, "%s", cn.pChipName);
    t0 = now_s();
    CUpti_Profiler_GetCounterAvailability_Params av = {.structSize =
                                                           CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
    av.ctx = fs->ctx;
    CP(cuptiProfilerGetCounterAvailability(&av));
    uint8_t *avail = xmalloc(av.counterAvailabilityImageSize);
    av.pCounterAvailabilityImage = avail;
    CP(cuptiProfilerGetCounterAvailability(&av));
    fs->t_setup[S_AVAIL] = now_s() - t0;
    t0 = now_s();
    CUpti_Profiler_Host_Initialize_Params hi = {.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    hi.pChipName = fs->chip;
    hi.pCounterAvailabilityImage = avail;
    CP(cuptiProfilerHostInitialize(&hi));
    fs->host = hi.pHostObject;
    fs->t_setup[S_HOST] = now_s() - t0;
    t0 = now_s();
    CUpti_Profiler_Host_ConfigAddMetrics_Params add = {.structSize =
                                                           CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    add.pHostObject = fs->host;
    add.ppMetricNames = fs->metrics;
    add.numMetrics = fs->nmetrics;
    CP(cuptiProfilerHostConfigAddMetrics(&add));
    fs->t_setup[S_ADD] = now_s() - t0;
    t0 = now_s();
    CUpti_Profiler_Host_GetConfigImageSize_Params sz = {.structSize =
                                                            CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
    sz.pHostObject = fs->host;
    CP(cuptiProfilerHostGetConfigImageSize(&sz));
    fs->config_size = sz.configImageSize;
    fs->config = xmalloc(fs->config_size);
    CUpti_Profiler_Host_GetConfigImage_Params ci = {.structSize =
                                                        CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
    ci.pHostObject = fs->host;
    ci.configImageSize = fs->config_size;
    ci.pConfigImage = fs->config;
    CP(cuptiProfilerHostGetConfigImage(&ci));
    CUpti_Profiler_Host_GetNumOfPasses_Params np = {.structSize =
                                                        CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
    np.configImageSize = fs->config_size;
    np.pConfigImage = fs->config;
    CP(cuptiProfilerHostGetNumOfPasses(&np));
    fs->passes = np.numOfPasses;
    fs->t_setup[S_IMAGE] = now_s() - t0;
    free(
        avail); /* the host object reads it until the config image is made (freed earlier: SIGSEGV in libnvperf_host) */
}

static void init_image(floor_state *fs)
{
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params ini = {
        .structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    ini.pRangeProfilerObject = fs->rp;
    ini.counterDataSize = fs->cdata_size;
    ini.pCounterData = fs->cdata;
    CP(cuptiRangeProfilerCounterDataImageInitialize(&ini));
}

/* Enables the range profiler, a fresh counter-data image (one made for an earlier profiler object
 * crashed probes/profiler_sharing_probe.cu), the config in auto range and kernel replay
 * (range.c: enable_set, configure); not started. */
static void enable(floor_state *fs)
{
    CUpti_RangeProfiler_Enable_Params en = {.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    en.ctx = fs->ctx;
    CP(cuptiRangeProfilerEnable(&en));
    fs->rp = en.pRangeProfilerObject;
    CUpti_RangeProfiler_GetCounterDataSize_Params cs = {.structSize =
                                                            CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
    cs.pRangeProfilerObject = fs->rp;
    cs.pMetricNames = fs->metrics;
    cs.numMetrics = fs->nmetrics;
    cs.maxNumOfRanges = (size_t)fs->ranges;
    cs.maxNumRangeTreeNodes = (size_t)fs->ranges;
    CP(cuptiRangeProfilerGetCounterDataSize(&cs));
    free(fs->cdata);
    fs->cdata_size = cs.counterDataSize;
    fs->cdata = xmalloc(fs->cdata_size);
    init_image(fs);
    CUpti_RangeProfiler_SetConfig_Params sc = {.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
    sc.pRangeProfilerObject = fs->rp;
    sc.configSize = fs->config_size;
    sc.pConfig = fs->config;
    sc.counterDataImageSize = fs->cdata_size;
    sc.pCounterDataImage = fs->cdata;
    sc.range = CUPTI_AutoRange;
    sc.replayMode = fs->replay;
    sc.maxRangesPerPass = (size_t)fs->ranges;
    sc.numNestingLevels = 1;
    sc.minNestingLevel = 1;
    sc.passIndex = 0;
    sc.targetNestingLevel = 1;
    CP(cuptiRangeProfilerSetConfig(&sc));
}

static void stop(floor_state *fs);

static void disable(floor_state *fs)
{
    stop(fs);
    CUpti_RangeProfiler_Disable_Params dp = {.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
    dp.pRangeProfilerObject = fs->rp;
    CP(cuptiRangeProfilerDisable(&dp));
    fs->rp = NULL;
}

static void start(floor_state *fs)
{
    if (fs->started)
        return;
    fs->started = 1;
    CUpti_RangeProfiler_Start_Params st = {.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
    st.pRangeProfilerObject = fs->rp;
    CP(cuptiRangeProfilerStart(&st));
}

static void stop(floor_state *fs)
{
    if (!fs->started)
        return;
    fs->started = 0;
    CUpti_RangeProfiler_Stop_Params sp = {.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    sp.pRangeProfilerObject = fs->rp;
    CP(cuptiRangeProfilerStop(&sp));
}

static void launch(floor_state *fs)
{
    double t0 = now_s();
    CU(cuLaunchKernel(fs->f, GRID, 1, 1, BLOCK, 1, 1, 0, NULL, NULL, NULL));
    fs->t_launch += now_s() - t0;
}

/* Decodes what the profiler holds, evaluates every range, checks its shared-atomic count and
 * initializes the counter-data image again (range.c: range_flush). */
static void decode(floor_state *fs)
{
    double t0 = now_s();
    CUpti_RangeProfiler_DecodeData_Params dec = {.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    dec.pRangeProfilerObject = fs->rp;
    CP(cuptiRangeProfilerDecodeData(&dec));
    CUpti_RangeProfiler_GetCounterDataInfo_Params info = {
        .structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
    info.pCounterDataImage = fs->cdata;
    info.counterDataImageSize = fs->cdata_size;
    CP(cuptiRangeProfilerGetCounterDataInfo(&info));
    double values[MAX_METRICS];
    for (size_t r = 0; r < info.numTotalRanges; ++r) {
        CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {
            .structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
        ev.pHostObject = fs->host;
        ev.pCounterDataImage = fs->cdata;
        ev.counterDataImageSize = fs->cdata_size;
        ev.rangeIndex = r;
        ev.ppMetricNames = fs->metrics;
        ev.numMetrics = fs->nmetrics;
        ev.pMetricValues = values;
        CP(cuptiProfilerHostEvaluateToGpuValues(&ev));
        fs->evaluated++;
        fs->wrong += values[fs->jobs_index] != GRID * BLOCK / 32;
    }
    init_image(fs);
    fs->t_decode += now_s() - t0;
}

typedef enum { M_PLAIN, M_PLAIN_SYNC, M_CALLBACK, M_PER_LAUNCH, M_BATCH, M_STOPPED, M_TOGGLE, M_REENABLE } mode;

/* n launches of mode m; seconds per launch.  The profiler modes need it enabled: M_PER_LAUNCH and
 * M_BATCH started, M_STOPPED and M_TOGGLE stopped (made so here), M_REENABLE disabled. */
static double run_mode(floor_state *fs, mode m, int n)
{
    fs->t_launch = fs->t_decode = 0;
    if (m == M_STOPPED || m == M_TOGGLE)
        stop(fs);
    double t0 = now_s();
    for (int i = 0; i < n; ++i) {
        if (m == M_REENABLE)
            enable(fs);
        if (m == M_TOGGLE || m == M_REENABLE)
            start(fs);
        launch(fs);
        if (m == M_PLAIN_SYNC)
            CU(cuCtxSynchronize());
        if (m == M_TOGGLE || m == M_REENABLE)
            stop(fs);
        if (m == M_PER_LAUNCH || m == M_TOGGLE || m == M_REENABLE || (m == M_BATCH && (i + 1) % fs->ranges == 0))
            decode(fs);
        if (m == M_REENABLE)
            disable(fs);
    }
    if (m == M_BATCH && n % fs->ranges)
        decode(fs);
    CU(cuCtxSynchronize());
    return (now_s() - t0) / n;
}

static double median5(double *v)
{
    for (int i = 1; i < 5; ++i)
        for (int j = i; j > 0 && v[j - 1] > v[j]; --j) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return v[2];
}

/* At one stage of the profiler's life (the `lifecycle:` line), each the median of 5 rounds of n
 * launches, in microseconds per launch:
 *   call: the launch call's own cost (timed in batches of 200 with a synchronize between them, so
 *         that the queue never fills and the calls never wait for the GPU): what a launch-bound
 *         program pays;
 *   run:  a run of the tiny kernel with one synchronize at its end;
 *   spin: a run of a kernel that spins 20000 clocks (about 10 us, longer than a launch call): the
 *         run is GPU-bound and shows what the GPU adds between kernels. */
static void lifecycle_point(floor_state *fs, int n, double out[3])
{
    double r[5], w[5], g[5];
    unsigned long long cyc = 20000;
    void *args[] = {&cyc};
    for (int k = 0; k < 5; ++k) {
        fs->t_launch = 0;
        for (int i = 0; i < n; ++i) {
            launch(fs);
            if ((i + 1) % 200 == 0)
                CU(cuCtxSynchronize());
        }
        CU(cuCtxSynchronize());
        r[k] = fs->t_launch * 1e6 / n;
        double t0 = now_s();
        for (int i = 0; i < n; ++i)
            launch(fs);
        CU(cuCtxSynchronize());
        w[k] = (now_s() - t0) * 1e6 / n;
        t0 = now_s();
        for (int i = 0; i < n; ++i)
            CU(cuLaunchKernel(fs->spin, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
        CU(cuCtxSynchronize());
        g[k] = (now_s() - t0) * 1e6 / n;
    }
    out[0] = median5(r);
    out[1] = median5(w);
    out[2] = median5(g);
}

/* Warm-up, then n timed launches of mode m; prints its line; seconds per launch. */
static double timed(floor_state *fs, mode m, int n, const char *name, const char *what)
{
    run_mode(fs, m, m == M_REENABLE ? 1 : WARMUP);
    double per = run_mode(fs, m, n);
    printf("mode %-10s %9.4f ms per launch over %d (in launch calls %.4f ms, decoding %.4f ms): %s\n", name, per * 1e3,
           n, fs->t_launch * 1e3 / n, fs->t_decode * 1e3 / n, what);
    return per;
}

/* The injection library's launch callback does its work; this one nothing (its cost alone). */
static void CUPTIAPI no_op(void *ud, CUpti_CallbackDomain dom, CUpti_CallbackId id, const void *data)
{
    (void)ud, (void)dom, (void)id, (void)data;
}

static int usage(void)
{
    fprintf(stderr,
            "usage: cupti_floor [-n LAUNCHES] [-r RANGES]   (LAUNCHES 1..10000000, default 2000; RANGES per "
            "counter-data image 1..1024, default %d as the injection library's)\n",
            RANGES);
    return 2;
}

/* "-n N" / "-r R": a whole number in lo..hi, else -1 */
static long arg_num(const char *v, long lo, long hi)
{
    char *end;
    long x = strtol(v, &end, 10);
    return *v && !*end && x >= lo && x <= hi ? x : -1;
}

int main(int argc, char **argv)
{
    int n = 2000, ranges = RANGES;
    for (int i = 1; i < argc; i += 2) {
        long v = -1;
        if (i + 1 < argc && strcmp(argv[i], "-n") == 0 && (v = arg_num(argv[i + 1], 1, 10000000)) > 0)
            n = (int)v;
        else if (i + 1 < argc && strcmp(argv[i], "-r") == 0 && (v = arg_num(argv[i + 1], 1, 1024)) > 0)
            ranges = (int)v;
        else
            return usage();
    }
    setvbuf(stdout, NULL, _IOLBF, 0); /* each mode's line is kept if a later mode fails */
    floor_state fs = {0};
    fs.ranges = ranges;
    fs.replay = CUPTI_KernelReplay;
    pick_metrics(&fs);
    double tc = now_s();
    int rc = setup_cuda(&fs);
    fs.t_setup[S_CUDA] = now_s() - tc;
    if (rc)
        return rc;
    enum { L_BARE, L_INIT, L_CALLBACK, L_ENABLED, L_MEASURED, L_DISABLED, L_DEINIT, L_N };
    double life[L_N][3];
    launch(&fs); /* the module's first launch */
    CU(cuCtxSynchronize());
    lifecycle_point(&fs, n, life[L_BARE]);
    setup_host(&fs);
    lifecycle_point(&fs, n, life[L_INIT]);
    printf("cupti_floor: %s (chip %s), %zu metrics in %zu pass%s, kernel %d x %d threads\n", fs.device, fs.chip,
           fs.nmetrics, fs.passes, fs.passes == 1 ? "" : "es", GRID, BLOCK);
    double plain = timed(&fs, M_PLAIN, n, "plain", "no profiler, one synchronize at the end");
    timed(&fs, M_PLAIN_SYNC, n, "plain-sync", "no profiler, a synchronize after each launch");
    CP(cuptiSubscribe(&fs.sub, no_op, NULL));
    CP(cuptiEnableCallback(1, fs.sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel));
    timed(&fs, M_CALLBACK, n, "callback", "no profiler, a no-op launch callback (kept in the modes below)");
    lifecycle_point(&fs, n, life[L_CALLBACK]);
    double t0 = now_s();
    enable(&fs);
    fs.t_setup[S_ENABLE] = now_s() - t0;
    lifecycle_point(&fs, n, life[L_ENABLED]); /* enabled, configured, never started */
    double t1 = now_s();
    start(&fs);
    fs.t_setup[S_START] = now_s() - t1;
    printf("setup: cuda %.4f s, profiler-init %.4f s, availability %.4f s, host-init %.4f s, add-metrics %.4f s, "
           "config-image %.4f s, first enable+config %.4f s, first start %.4f s\n",
           fs.t_setup[S_CUDA], fs.t_setup[S_INIT], fs.t_setup[S_AVAIL], fs.t_setup[S_HOST], fs.t_setup[S_ADD],
           fs.t_setup[S_IMAGE], fs.t_setup[S_ENABLE], fs.t_setup[S_START]);
    double per = timed(&fs, M_PER_LAUNCH, n, "per-launch", "auto range, each range decoded after its launch");
    char bname[32], bwhat[64];
    snprintf(bname, sizeof bname, "batch%d", fs.ranges);
    snprintf(bwhat, sizeof bwhat, "auto range, decoded once per %d ranges", fs.ranges);
    double batch = timed(&fs, M_BATCH, n, bname, bwhat);
    double stopped = timed(&fs, M_STOPPED, n, "stopped", "profiler enabled and stopped, no range");
    timed(&fs, M_TOGGLE, n, "toggle", "started and stopped around each launch, then decoded");
    lifecycle_point(&fs, n, life[L_MEASURED]); /* stopped after measured launches */
    disable(&fs);
    lifecycle_point(&fs, n, life[L_DISABLED]);
    int rn = n < REENABLE_N ? n : REENABLE_N;
    timed(&fs, M_REENABLE, rn, "reenable", "enabled, configured, started around each launch, then disabled");
    /* one pass needs no replay: auto range with user replay leaves the launch call alone, and each
     * range is complete at the Stop that ends the pass (which then takes the time) */
    fs.replay = CUPTI_UserReplay;
    double t2 = now_s();
    enable(&fs);
    double user_enable = now_s() - t2;
    t2 = now_s();
    start(&fs);
    double user_start = now_s() - t2;
    stop(&fs);
    double user = timed(&fs, M_TOGGLE, n, "auto-user",
                        "auto range with user replay: started and stopped around each launch, then decoded");
    disable(&fs);
    timed(&fs, M_REENABLE, rn, "reenable-user", "as reenable, with user replay");
    printf("setup-user: enable+config %.4f s, first start %.4f s (auto range with user replay)\n", user_enable,
           user_start);
    CP(cuptiUnsubscribe(fs.sub));
    CUpti_Profiler_DeInitialize_Params di = {.structSize = CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE};
    CP(cuptiProfilerDeInitialize(&di));
    lifecycle_point(&fs, n, life[L_DEINIT]); /* unsubscribed too */
    /* a launch call's host cost at each stage: does the profiler leave the launch path slower? */
    static const char *const stage[L_N] = {
        "bare",     "profiler-initialized",      "+callback", "enabled", "stopped-after-ranges",
        "disabled", "deinitialized-unsubscribed"};
    printf("lifecycle: us per launch, call / run / spin run:");
    for (int i = 0; i < L_N; ++i)
        printf("%s %s %.2f / %.2f / %.2f", i ? "," : "", stage[i], life[i][0], life[i][1], life[i][2]);
    printf("\n");
    /* ranges of the modes that make them, warm-ups included (a stopped profiler makes none) */
    long long want = (long long)(WARMUP + n) * 4 + 2 + 2 * rn;
    printf("check: %lld ranges evaluated (want %lld), %lld with a shared-atomic count other than %d\n", fs.evaluated,
           want, fs.wrong, GRID * BLOCK / 32);
    printf("floor: per-launch-ms %.4f batch%d-ms %.4f stopped-ms %.4f plain-us %.2f auto-user-ms %.4f\n", per * 1e3,
           fs.ranges, batch * 1e3, stopped * 1e3, plain * 1e6, user * 1e3);
    return fs.wrong || fs.evaluated != want ? 1 : 0;
}
