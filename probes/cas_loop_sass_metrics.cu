/*
 * cas_loop_sass_metrics.cu - can CUPTI's SASS metrics API (code patched to count executions per
 * instruction, no ncu) give a CAS loop's entries live, and at what cost?  The k-means update of
 * validation/advisor (two float atomicAdds to shared memory per element: the compiler's
 * ATOMS.CAST.SPIN loops) on every point in one centroid and on uniform keys, and a float
 * histogram of one value and of uniform keys: each timed plain (median of 5 launches), then
 * launched twice with smsp__sass_inst_executed patched in (one enable range each).  Prints
 * CSV: "time,KERNEL,DATA,plain_us,patched_us" and "pc,KERNEL,DATA,FUNCTION,PC_OFFSET,EXECUTIONS"
 * (per launch); probes/cas_loop_sass_metrics.py joins them with the SASS.
 *
 *   nvcc -O3 -arch=sm_90 -o cas_loop_sass_metrics probes/cas_loop_sass_metrics.cu -lcupti -lcuda
 *   cas_loop_sass_metrics [ELEMENTS [RUN]]   (RUN 0-3: one kernel and data patched, the others plain;
 *                                             one-range: all four in one enable range, a flush after
 *                                             each; env LAZY=0 patches every function at the enable,
 *                                             KEEP=1 flushes the first flush's record count again)
 *   (probes/cas_loop_sass_metrics.sh builds, runs and summarizes it)
 */
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti_profiler_target.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(x)                                                                     \
    do {                                                                          \
        cudaError_t e_ = (x);                                                     \
        if (e_ != cudaSuccess) {                                                  \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            exit(1);                                                              \
        }                                                                         \
    } while (0)
#define CU(x)                                                                          \
    do {                                                                               \
        CUptiResult r_ = (x);                                                          \
        if (r_ != CUPTI_SUCCESS) {                                                     \
            const char *s_ = "";                                                       \
            cuptiGetResultString(r_, &s_);                                             \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, s_);            \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

enum { K = 64, BLOCK = 256 };

__global__ void kmeans_float(const unsigned *key, const float *val, float *out, unsigned n)
{
    __shared__ float s[2 * K];
    for (unsigned i = threadIdx.x; i < 2 * K; i += blockDim.x)
        s[i] = 0.0f;
    __syncthreads();
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const unsigned c = key[i] & (K - 1);
        const float v = val[i];
        atomicAdd(&s[c], v);
        atomicAdd(&s[K + c], 3.0f - v);
    }
    __syncthreads();
    for (unsigned i = threadIdx.x; i < 2 * K; i += blockDim.x)
        atomicAdd(&out[i], s[i]);
}

__global__ void hist_float(const unsigned *key, const float *val, float *out, unsigned n)
{
    __shared__ float h[1024];
    for (unsigned i = threadIdx.x; i < 1024; i += blockDim.x)
        h[i] = 0.0f;
    __syncthreads();
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&h[key[i] & 1023u], val[i]);
    __syncthreads();
    for (unsigned i = threadIdx.x; i < 1024; i += blockDim.x)
        atomicAdd(&out[i], h[i]);
}

typedef void (*kfn)(const unsigned *, const float *, float *, unsigned);

static float launch_ms(kfn f, int grid, const unsigned *key, const float *val, float *out, unsigned n)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    CK(cudaEventRecord(a));
    f<<<grid, BLOCK>>>(key, val, out, n);
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    return ms;
}

