/*
 * sass_api_check: does CUPTI's SASS Metrics API give what atomutil needs for per-SM and
 * per-launch counts on this GPU, driver and CUPTI?  A standalone program (no atomutil code: the
 * API's own sequence as in CUPTI's sass_metrics sample, flushed from the application's thread), so
 * its result says what CUPTI does, not what atomutil does.  docs/opcodes.md has the results.
 *
 *   sass_api_check granularity   one launch of `skew` (SM 0's blocks do 8x the jobs, SM 5's 3x);
 *                                checks the GPU total (GPU granularity), then, in a second
 *                                process, that the SM-granularity instances hold the per-SM counts
 *                                (as multisets: the instance <-> %smid mapping is not assumed) and
 *                                prints which instances hold SM 0's and SM 5's counts
 *   sass_api_check after-flush   `skew`, flush, `other`, flush: does the second kernel get records?
 *   sass_api_check two-kernels   `skew`, `other`, one flush: do both kernels get records?
 *   sass_api_check all           the three above, each in its own process
 * Prints one "CHECK name: PASS|FAIL (details)" line per property; exit 0 when all pass, 1 when one
 * fails, 77 when there is no GPU or SASS metrics are not supported.
 */
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <cupti_profiler_target.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define K    256
#define SKIP 77

