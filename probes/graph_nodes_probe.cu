// graph_nodes_probe.cu - can CUPTI's Range Profiler measure a CUDA graph's kernel nodes one range
// each, as `ncu --graph-profiling node` shows them?  A graph of K=4 kernel nodes (a chain of
// distinct kernels with known shared-atomic counts and checkable results) is launched under each
// profiler mode; per mode: the ranges decoded, each range's counters, and whether the graph's
// results are right.  Standalone (CUDA runtime/driver + CUPTI), no atomutil code; built as
// build/bin/graph_nodes_probe (-DATOMUTIL_BUILD_PROBES=ON).  Usage:
//   graph_nodes_probe all | list | MODE...  (all, or several modes: each in a child process, 60 s
//   each; one MODE runs in this process)
// Output: per mode its details, then one line (not-run: a profiler call failed before the launch;
// notes name failed calls)
//   graph-nodes: mode M ranges R expected E results ok|WRONG|not-run|crash|hang [counts ok|differ] [notes]
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <string>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <vector>

enum { K = 4, THREADS = 256, MAX_RANGES = 16, MAX_PASSES = 8, CHILD_LIMIT_S = 60 };
static const char *metrics[] = {"gpu__time_duration.sum", "smsp__sass_inst_executed_op_shared_atom.sum",
                                "sm__cycles_active.avg"};
enum { NM = sizeof metrics / sizeof *metrics, M_SATOM = 1 };

// node j: 32(j+1) blocks of 256 threads, each thread 4(j+1) shared atomics adding j+1
static int blocks_of(int j)
{
    return 32 * (j + 1);
}
static int reps_of(int j)
{
    return 4 * (j + 1);
}
static double satom_of(int j) // warp-level shared atomic instructions
{
    return (double)blocks_of(j) * (THREADS / 32) * reps_of(j);
}
static unsigned out_of(int j)
{
    return (unsigned)(blocks_of(j) * THREADS * reps_of(j) * (j + 1));
}

template <int J> __global__ void graph_node(unsigned *out, int reps)
{
    __shared__ unsigned s[32];
    unsigned lane = threadIdx.x & 31;
    if (threadIdx.x < 32)
        s[lane] = 0;
    __syncthreads();
    unsigned addr = (unsigned)__cvta_generic_to_shared(&s[lane]);
    unsigned old;
    // one ATOMS per warp and iteration; asm volatile keeps the compiler from merging them
    for (int i = 0; i < reps; ++i)
        asm volatile("atom.shared.add.u32 %0, [%1], %2;" : "=r"(old) : "r"(addr), "r"(J + 1) : "memory");
    __syncthreads();
    if (threadIdx.x < 32)
        atomicAdd(&out[J], s[lane]);
}
static void *const kernels[K] = {(void *)graph_node<0>, (void *)graph_node<1>, (void *)graph_node<2>,
                                 (void *)graph_node<3>};

// ---- the mode's state and its summary line --------------------------------------------------

enum source { DIRECT, GRAPH, NODES, MIXED };      // MIXED: the kernels launched directly, then the graph
enum api { NO_PROFILER, RANGE_PROFILER, LEGACY }; // LEGACY: the deprecated cuptiProfilerBeginSession API
struct mode_def {
    const char *name;
    source src;
    api api;
    bool late;        // graph built and instantiated after the profiler started
    bool null_stream; // launched on the NULL stream instead of a created one
    CUpti_ProfilerRange range;
    CUpti_ProfilerReplayMode replay;
    int nesting;  // numNestingLevels
    int expected; // ranges the mode gives if it measures what it aims at
    const char *what;
};

