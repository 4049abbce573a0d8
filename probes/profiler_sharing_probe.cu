// profiler_sharing_probe.cu - which state of one process's CUPTI range profiler keeps a second
// process on the same GPU (CUPTI_ERROR_HARDWARE_BUSY), and what each step of handing the profiler
// over costs.  Standalone (CUDA driver API + CUPTI), no atomutil code; built as
// build/bin/profiler_sharing_probe (-DATOMUTIL_BUILD_PROBES=ON).  Run it with no argument: the
// parent walks its profiler through its states and, in each, starts itself as a child that tries
// to profile one launch.
// Output: one line per state, "state S: child enable=<CUPTI result> value=<metric> (want W)", then
// the timing of the handover steps, "timing <step>: median X ms over K".
#include <cuda.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <algorithm>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <vector>

#define CK(x)                                                    \
    do {                                                         \
        CUresult r_ = (x);                                       \
        if (r_ != CUDA_SUCCESS) {                                \
            fprintf(stderr, "%s: CUDA error %d\n", #x, (int)r_); \
            exit(1);                                             \
        }                                                        \
    } while (0)

static const char *res(CUptiResult r)
{
    const char *s = "?";
    cuptiGetResultString(r, &s);
    return s;
}

#define CP(x)                                         \
    do {                                              \
        CUptiResult r_ = (x);                         \
        if (r_ != CUPTI_SUCCESS) {                    \
            fprintf(stderr, "%s: %s\n", #x, res(r_)); \
            exit(1);                                  \
        }                                             \
    } while (0)

static double now_ms()
{
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

// one shared atomic per thread: 256 blocks x 256 threads = 2048 warp-instructions
static const char *ptx = R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry k()
{
    .shared .align 4 .b32 s[32];
    .reg .b32 r<4>;
    .reg .b64 rd<2>;
    mov.u32 r1, %tid.x;
    and.b32 r1, r1, 31;
    mov.u32 r2, s;
    mad.lo.u32 r2, r1, 4, r2;
    atom.shared.add.u32 r3, [r2], 1;
    ret;
}
)";
static const double want = 256.0 * 256 / 32;
struct prof {
    const char *metric = "smsp__inst_executed_op_shared_atom.sum";
    CUcontext ctx;
    CUfunction f;
    CUpti_Profiler_Host_Object *host;
    std::vector<uint8_t> config, cdata;
    CUpti_RangeProfiler_Object *rp;
};

static void make_config(prof &p);

static void setup(prof &p)
{
    CK(cuInit(0));
    CUdevice d;
    CK(cuDeviceGet(&d, 0));
    CUctxCreateParams cp = {};
    CK(cuCtxCreate(&p.ctx, &cp, 0, d));
    CUmodule m;
    CK(cuModuleLoadData(&m, ptx));
    CK(cuModuleGetFunction(&p.f, m, "k"));
    CUpti_Profiler_Initialize_Params pi = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    CP(cuptiProfilerInitialize(&pi));
    make_config(p);
}

static void make_config(prof &p)
{
    CUpti_Device_GetChipName_Params cn = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    cn.deviceIndex = 0;
    CP(cuptiDeviceGetChipName(&cn));
    CUpti_Profiler_Host_Initialize_Params hi = {CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    hi.pChipName = cn.pChipName;
    CP(cuptiProfilerHostInitialize(&hi));
    p.host = hi.pHostObject;
    CUpti_Profiler_Host_ConfigAddMetrics_Params am = {CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    am.pHostObject = p.host;
    am.ppMetricNames = &p.metric;
    am.numMetrics = 1;
    CP(cuptiProfilerHostConfigAddMetrics(&am));
    CUpti_Profiler_Host_GetConfigImageSize_Params cs = {CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
    cs.pHostObject = p.host;
    CP(cuptiProfilerHostGetConfigImageSize(&cs));
    p.config.resize(cs.configImageSize);
    CUpti_Profiler_Host_GetConfigImage_Params ci = {CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
    ci.pHostObject = p.host;
    ci.configImageSize = p.config.size();
    ci.pConfigImage = p.config.data();
    CP(cuptiProfilerHostGetConfigImage(&ci));
}

static CUptiResult enable(prof &p)
{
    CUpti_RangeProfiler_Enable_Params en = {CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    en.ctx = p.ctx;
    CUptiResult r = cuptiRangeProfilerEnable(&en);
    p.rp = en.pRangeProfilerObject;
    return r;
}

static void init_image(prof &p)
{
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params ini = {
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    ini.pRangeProfilerObject = p.rp;
    ini.counterDataSize = p.cdata.size();
    ini.pCounterData = p.cdata.data();
    CP(cuptiRangeProfilerCounterDataImageInitialize(&ini));
}

static void configure(prof &p)
{
    if (p.cdata.empty()) {
        CUpti_RangeProfiler_GetCounterDataSize_Params gs = {CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
        gs.pRangeProfilerObject = p.rp;
        gs.pMetricNames = &p.metric;
        gs.numMetrics = 1;
        gs.maxNumOfRanges = 4;
        gs.maxNumRangeTreeNodes = 4;
        CP(cuptiRangeProfilerGetCounterDataSize(&gs));
        p.cdata.resize(gs.counterDataSize);
    }
    init_image(p);
    CUpti_RangeProfiler_SetConfig_Params sc = {CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
    sc.pRangeProfilerObject = p.rp;
    sc.configSize = p.config.size();
    sc.pConfig = p.config.data();
    sc.counterDataImageSize = p.cdata.size();
    sc.pCounterDataImage = p.cdata.data();
    sc.range = CUPTI_AutoRange;
    sc.replayMode = CUPTI_KernelReplay;
    sc.maxRangesPerPass = 4;
    sc.numNestingLevels = 1;
    sc.minNestingLevel = 1;
    sc.targetNestingLevel = 1;
    CP(cuptiRangeProfilerSetConfig(&sc));
}

static CUptiResult start(prof &p)
{
    CUpti_RangeProfiler_Start_Params st = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
    st.pRangeProfilerObject = p.rp;
    return cuptiRangeProfilerStart(&st);
}

static void stop(prof &p)
{
    CUpti_RangeProfiler_Stop_Params sp = {CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    sp.pRangeProfilerObject = p.rp;
    CP(cuptiRangeProfilerStop(&sp));
}

static void launch(prof &p)
{
    CK(cuLaunchKernel(p.f, 256, 1, 1, 256, 1, 1, 0, 0, nullptr, nullptr));
    CK(cuCtxSynchronize());
}

// decodes the profiler's data; the value of the last range (NaN if none)
static double decode(prof &p)
{
    CUpti_RangeProfiler_DecodeData_Params dd = {CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    dd.pRangeProfilerObject = p.rp;
    CP(cuptiRangeProfilerDecodeData(&dd));
    CUpti_RangeProfiler_GetCounterDataInfo_Params gi = {CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
    gi.pCounterDataImage = p.cdata.data();
    gi.counterDataImageSize = p.cdata.size();
    CP(cuptiRangeProfilerGetCounterDataInfo(&gi));
    double v = 0.0 / 0.0;
    if (gi.numTotalRanges > 0) {
        CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {
            CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
        ev.pHostObject = p.host;
        ev.pCounterDataImage = p.cdata.data();
        ev.counterDataImageSize = p.cdata.size();
        ev.rangeIndex = gi.numTotalRanges - 1;
        ev.ppMetricNames = &p.metric;
        ev.numMetrics = 1;
        ev.pMetricValues = &v;
        CP(cuptiProfilerHostEvaluateToGpuValues(&ev));
    }
    init_image(p);
    return v;
}

static void disable(prof &p)
{
    CUpti_RangeProfiler_Disable_Params dp = {CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
    dp.pRangeProfilerObject = p.rp;
    CP(cuptiRangeProfilerDisable(&dp));
    p.rp = nullptr;
    p.cdata.clear(); /* the next profiler object sizes its own image (reusing it crashed) */
}

// set configuration `c` on its (stopped) profiler, one launch, its value
static double switch_and_launch(prof &c)
{
    configure(c);
    CP(start(c));
    launch(c);
    stop(c);
    return decode(c);
}

// the child: one profiled launch, or the reason it cannot
static int child()
{
    prof p;
    setup(p);
    double t0 = now_ms();
    CUptiResult r = enable(p);
    double te = now_ms() - t0;
    if (r != CUPTI_SUCCESS) {
        printf("child enable=%s (%.1f ms)\n", res(r), te);
        return 0;
    }
    configure(p);
    CUptiResult rs = start(p);
    if (rs != CUPTI_SUCCESS) {
        printf("child enable=ok start=%s\n", res(rs));
        disable(p);
        return 0;
    }
    launch(p);
    stop(p);
    double v = decode(p);
    disable(p);
    printf("child enable=ok value=%.0f (want %.0f)\n", v, want);
    return 0;
}

static void run_child(const char *self, const char *state)
{
    fflush(stdout);
    printf("state %-34s: ", state);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        execl(self, self, "child", (char *)nullptr);
        _exit(127);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        printf("child failed (status %d)\n", st);
}

static void timing(const char *step, std::vector<double> &v)
{
    std::sort(v.begin(), v.end());
    printf("timing %-44s: median %.3f ms, min %.3f, max %.3f over %zu\n", step, v[v.size() / 2], v.front(), v.back(),
           v.size());
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "child") == 0)
        return child();
    prof p;
    setup(p);
    char name[256];
    CUdevice d;
    CK(cuCtxGetDevice(&d));
    CK(cuDeviceGetName(name, sizeof name, d));
    printf("device: %s\n", name);
    run_child(argv[0], "parent profiler initialized");
    CP(enable(p));
    run_child(argv[0], "parent enabled (not configured)");
    configure(p);
    run_child(argv[0], "parent configured (not started)");
    CP(start(p));
    run_child(argv[0], "parent started, idle");
    launch(p);
    run_child(argv[0], "parent started, one range pending");
    stop(p);
    printf("parent's own launch: value=%.0f (want %.0f)\n", decode(p), want);
    run_child(argv[0], "parent stopped");
    CP(start(p));
    launch(p);
    stop(p);
    printf("parent started again after the child: value=%.0f (want %.0f)\n", decode(p), want);
    disable(p);
    run_child(argv[0], "parent disabled");

    // timing of the handover steps
    const int K = 21;
    std::vector<double> t_en, t_cfg, t_start, t_launch, t_stop, t_dec, t_dis, t_full, t_ss;
    for (int i = 0; i < K; ++i) {
        fprintf(stderr, "cycle %d\n", i);
        double t0 = now_ms();
        CP(enable(p));
        double t1 = now_ms();
        configure(p);
        double t2 = now_ms();
        CP(start(p));
        double t3 = now_ms();
        launch(p);
        double t4 = now_ms();
        stop(p);
        double t5 = now_ms();
        double v = decode(p);
        double t6 = now_ms();
        disable(p);
        double t7 = now_ms();
        if (v != want)
            printf("cycle %d: value %.0f (want %.0f)\n", i, v, want);
        t_en.push_back(t1 - t0), t_cfg.push_back(t2 - t1), t_start.push_back(t3 - t2);
        t_launch.push_back(t4 - t3), t_stop.push_back(t5 - t4), t_dec.push_back(t6 - t5);
        t_dis.push_back(t7 - t6), t_full.push_back(t7 - t0);
    }
    CP(enable(p));
    configure(p);
    for (int i = 0; i < K; ++i) {
        double t0 = now_ms();
        CP(start(p));
        launch(p);
        stop(p);
        double v = decode(p);
        t_ss.push_back(now_ms() - t0);
        if (v != want)
            printf("start/stop %d: value %.0f (want %.0f)\n", i, v, want);
    }
    disable(p);
    std::vector<double> t_plain;
    for (int i = 0; i < K; ++i) {
        double t0 = now_ms();
        launch(p);
        t_plain.push_back(now_ms() - t0);
    }
    // switching between two configurations on one enabled profiler (SetConfig after Stop), no
    // Disable/Enable: are the second configuration's counters collected, and what does it cost?
    prof q = p;
    q.metric = "smsp__inst_executed.sum";
    q.cdata.clear();
    make_config(q);
    std::vector<double> t_swa, t_swb;
    int bad_a = 0, bad_b = 0;
    double last_b = 0;
    CP(enable(p));
    q.rp = p.rp;
    for (int i = 0; i < K; ++i) {
        double t0 = now_ms();
        double va = switch_and_launch(p);
        double t1 = now_ms();
        double vb = switch_and_launch(q);
        double t2 = now_ms();
        t_swa.push_back(t1 - t0), t_swb.push_back(t2 - t1);
        bad_a += va != want;
        bad_b += !(vb > 0);
        last_b = vb;
        if (i < 2)
            printf("switch %d: set A %s = %.0f (want %.0f), set B %s = %.0f\n", i, p.metric, va, want, q.metric, vb);
    }
    disable(p);
    printf("switch without disable: %d of %d set-A values wrong, %d set-B values not positive (last %.0f)\n", bad_a, K,
           bad_b, last_b);
    timing("switch to set A + launch (SetConfig, start, stop)", t_swa);
    timing("switch to set B + launch (SetConfig, start, stop)", t_swb);
    timing("enable", t_en);
    timing("counter-data init + set config", t_cfg);
    timing("start", t_start);
    timing("launch + synchronize (auto range)", t_launch);
    timing("stop", t_stop);
    timing("decode + evaluate + reinit", t_dec);
    timing("disable", t_dis);
    timing("one launch, enable to disable", t_full);
    timing("one launch, start to stop (profiler kept enabled)", t_ss);
    timing("one launch, no profiler", t_plain);
    return 0;
}