#define CU(call)                                                    \
    do {                                                            \
        CUptiResult r_ = (call);                                    \
        if (r_ != CUPTI_SUCCESS) {                                  \
            const char *s_ = "?";                                   \
            cuptiGetResultString(r_, &s_);                          \
            fprintf(stderr, "sass_api_check: %s: %s\n", #call, s_); \
            exit(r_ == CUPTI_ERROR_NOT_SUPPORTED ? SKIP : 2);       \
        }                                                           \
    } while (0)

/* per warp: 8 K jobs on SM 0, 3 K on SM 5, K elsewhere; records each block's SM */
__global__ void skew(unsigned *smid_out, unsigned *sink)
{
    __shared__ unsigned words[256];
    unsigned smid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    if (threadIdx.x == 0)
        smid_out[blockIdx.x] = smid;
    words[threadIdx.x] = 0;
    __syncthreads();
    unsigned reps = smid == 0 ? 8 * K : smid == 5 ? 3 * K : K, acc = 0;
    for (unsigned r = 0; r < reps; ++r)
        acc += atomicAdd(&words[threadIdx.x], 1u);
    if (acc == 0xFFFFFFFFu)
        *sink = acc;
}

__global__ void other(unsigned *sink)
{
    __shared__ unsigned words[256];
    words[threadIdx.x] = 0;
    __syncthreads();
    unsigned acc = 0;
    for (int r = 0; r < K; ++r)
        acc += atomicAdd(&words[threadIdx.x], 1u);
    if (acc == 0xFFFFFFFFu)
        *sink = acc;
}

static CUcontext ctx;
static int sms;
static unsigned *d_smid, *d_sink;
static unsigned long long expect_sm[1024]; /* jobs per %smid of one skew launch */

/* Sets up SASS metrics (one metric: shared-atomic warp-instructions) at a granularity. */
static void start(CUpti_SassMetrics_OutputGranularity gran)
{
    CUpti_Profiler_Initialize_Params pi = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    CU(cuptiProfilerInitialize(&pi));
    CUpti_Profiler_DeviceSupported_Params ds = {CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE};
    CUdevice dev;
    cuCtxGetDevice(&dev);
    ds.cuDevice = dev;
    ds.api = CUPTI_PROFILER_SASS_METRICS;
    CU(cuptiProfilerDeviceSupported(&ds));
    if (ds.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
        fprintf(stderr, "sass_api_check: SASS metrics not supported on this device\n");
        exit(SKIP);
    }
    CUpti_Device_GetChipName_Params cn = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    cn.deviceIndex = (size_t)dev;
    CU(cuptiDeviceGetChipName(&cn));
    CUpti_SassMetrics_GetProperties_Params gp = {CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE};
    gp.pChipName = cn.pChipName;
    gp.pMetricName = "smsp__sass_inst_executed_op_shared_atom";
    CU(cuptiSassMetricsGetProperties(&gp));
    CUpti_SassMetrics_Config cfg = {gp.metric.metricId, (uint8_t)gran};
    CUpti_SassMetricsSetConfig_Params sc = {CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE};
    sc.numOfMetricConfig = 1;
    sc.pConfigs = &cfg;
    sc.deviceIndex = (uint32_t)dev;
    CU(cuptiSassMetricsSetConfig(&sc));
    CUpti_SassMetricsEnable_Params en = {CUpti_SassMetricsEnable_Params_STRUCT_SIZE};
    en.ctx = ctx;
    en.enableLazyPatching = 1;
    CU(cuptiSassMetricsEnable(&en));
}

typedef struct {
    size_t records, instances;
    unsigned long long skew_total, other_total;
    unsigned long long *skew_inst; /* per instance, summed over skew's instructions */
} flushed;

static flushed flush(void)
{
    flushed f;
    memset(&f, 0, sizeof f);
    cudaDeviceSynchronize();
    CUpti_SassMetricsGetDataProperties_Params dp = {CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE};
    dp.ctx = ctx;
    CU(cuptiSassMetricsGetDataProperties(&dp));
    f.records = dp.numOfPatchedInstructionRecords;
    f.instances = dp.numOfInstances;
    if (!f.records || !f.instances)
        return f;
    CUpti_SassMetrics_Data *d = (CUpti_SassMetrics_Data *)calloc(f.records, sizeof *d);
    CUpti_SassMetrics_InstanceValue *v = (CUpti_SassMetrics_InstanceValue *)calloc(f.records * f.instances, sizeof *v);
    f.skew_inst = (unsigned long long *)calloc(f.instances, sizeof *f.skew_inst);
    for (size_t r = 0; r < f.records; ++r) {
        d[r].structSize = sizeof d[r];
        d[r].pInstanceValues = v + r * f.instances;
    }
    CUpti_SassMetricsFlushData_Params fd = {CUpti_SassMetricsFlushData_Params_STRUCT_SIZE};
    fd.ctx = ctx;
    fd.numOfPatchedInstructionRecords = f.records;
    fd.numOfInstances = f.instances;
    fd.pMetricsData = d;
    CU(cuptiSassMetricsFlushData(&fd));
    for (size_t r = 0; r < f.records; ++r) {
        int is_skew = d[r].functionName && strstr(d[r].functionName, "skew");
        for (size_t i = 0; i < f.instances; ++i) {
            unsigned long long x = d[r].pInstanceValues[i].value;
            *(is_skew ? &f.skew_total : &f.other_total) += x;
            if (is_skew)
                f.skew_inst[i] += x;
        }
        free((void *)d[r].functionName);
    }
    free(d);
    free(v);
    return f;
}

static void launch_skew(void)
{
    int blocks = 4 * sms;
    skew<<<blocks, 256>>>(d_smid, d_sink);
    if (cudaDeviceSynchronize() != cudaSuccess) {
        fprintf(stderr, "sass_api_check: skew launch failed\n");
        exit(2);
    }
    unsigned *smid = (unsigned *)malloc(blocks * sizeof *smid);
    cudaMemcpy(smid, d_smid, blocks * sizeof *smid, cudaMemcpyDeviceToHost);
    memset(expect_sm, 0, sizeof expect_sm);
    for (int b = 0; b < blocks; ++b)
        if (smid[b] < 1024)
            expect_sm[smid[b]] += 8ull * (smid[b] == 0 ? 8 * K : smid[b] == 5 ? 3 * K : K);
    free(smid);
}

static unsigned long long skew_expected_total(void)
{
    unsigned long long t = 0;
    for (int s = 0; s < 1024; ++s)
        t += expect_sm[s];
    return t;
}

static void launch_other(void)
{
    other<<<sms, 256>>>(d_sink);
    cudaDeviceSynchronize();
}

static int cmp_ull(const void *a, const void *b)
{
    unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
    return (x > y) - (x < y);
}

static int check(const char *name, int ok, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int check(const char *name, int ok, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    printf("CHECK %s: %s (%s)\n", name, ok ? "PASS" : "FAIL", buf);
    fflush(stdout);
    return ok ? 0 : 1;
}

static int run_gpu_total(void)
{
    start(CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU);
    launch_skew();
    flushed f = flush();
    unsigned long long want = skew_expected_total();
    return check("gpu-total", f.skew_total == want, "GPU granularity: %llu jobs counted, %llu executed", f.skew_total,
                 want);
}

static int run_per_sm(void)
{
    start(CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_SM);
    launch_skew();
    flushed f = flush();
    unsigned long long want = skew_expected_total();
    if (!f.instances)
        return check("per-sm", 0, "no records at SM granularity");
    /* multisets: the sorted per-instance counts against the sorted per-SM counts */
    unsigned long long *got = (unsigned long long *)malloc(f.instances * sizeof *got);
    unsigned long long *exp = (unsigned long long *)calloc(f.instances, sizeof *exp);
    memcpy(got, f.skew_inst, f.instances * sizeof *got);
    size_t ne = 0;
    for (int s = 0; s < 1024 && ne < f.instances; ++s)
        if (expect_sm[s])
            exp[ne++] = expect_sm[s];
    qsort(got, f.instances, sizeof *got, cmp_ull);
    qsort(exp, f.instances, sizeof *exp, cmp_ull);
    size_t distinct = 1, same = 0;
    for (size_t i = 1; i < f.instances; ++i)
        distinct += got[i] != got[i - 1];
    for (size_t i = 0; i < f.instances; ++i)
        same += got[i] == exp[i];
    long i0 = -1, i5 = -1;
    for (size_t i = 0; i < f.instances; ++i) {
        if (f.skew_inst[i] == expect_sm[0] && i0 < 0)
            i0 = (long)i;
        if (f.skew_inst[i] == expect_sm[5] && i5 < 0)
            i5 = (long)i;
    }
    int rc = check("per-sm-total", f.skew_total == want, "SM granularity: sum over %zu instances %llu, executed %llu",
                   f.instances, f.skew_total, want);
    rc |= check("per-sm-values", same == f.instances,
                "%zu of %zu instances match an SM's count; %zu distinct values, smallest %llu, largest %llu; "
                "SM 0 did %llu (first instance holding it: %ld), SM 5 did %llu (%ld), the others %llu or so",
                same, f.instances, distinct, got[0], got[f.instances - 1], expect_sm[0], i0, expect_sm[5], i5,
                expect_sm[1]);
    free(got);
    free(exp);
    return rc;
}

static int run_after_flush(void)
{
    start(CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU);
    launch_skew();
    flushed a = flush();
    launch_other();
    flushed b = flush();
    unsigned long long want_other = 8ull * K * sms;
    int rc = check("first-flush", a.skew_total == skew_expected_total(), "first kernel: %zu records, %llu jobs",
                   a.records, a.skew_total);
    rc |= check("after-flush", b.other_total == want_other,
                "second kernel, launched after the first flush: %zu records, %llu jobs counted, %llu executed",
                b.records, b.other_total, want_other);
    return rc;
}

static int run_two_kernels(void)
{
    start(CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU);
    launch_skew();
    launch_other();
    flushed f = flush();
    unsigned long long want_other = 8ull * K * sms;
    int rc = check("two-kernels-first", f.skew_total == skew_expected_total(), "first kernel: %llu jobs of %llu",
                   f.skew_total, skew_expected_total());
    rc |= check("two-kernels-second", f.other_total == want_other,
                "second kernel, same window, one flush: %llu jobs counted, %llu executed", f.other_total, want_other);
    return rc;
}

static int in_child(int (*fn)(void))
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        if (cuInit(0) != CUDA_SUCCESS || cudaFree(0) != cudaSuccess)
            _exit(SKIP);
        cuCtxGetCurrent(&ctx);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
        cudaMalloc(&d_smid, 4 * sms * sizeof(unsigned));
        cudaMalloc(&d_sink, sizeof(unsigned));
        _exit(fn());
    }
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 2;
}