static const mode_def modes[] = {
    {"no-profiler", GRAPH, NO_PROFILER, false, false, CUPTI_AutoRange, CUPTI_KernelReplay, 1, 0,
     "graph launch without any profiler (the program's own check)"},
    {"control", DIRECT, RANGE_PROFILER, false, false, CUPTI_AutoRange, CUPTI_KernelReplay, 1, K,
     "the 4 kernels launched directly, auto range + kernel replay"},
    {"auto-kernel", GRAPH, RANGE_PROFILER, false, false, CUPTI_AutoRange, CUPTI_KernelReplay, 1, K,
     "cuGraphLaunch, auto range + kernel replay (graph instantiated before the profiler)"},
    {"auto-kernel-late", GRAPH, RANGE_PROFILER, true, false, CUPTI_AutoRange, CUPTI_KernelReplay, 1, K,
     "cuGraphLaunch, auto range + kernel replay, graph built and instantiated after Start"},
    {"auto-kernel-null", GRAPH, RANGE_PROFILER, false, true, CUPTI_AutoRange, CUPTI_KernelReplay, 1, K,
     "cuGraphLaunch on the NULL stream, auto range + kernel replay"},
    {"auto-kernel-mixed", MIXED, RANGE_PROFILER, false, false, CUPTI_AutoRange, CUPTI_KernelReplay, 1, 2 * K,
     "the 4 kernels launched directly, then cuGraphLaunch, in one auto range + kernel replay session"},
    {"auto-user", GRAPH, RANGE_PROFILER, false, false, CUPTI_AutoRange, CUPTI_UserReplay, 1, K,
     "cuGraphLaunch, auto range + user replay"},
    {"user-user", GRAPH, RANGE_PROFILER, false, false, CUPTI_UserRange, CUPTI_UserReplay, 1, 1,
     "cuGraphLaunch inside one pushed range, user range + user replay (one range of all nodes)"},
    {"user-nested", GRAPH, RANGE_PROFILER, false, false, CUPTI_UserRange, CUPTI_UserReplay, 2, 1,
     "as user-user with numNestingLevels 2: does CUPTI add node ranges below the pushed one?"},
    {"nodes-as-launches", NODES, RANGE_PROFILER, false, false, CUPTI_AutoRange, CUPTI_KernelReplay, 1, K,
     "the graph's kernel nodes read back (cuGraphKernelNodeGetParams) and launched one by one"},
    {"legacy-control", DIRECT, LEGACY, false, false, CUPTI_AutoRange, CUPTI_KernelReplay, 1, K,
     "deprecated Profiler API session, auto range + kernel replay, the 4 kernels launched directly"},
    {"legacy-graph", GRAPH, LEGACY, false, false, CUPTI_AutoRange, CUPTI_KernelReplay, 1, K,
     "deprecated Profiler API session, auto range + kernel replay, cuGraphLaunch"},
};
enum { NMODES = sizeof modes / sizeof *modes };

static const mode_def *g_mode;
static int g_ranges = 0;
static int g_counts = -1; // -1 not judged, 0 differ, 1 ok
static bool g_launched = false;
static std::string g_notes;

static void note(const std::string &s)
{
    if (g_notes.find(s) == std::string::npos)
        g_notes += " " + s;
}

static void summary(const char *results)
{
    printf("graph-nodes: mode %s ranges %d expected %d results %s%s%s\n", g_mode->name, g_ranges, g_mode->expected,
           results,
           g_counts < 0 ? ""
           : g_counts   ? " counts ok"
                        : " counts differ",
           g_notes.c_str());
    fflush(stdout);
}