/* The records of the enable range, printed as "pc,..." lines, each count divided by launches. */
static void flush(CUcontext ctx, const char *kname, const char *data, int launches)
{
    CUpti_SassMetricsGetDataProperties_Params dp = {CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE};
    dp.ctx = ctx;
    CU(cuptiSassMetricsGetDataProperties(&dp));
    fprintf(stderr, "%s %s: %zu records, %zu instances\n", kname, data, dp.numOfPatchedInstructionRecords,
            dp.numOfInstances);
    /* KEEP (one-range): flush as many records as the first flush had, where a later query says 0 */
    static size_t last = 0;
    if (getenv("KEEP")) {
        if (dp.numOfPatchedInstructionRecords > last)
            last = dp.numOfPatchedInstructionRecords;
        dp.numOfPatchedInstructionRecords = last;
        if (!dp.numOfInstances)
            dp.numOfInstances = 1;
    }
    if (dp.numOfPatchedInstructionRecords == 0)
        return;
    std::vector<CUpti_SassMetrics_Data> rec(dp.numOfPatchedInstructionRecords);
    std::vector<CUpti_SassMetrics_InstanceValue> vals(dp.numOfPatchedInstructionRecords * dp.numOfInstances);
    for (size_t i = 0; i < rec.size(); ++i) {
        rec[i].structSize = sizeof(CUpti_SassMetrics_Data);
        rec[i].pInstanceValues = &vals[i * dp.numOfInstances];
    }
    CUpti_SassMetricsFlushData_Params fp = {CUpti_SassMetricsFlushData_Params_STRUCT_SIZE};
    fp.ctx = ctx;
    fp.numOfPatchedInstructionRecords = dp.numOfPatchedInstructionRecords;
    fp.numOfInstances = dp.numOfInstances;
    fp.pMetricsData = rec.data();
    CUptiResult fr = cuptiSassMetricsFlushData(&fp);
    fprintf(stderr, "flush %s %s: rc %d\n", kname, data, (int)fr);
    if (fr != CUPTI_SUCCESS)
        return;
    for (size_t i = 0; i < rec.size(); ++i) {
        unsigned long long sum = 0;
        for (size_t j = 0; j < dp.numOfInstances; ++j)
            sum += rec[i].pInstanceValues[j].value;
        printf("pc,%s,%s,%s,%u,%llu\n", kname, data, rec[i].functionName ? rec[i].functionName : "?",
               rec[i].pcOffset, sum / (unsigned long long)launches);
    }
}