static int run_info(void)
{
    cudaDeviceProp p;
    cudaGetDeviceProperties(&p, 0);
    int drv = 0, rt = 0;
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    uint32_t cupti = 0;
    cuptiGetVersion(&cupti);
    printf("device: %s (cc %d.%d, %d SMs), CUDA driver API %d, runtime %d, CUPTI API %u\n", p.name, p.major, p.minor,
           p.multiProcessorCount, drv, rt, cupti);
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "all";
    int all = strcmp(mode, "all") == 0;
    if (!all && strcmp(mode, "granularity") && strcmp(mode, "after-flush") && strcmp(mode, "two-kernels")) {
        fprintf(stderr, "usage: sass_api_check [all|granularity|after-flush|two-kernels]\n");
        return 2;
    }
    /* the parent never initializes CUDA (it would not survive fork): each check, and the device
     * line, run in a fresh child process */
    int (*runs[4])(void);
    int n = 0;
    runs[n++] = run_info;
    if (all || strcmp(mode, "granularity") == 0) {
        runs[n++] = run_gpu_total;
        runs[n++] = run_per_sm;
    }
    if (all || strcmp(mode, "after-flush") == 0)
        runs[n++] = run_after_flush;
    if (all || strcmp(mode, "two-kernels") == 0)
        runs[n++] = run_two_kernels;
    int failed = 0;
    for (int i = 0; i < n; ++i) {
        int rc = in_child(runs[i]);
        if (rc == SKIP || rc >= 2) {
            if (rc == SKIP)
                fprintf(stderr, "sass_api_check: skipped (no GPU, or SASS metrics not supported)\n");
            return rc == SKIP ? SKIP : 2;
        }
        failed |= rc;
    }
    return failed;
}