// setup failures end the child with its summary (exit 3: the summary is printed)
#define CK(x)                                                                   \
    do {                                                                        \
        cudaError_t r_ = (x);                                                   \
        if (r_ != cudaSuccess) {                                                \
            note(std::string("cuda-error ") + #x + "=" + cudaGetErrorName(r_)); \
            summary("crash");                                                   \
            exit(3);                                                            \
        }                                                                       \
    } while (0)

static const char *cupti_name(CUptiResult r)
{
    const char *s = "?";
    cuptiGetResultString(r, &s);
    return s;
}

// a failed CUPTI call is noted and ends the profiling steps of the mode (the results are still checked)
static bool cp(CUptiResult r, const char *call)
{
    if (r == CUPTI_SUCCESS)
        return true;
    printf("  %s: %s\n", call, cupti_name(r));
    note(std::string("cupti-error ") + call + "=" + cupti_name(r));
    return false;
}
#define CP(x) cp((x), #x)

// a failed launch or synchronization is noted; the mode goes on to the result check
static void soft(CUresult r, const char *call)
{
    if (r == CUDA_SUCCESS)
        return;
    const char *name = "?";
    cuGetErrorName(r, &name);
    printf("  %s: %s\n", call, name);
    note(std::string("cuda-error ") + call + "=" + name);
}
#define SOFT(x) soft((x), #x)

// ---- the workload ------------------------------------------------------------------------------

struct work {
    CUcontext ctx;
    cudaStream_t stream = 0;
    unsigned *out = nullptr;
    int reps[K];
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    cudaGraphNode_t nodes[K];
};

static void work_init(work &w, bool null_stream)
{
    CK(cudaSetDevice(0));
    CK(cudaFree(0));
    if (cuCtxGetCurrent(&w.ctx) != CUDA_SUCCESS || !w.ctx) {
        note("no-context");
        summary("crash");
        exit(3);
    }
    if (!null_stream)
        CK(cudaStreamCreateWithFlags(&w.stream, cudaStreamNonBlocking));
    CK(cudaMalloc(&w.out, K * sizeof(unsigned)));
    for (int j = 0; j < K; ++j)
        w.reps[j] = reps_of(j);
}

// the chain node 0 -> 1 -> 2 -> 3, built node by node (a capture would not survive auto range)
static void graph_build(work &w)
{
    CK(cudaGraphCreate(&w.graph, 0));
    for (int j = 0; j < K; ++j) {
        void *args[2] = {&w.out, &w.reps[j]};
        cudaKernelNodeParams p = {};
        p.func = kernels[j];
        p.gridDim = dim3(blocks_of(j));
        p.blockDim = dim3(THREADS);
        p.kernelParams = args;
        CK(cudaGraphAddKernelNode(&w.nodes[j], w.graph, j ? &w.nodes[j - 1] : nullptr, j ? 1 : 0, &p));
    }
    CK(cudaGraphInstantiate(&w.exec, w.graph, 0));
}

static void reset(work &w)
{
    CK(cudaMemsetAsync(w.out, 0, K * sizeof(unsigned), w.stream));
    CK(cudaStreamSynchronize(w.stream));
}

static void launch_direct(work &w)
{
    for (int j = 0; j < K; ++j) {
        void *args[2] = {&w.out, &w.reps[j]};
        cudaError_t r = cudaLaunchKernel(kernels[j], dim3(blocks_of(j)), dim3(THREADS), args, 0, w.stream);
        if (r != cudaSuccess)
            note(std::string("cuda-error cudaLaunchKernel=") + cudaGetErrorName(r));
    }
}

// what a tool could do instead of the graph launch: each kernel node's recorded launch, in order
static void launch_nodes(work &w)
{
    for (int j = 0; j < K; ++j) {
        CUDA_KERNEL_NODE_PARAMS p;
        memset(&p, 0, sizeof p);
        SOFT(cuGraphKernelNodeGetParams((CUgraphNode)w.nodes[j], &p));
        CUfunction f = p.func;
        if (!f && p.kern)
            SOFT(cuKernelGetFunction(&f, p.kern));
        if (!f) {
            note("node-without-function");
            continue;
        }
        SOFT(cuLaunchKernel(f, p.gridDimX, p.gridDimY, p.gridDimZ, p.blockDimX, p.blockDimY, p.blockDimZ,
                            p.sharedMemBytes, (CUstream)w.stream, p.kernelParams, p.extra));
    }
}

static void launch(work &w)
{
    g_launched = true;
    if (g_mode->src == DIRECT || g_mode->src == MIXED)
        launch_direct(w);
    if (g_mode->src == MIXED)
        SOFT(cuStreamSynchronize((CUstream)w.stream));
    if (g_mode->src == NODES)
        launch_nodes(w);
    if (g_mode->src == GRAPH || g_mode->src == MIXED)
        SOFT(cuGraphLaunch((CUgraphExec)w.exec, (CUstream)w.stream));
}

// "ok" when every node's sum is right; "not-run" when a profiler step failed before the launch
static const char *check(work &w)
{
    if (!g_launched)
        return "not-run";
    unsigned runs = g_mode->src == MIXED ? 2 : 1, got[K] = {};
    cudaError_t r = cudaMemcpy(got, w.out, sizeof got, cudaMemcpyDeviceToHost);
    if (r != cudaSuccess) {
        note(std::string("cuda-error cudaMemcpy=") + cudaGetErrorName(r));
        return "WRONG";
    }
    bool ok = true;
    for (int j = 0; j < K; ++j) {
        unsigned want = runs * out_of(j);
        printf("  result node %d: %u (want %u)%s\n", j, got[j], want, got[j] == want ? "" : " WRONG");
        ok = ok && got[j] == want;
    }
    return ok ? "ok" : "WRONG";
}

// ---- the profiler: host side and ranges ----------------------------------------------------------

struct prof {
    CUpti_Profiler_Host_Object *host = nullptr;
    std::vector<uint8_t> config, cdata;
    CUpti_RangeProfiler_Object *rp = nullptr;
    size_t passes = 0;
};

// chip name, counter availability, host object, config image (as profile/inject/range.c)
static bool host_setup(prof &p, CUcontext ctx)
{
    CUpti_Profiler_Initialize_Params pi = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    CUpti_Device_GetChipName_Params cn = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    cn.deviceIndex = 0;
    CUpti_Profiler_GetCounterAvailability_Params av = {CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
    av.ctx = ctx;
    if (!CP(cuptiProfilerInitialize(&pi)) || !CP(cuptiDeviceGetChipName(&cn)) ||
        !CP(cuptiProfilerGetCounterAvailability(&av)))
        return false;
    std::vector<uint8_t> avail(av.counterAvailabilityImageSize);
    av.pCounterAvailabilityImage = avail.data();
    CUpti_Profiler_Host_Initialize_Params hi = {CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    hi.pChipName = cn.pChipName;
    hi.pCounterAvailabilityImage = avail.data();
    if (!CP(cuptiProfilerGetCounterAvailability(&av)) || !CP(cuptiProfilerHostInitialize(&hi)))
        return false;
    p.host = hi.pHostObject;
    CUpti_Profiler_Host_ConfigAddMetrics_Params am = {CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    am.pHostObject = p.host;
    am.ppMetricNames = metrics;
    am.numMetrics = NM;
    CUpti_Profiler_Host_GetConfigImageSize_Params cs = {CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
    cs.pHostObject = p.host;
    if (!CP(cuptiProfilerHostConfigAddMetrics(&am)) || !CP(cuptiProfilerHostGetConfigImageSize(&cs)))
        return false;
    p.config.resize(cs.configImageSize);
    CUpti_Profiler_Host_GetConfigImage_Params ci = {CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
    ci.pHostObject = p.host;
    ci.configImageSize = p.config.size();
    ci.pConfigImage = p.config.data();
    CUpti_Profiler_Host_GetNumOfPasses_Params np = {CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
    np.configImageSize = p.config.size();
    np.pConfigImage = p.config.data();
    if (!CP(cuptiProfilerHostGetConfigImage(&ci)) || !CP(cuptiProfilerHostGetNumOfPasses(&np)))
        return false;
    p.passes = np.numOfPasses;
    printf("  chip %s, %zu pass(es) for %d metrics\n", cn.pChipName, p.passes, (int)NM);
    return true;
}

// range profiler enabled on ctx, with its counter-data image
static bool rp_enable(prof &p, CUcontext ctx)
{
    CUpti_RangeProfiler_Enable_Params en = {CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    en.ctx = ctx;
    if (!CP(cuptiRangeProfilerEnable(&en)))
        return false;
    p.rp = en.pRangeProfilerObject;
    CUpti_RangeProfiler_GetCounterDataSize_Params gs = {CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
    gs.pRangeProfilerObject = p.rp;
    gs.pMetricNames = metrics;
    gs.numMetrics = NM;
    gs.maxNumOfRanges = MAX_RANGES;
    gs.maxNumRangeTreeNodes = 2 * MAX_RANGES;
    if (!CP(cuptiRangeProfilerGetCounterDataSize(&gs)))
        return false;
    p.cdata.resize(gs.counterDataSize);
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params ini = {
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    ini.pRangeProfilerObject = p.rp;
    ini.counterDataSize = p.cdata.size();
    ini.pCounterData = p.cdata.data();
    return CP(cuptiRangeProfilerCounterDataImageInitialize(&ini));
}

static bool rp_config(prof &p)
{
    CUpti_RangeProfiler_SetConfig_Params sc = {CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
    sc.pRangeProfilerObject = p.rp;
    sc.configSize = p.config.size();
    sc.pConfig = p.config.data();
    sc.counterDataImageSize = p.cdata.size();
    sc.pCounterDataImage = p.cdata.data();
    sc.range = g_mode->range;
    sc.replayMode = g_mode->replay;
    sc.maxRangesPerPass = MAX_RANGES;
    sc.numNestingLevels = (uint16_t)g_mode->nesting;
    sc.minNestingLevel = 1;
    sc.passIndex = 0;
    sc.targetNestingLevel = 1;
    return CP(cuptiRangeProfilerSetConfig(&sc));
}

static void rp_disable(prof &p)
{
    if (!p.rp)
        return;
    CUpti_RangeProfiler_Disable_Params dp = {CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
    dp.pRangeProfilerObject = p.rp;
    CP(cuptiRangeProfilerDisable(&dp));
    p.rp = nullptr;
}

// the shared-atomic count range r should hold (ranges in launch order), or -1 where they do not map
static double want_of(int r, int nranges)
{
    double sum = 0;
    for (int j = 0; j < K; ++j)
        sum += satom_of(j);
    if (nranges % K == 0)
        return satom_of(r % K);
    if (nranges == 1)
        return sum;
    if (g_mode->src == MIXED && nranges == K + 1) /* the graph as one range after the direct launches */
        return r < K ? satom_of(r) : sum;
    return -1;
}

// prints every range of the image (name, counters) and judges the shared-atomic counts
static void report_ranges(prof &p)
{
    CUpti_RangeProfiler_GetCounterDataInfo_Params gi = {CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
    gi.pCounterDataImage = p.cdata.data();
    gi.counterDataImageSize = p.cdata.size();
    if (!CP(cuptiRangeProfilerGetCounterDataInfo(&gi)))
        return;
    g_ranges = (int)gi.numTotalRanges;
    printf("  ranges decoded: %d (expected %d)\n", g_ranges, g_mode->expected);
    bool counts_ok = g_ranges == g_mode->expected;
    for (int r = 0; r < g_ranges; ++r) {
        CUpti_RangeProfiler_CounterData_GetRangeInfo_Params ri = {
            CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE};
        ri.pCounterDataImage = p.cdata.data();
        ri.counterDataImageSize = p.cdata.size();
        ri.rangeIndex = (size_t)r;
        ri.rangeDelimiter = "/";
        const char *name = CP(cuptiRangeProfilerCounterDataGetRangeInfo(&ri)) && ri.rangeName ? ri.rangeName : "?";
        double v[NM];
        CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {
            CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
        ev.pHostObject = p.host;
        ev.pCounterDataImage = p.cdata.data();
        ev.counterDataImageSize = p.cdata.size();
        ev.rangeIndex = (size_t)r;
        ev.ppMetricNames = metrics;
        ev.numMetrics = NM;
        ev.pMetricValues = v;
        if (!CP(cuptiProfilerHostEvaluateToGpuValues(&ev))) {
            counts_ok = false;
            continue;
        }
        double want = want_of(r, g_ranges);
        printf("  range %d \"%s\":", r, name);
        for (int m = 0; m < NM; ++m)
            printf(" %s=%.0f", metrics[m], v[m]);
        if (want >= 0)
            printf(" (shared atomics want %.0f)", want);
        printf("\n");
        counts_ok = counts_ok && want >= 0 && v[M_SATOM] == want;
    }
    g_counts = counts_ok;
}

// ---- the modes ---------------------------------------------------------------------------------

// Start ... Stop around the launch, repeated while user replay needs more passes (the buffer is
// reset before each pass, so the results are those of one run), then decoded
static bool rp_collect(prof &p, work &w)
{
    uint8_t all = 0;
    for (int pass = 0; pass < MAX_PASSES && !all; ++pass) {
        reset(w);
        CUpti_RangeProfiler_Start_Params st = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
        st.pRangeProfilerObject = p.rp;
        if (!CP(cuptiRangeProfilerStart(&st)))
            return false;
        if (g_mode->late && pass == 0)
            graph_build(w);
        CUpti_RangeProfiler_PushRange_Params pr = {CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE};
        pr.pRangeProfilerObject = p.rp;
        pr.pRangeName = "graph";
        if (g_mode->range == CUPTI_UserRange && !CP(cuptiRangeProfilerPushRange(&pr)))
            return false;
        launch(w);
        SOFT(cuStreamSynchronize((CUstream)w.stream));
        CUpti_RangeProfiler_PopRange_Params pp = {CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE};
        pp.pRangeProfilerObject = p.rp;
        if (g_mode->range == CUPTI_UserRange && !CP(cuptiRangeProfilerPopRange(&pp)))
            return false;
        CUpti_RangeProfiler_Stop_Params sp = {CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
        sp.pRangeProfilerObject = p.rp;
        if (!CP(cuptiRangeProfilerStop(&sp)))
            return false;
        all = g_mode->replay == CUPTI_KernelReplay || sp.isAllPassSubmitted;
        printf("  pass %d stopped (all passes submitted: %d)\n", pass, (int)sp.isAllPassSubmitted);
    }
    if (!all)
        note("passes-not-all-submitted");
    CUpti_RangeProfiler_DecodeData_Params dd = {CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    dd.pRangeProfilerObject = p.rp;
    if (!CP(cuptiRangeProfilerDecodeData(&dd)))
        return false;
    if (dd.numOfRangeDropped)
        note("dropped=" + std::to_string(dd.numOfRangeDropped));
    return true;
}

static const char *run_range_mode(work &w)
{
    prof p;
    if (host_setup(p, w.ctx) && rp_enable(p, w.ctx) && rp_config(p) && rp_collect(p, w))
        report_ranges(p);
    const char *res = check(w);
    rp_disable(p);
    return res;
}

// one auto-range session pass of the deprecated API: config, enable, the launch, disable
static bool legacy_collect(CUpti_Profiler_SetConfig_Params &sc, work &w)
{
    if (!CP(cuptiProfilerSetConfig(&sc)))
        return false;
    CUpti_Profiler_EnableProfiling_Params en = {CUpti_Profiler_EnableProfiling_Params_STRUCT_SIZE};
    en.ctx = w.ctx;
    bool ok = CP(cuptiProfilerEnableProfiling(&en));
    if (ok) {
        launch(w);
        SOFT(cuStreamSynchronize((CUstream)w.stream));
        CUpti_Profiler_DisableProfiling_Params dp = {CUpti_Profiler_DisableProfiling_Params_STRUCT_SIZE};
        dp.ctx = w.ctx;
        CUpti_Profiler_FlushCounterData_Params fl = {CUpti_Profiler_FlushCounterData_Params_STRUCT_SIZE};
        fl.ctx = w.ctx;
        ok = CP(cuptiProfilerDisableProfiling(&dp)) && CP(cuptiProfilerFlushCounterData(&fl));
        if (fl.numRangesDropped)
            note("dropped=" + std::to_string(fl.numRangesDropped));
    }
    CUpti_Profiler_UnsetConfig_Params us = {CUpti_Profiler_UnsetConfig_Params_STRUCT_SIZE};
    us.ctx = w.ctx;
    return CP(cuptiProfilerUnsetConfig(&us)) && ok;
}

// The deprecated Profiler API needs a counter-data prefix made with NVPW; the image is made by the
// range profiler instead (enabled just for that), which legacy-control tests.
static bool legacy_session(prof &p, work &w)
{
    CUpti_Profiler_CounterDataImage_CalculateScratchBufferSize_Params ss = {
        CUpti_Profiler_CounterDataImage_CalculateScratchBufferSize_Params_STRUCT_SIZE};
    ss.counterDataImageSize = p.cdata.size();
    ss.pCounterDataImage = p.cdata.data();
    if (!CP(cuptiProfilerCounterDataImageCalculateScratchBufferSize(&ss)))
        return false;
    std::vector<uint8_t> scratch(ss.counterDataScratchBufferSize);
    CUpti_Profiler_CounterDataImage_InitializeScratchBuffer_Params is = {
        CUpti_Profiler_CounterDataImage_InitializeScratchBuffer_Params_STRUCT_SIZE};
    is.counterDataImageSize = p.cdata.size();
    is.pCounterDataImage = p.cdata.data();
    is.counterDataScratchBufferSize = scratch.size();
    is.pCounterDataScratchBuffer = scratch.data();
    CUpti_Profiler_BeginSession_Params bs = {CUpti_Profiler_BeginSession_Params_STRUCT_SIZE};
    bs.ctx = w.ctx;
    bs.counterDataImageSize = p.cdata.size();
    bs.pCounterDataImage = p.cdata.data();
    bs.counterDataScratchBufferSize = scratch.size();
    bs.pCounterDataScratchBuffer = scratch.data();
    bs.range = CUPTI_AutoRange;
    bs.replayMode = CUPTI_KernelReplay;
    bs.maxRangesPerPass = MAX_RANGES;
    bs.maxLaunchesPerPass = MAX_RANGES;
    CUpti_Profiler_SetConfig_Params sc = {CUpti_Profiler_SetConfig_Params_STRUCT_SIZE};
    sc.ctx = w.ctx;
    sc.pConfig = p.config.data();
    sc.configSize = p.config.size();
    sc.minNestingLevel = 1;
    sc.numNestingLevels = 1;
    sc.passIndex = 0;
    sc.targetNestingLevel = 1;
    if (!CP(cuptiProfilerCounterDataImageInitializeScratchBuffer(&is)) || !CP(cuptiProfilerBeginSession(&bs)))
        return false;
    bool ok = legacy_collect(sc, w);
    CUpti_Profiler_EndSession_Params es = {CUpti_Profiler_EndSession_Params_STRUCT_SIZE};
    es.ctx = w.ctx;
    return CP(cuptiProfilerEndSession(&es)) && ok;
}

static const char *run_legacy_mode(work &w)
{
    prof p;
    bool ok = host_setup(p, w.ctx) && rp_enable(p, w.ctx);
    rp_disable(p); /* its counter-data image is kept for the session */
    reset(w);
    if (ok && legacy_session(p, w))
        report_ranges(p);
    return check(w);
}

static const char *run_unprofiled(work &w)
{
    reset(w);
    launch(w);
    SOFT(cuStreamSynchronize((CUstream)w.stream));
    return check(w);
}

// ---- processes -----------------------------------------------------------------------------------

static const mode_def *find_mode(const char *name)
{
    for (int i = 0; i < NMODES; ++i)
        if (strcmp(modes[i].name, name) == 0)
            return &modes[i];
    return nullptr;
}

// one mode in this process; its summary is the last line
static int run_mode(const mode_def *m)
{
    setvbuf(stdout, nullptr, _IOLBF, 0); /* lines so far survive a crash */
    alarm(CHILD_LIMIT_S);
    g_mode = m;
    printf("mode %s: %s\n", m->name, m->what);
    work w;
    work_init(w, m->null_stream);
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess)
        printf("  device: %s (sm_%d%d)\n", prop.name, prop.major, prop.minor);
    if (m->src != DIRECT && !m->late)
        graph_build(w);
    const char *res = m->api == NO_PROFILER ? run_unprofiled(w)
                      : m->api == LEGACY    ? run_legacy_mode(w)
                                            : run_range_mode(w);
    summary(res);
    return 0;
}

// forwards the child's output but its summary line, which it returns; "" at EOF, deadline or error
static std::string relay(int fd, pid_t pid, bool *timed_out)
{
    std::string buf, sum;
    time_t deadline = time(nullptr) + CHILD_LIMIT_S + 15; /* SIGALRM ends it at CHILD_LIMIT_S */
    char chunk[4096];
    *timed_out = false;
    for (;;) {
        struct pollfd pf = {fd, POLLIN, 0};
        int pr = poll(&pf, 1, 1000);
        if (time(nullptr) > deadline) {
            kill(pid, SIGKILL);
            *timed_out = true;
            break;
        }
        if (pr <= 0)
            continue;
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n <= 0)
            break;
        buf.append(chunk, (size_t)n);
        for (size_t nl; (nl = buf.find('\n')) != std::string::npos; buf.erase(0, nl + 1)) {
            std::string line = buf.substr(0, nl + 1);
            if (line.rfind("graph-nodes:", 0) == 0)
                sum = line;
            else
                fputs(line.c_str(), stdout);
        }
    }
    fputs(buf.c_str(), stdout);
    return sum;
}

// runs mode m in a child process (this program again); its summary line, or one made here
static std::string run_child(const char *self, const mode_def *m)
{
    int fd[2];
    fflush(stdout);
    if (pipe(fd) != 0)
        return std::string("graph-nodes: mode ") + m->name + " ranges ? expected ? results crash (no pipe)\n";
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        dup2(fd[1], 1);
        close(fd[1]);
        execl(self, self, m->name, (char *)nullptr);
        _exit(127);
    }
    close(fd[1]);
    bool timed_out = false;
    std::string sum = relay(fd[0], pid, &timed_out);
    close(fd[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    bool exited = WIFEXITED(st) && (WEXITSTATUS(st) == 0 || WEXITSTATUS(st) == 3);
    if (!sum.empty() && exited)
        return sum;
    char why[96];
    if (timed_out || (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM))
        snprintf(why, sizeof why, "hang (no end within %d s)", CHILD_LIMIT_S);
    else if (WIFSIGNALED(st))
        snprintf(why, sizeof why, "crash (signal %d)", WTERMSIG(st));
    else
        snprintf(why, sizeof why, "crash (exit status %d, no summary)", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    if (!sum.empty()) /* it printed its summary, then died or hung on the way out */
        printf("  after its summary: %s\n", why);
    char line[256];
    snprintf(line, sizeof line, "graph-nodes: mode %s ranges ? expected %d results %s\n", m->name, m->expected, why);
    return sum.empty() ? line : sum;
}

// the modes named (all when none), each in a child process; each summary line as it ends
static int run_children(const char *self, char **names, int n)
{
    uint32_t cupti = 0;
    int drv = 0;
    cuptiGetVersion(&cupti);
    cuDriverGetVersion(&drv);
    printf("graph_nodes_probe: K=%d kernel nodes (graph_node<0..3>), CUPTI API %u, driver CUDA %d.%d\n", K, cupti,
           drv / 1000, drv % 1000 / 10);
    for (int j = 0; j < K; ++j)
        printf("node %d: %d blocks x %d threads, %d shared atomics per thread: %.0f warp-level, result %u\n", j,
               blocks_of(j), THREADS, reps_of(j), satom_of(j), out_of(j));
    for (int i = 0; i < (n ? n : NMODES); ++i) {
        std::string sum = run_child(self, n ? find_mode(names[i]) : &modes[i]);
        fputs(sum.c_str(), stdout);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "all") == 0)
        return run_children(argv[0], nullptr, 0);
    if (argc == 2 && strcmp(argv[1], "list") == 0) {
        for (int i = 0; i < NMODES; ++i)
            printf("%-18s %s\n", modes[i].name, modes[i].what);
        return 0;
    }
    for (int i = 1; i < argc; ++i)
        if (!find_mode(argv[i])) {
            fprintf(stderr, "usage: %s all | list | MODE... (%s: unknown mode)\n", argv[0], argv[i]);
            return 2;
        }
    if (argc < 2) {
        fprintf(stderr, "usage: %s all | list | MODE... (no mode given)\n", argv[0]);
        return 2;
    }
    return argc == 2 ? run_mode(find_mode(argv[1])) : run_children(argv[0], argv + 1, argc - 1);
}