int main(int argc, char **argv)
{
    const unsigned n = argc > 1 ? (unsigned)strtoul(argv[1], 0, 0) : 2097152u;
    /* one run (0-3) of the list below, or all in turn; "one-range": all in one enable range */
    const int one_range = argc > 2 && strcmp(argv[2], "one-range") == 0;
    const int only = argc > 2 && !one_range ? atoi(argv[2]) : -1;
    int dev = 0, sms = 0;
    CK(cudaSetDevice(dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    const int grid = 4 * sms;
    std::vector<unsigned> one(n, 5u), uni(n);
    std::vector<float> val(n);
    unsigned x = 12345u;
    for (unsigned i = 0; i < n; ++i) {
        x = x * 1664525u + 1013904223u;
        uni[i] = x >> 8;
        val[i] = (float)(i % 3); /* small integers: the sums are exact in any order */
    }
    unsigned *d_one, *d_uni;
    float *d_val, *d_out;
    CK(cudaMalloc(&d_one, n * 4));
    CK(cudaMalloc(&d_uni, n * 4));
    CK(cudaMalloc(&d_val, n * 4));
    CK(cudaMalloc(&d_out, 1024 * 4));
    CK(cudaMemcpy(d_one, one.data(), n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_uni, uni.data(), n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_val, val.data(), n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemset(d_out, 0, 1024 * 4));

    struct Run {
        const char *kname, *data;
        kfn f;
        const unsigned *key;
    } runs[] = {{"kmeans_float", "one", kmeans_float, d_one},
                {"kmeans_float", "uniform", kmeans_float, d_uni},
                {"hist_float", "one", hist_float, d_one},
                {"hist_float", "uniform", hist_float, d_uni}};
    float plain[4];
    for (int r = 0; r < 4; ++r) {
        float ms[6];
        for (int i = 0; i < 6; ++i)
            ms[i] = launch_ms(runs[r].f, grid, runs[r].key, d_val, d_out, n);
        std::sort(ms + 1, ms + 6); /* ms[0]: the warm-up */
        plain[r] = ms[3];
    }

    CUcontext ctx;
    cuCtxGetCurrent(&ctx);
    CUpti_Profiler_Initialize_Params ip = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    CU(cuptiProfilerInitialize(&ip));
    CUpti_Device_GetChipName_Params cn = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    cn.deviceIndex = dev;
    CU(cuptiDeviceGetChipName(&cn));
    CUpti_SassMetrics_GetProperties_Params gp = {CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE};
    gp.pChipName = cn.pChipName;
    gp.pMetricName = "smsp__sass_inst_executed";
    CU(cuptiSassMetricsGetProperties(&gp));
    CUpti_SassMetrics_Config cfg = {gp.metric.metricId, CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU};
    CUpti_SassMetricsSetConfig_Params sc = {CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE};
    sc.numOfMetricConfig = 1;
    sc.pConfigs = &cfg;
    sc.deviceIndex = dev;
    CU(cuptiSassMetricsSetConfig(&sc));
    printf("chip,%s\n", cn.pChipName);
    /* one enable range per kernel and data: the first launch patches the code, the second is
     * timed; the counts are of both (the "pc" lines halve them).  Only a process's first range
     * gives records (on CUDA 13.0 and an H200), so the .sh runs each in a process of its own. */
    if (one_range) { /* LAZY=0: every function patched at the enable (default 1: lazily) */
        CUpti_SassMetricsEnable_Params en = {CUpti_SassMetricsEnable_Params_STRUCT_SIZE};
        en.ctx = ctx;
        en.enableLazyPatching = getenv("LAZY") ? atoi(getenv("LAZY")) : 1;
        CU(cuptiSassMetricsEnable(&en));
        for (int r = 0; r < 4; ++r) {
            launch_ms(runs[r].f, grid, runs[r].key, d_val, d_out, n);
            const float patched = launch_ms(runs[r].f, grid, runs[r].key, d_val, d_out, n);
            flush(ctx, runs[r].kname, runs[r].data, 2);
            printf("time,%s,%s,%.2f,%.2f\n", runs[r].kname, runs[r].data, plain[r] * 1e3, patched * 1e3);
        }
        CUpti_SassMetricsDisable_Params di = {CUpti_SassMetricsDisable_Params_STRUCT_SIZE};
        di.ctx = ctx;
        CU(cuptiSassMetricsDisable(&di));
    }
    for (int r = only < 0 ? 0 : only; !one_range && r < (only < 0 ? 4 : only + 1); ++r) {
        CUpti_SassMetricsEnable_Params en = {CUpti_SassMetricsEnable_Params_STRUCT_SIZE};
        en.ctx = ctx;
        en.enableLazyPatching = 1;
        CU(cuptiSassMetricsEnable(&en));
        launch_ms(runs[r].f, grid, runs[r].key, d_val, d_out, n);
        const float patched = launch_ms(runs[r].f, grid, runs[r].key, d_val, d_out, n);
        flush(ctx, runs[r].kname, runs[r].data, 2);
        CUpti_SassMetricsDisable_Params di = {CUpti_SassMetricsDisable_Params_STRUCT_SIZE};
        di.ctx = ctx;
        CU(cuptiSassMetricsDisable(&di));
        fprintf(stderr, "%s %s: dropped records %zu\n", runs[r].kname, runs[r].data, di.numOfDroppedRecords);
        printf("time,%s,%s,%.2f,%.2f\n", runs[r].kname, runs[r].data, plain[r] * 1e3, patched * 1e3);
    }
    CUpti_SassMetricsUnsetConfig_Params us = {CUpti_SassMetricsUnsetConfig_Params_STRUCT_SIZE};
    us.deviceIndex = dev;
    CU(cuptiSassMetricsUnsetConfig(&us));
    return 0;
}
