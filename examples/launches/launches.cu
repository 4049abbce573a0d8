/*
 * launches: many kernel launches in the shapes real programs use (profiling target, links nothing
 * of atomutil).  Each launch is a small shared-memory histogram of a random byte buffer, with the
 * launch API, streams, host threads and CUDA graphs chosen on the command line:
 *   launches -n 64                 64 launches on the default stream
 *   launches -n 64 -s 8 -t 4       4 host threads, each launching on 8 streams of its own
 *   launches -n 64 --graph         the launches captured into a CUDA graph and replayed once
 *   launches --ex                  cudaLaunchKernelEx instead of <<<>>>
 *   launches -n 64 -t 2 --devices 2  host thread i launches on GPU i % 2 (multi-GPU runs)
 *   launches -n 64 --reset-every 8   cudaDeviceReset after every 8 launches (one thread): a new
 *                                    context for each 8, its first launch right after its creation
 * Results are checked against a CPU histogram; the program prints one line with its wall time.
 * For the hostile runs of tests/hostile, the program can also end abnormally right after its N-th
 * launch call returned (counted over all threads):
 *   --crash-after N         a store through a null pointer (SIGSEGV)
 *   --exit-thread-after N   exit(3) from the launching thread (never the main thread)
 *   --kill-after N          SIGKILL to itself
 */
#include <cuda_runtime.h>

#include <atomic>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BINS        256
#define MAX_DEVICES 16

#define CUDA_CHECK_PROGRAM "launches"
#include "../../calibrate/kernels/cuda_check.h"

__global__ void small_hist(const unsigned char *data, size_t n, unsigned *out)
{
    __shared__ unsigned h[BINS];
    for (int i = threadIdx.x; i < BINS; i += blockDim.x)
        h[i] = 0;
    __syncthreads();
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        atomicAdd(&h[data[i]], 1u);
    __syncthreads();
    for (int i = threadIdx.x; i < BINS; i += blockDim.x)
        if (h[i])
            atomicAdd(&out[i], h[i]);
}

static struct {
    int launches, streams, threads, graph, ex, devices;
    int crash_after, exit_after, kill_after; /* 0: off */
    int reset_every;                         /* 0: off */
    size_t bytes;
    const unsigned char *h_data;
    const unsigned char *d_data[MAX_DEVICES]; /* the input, one copy per device */
    unsigned ref[BINS];
} cfg = {64, 1, 1, 0, 0, 1, 0, 0, 0, 0, 1 << 20, NULL, {NULL}, {0}};

static std::atomic<int> launched(0);
/* read through a volatile pointer: the compiler cannot prove the store below dereferences null
 * (it would turn a known null store into a trap, SIGILL instead of SIGSEGV) */
static volatile int *volatile crash_ptr = NULL;

/* After each launch call (not the ones captured into a graph): the abnormal ends of the hostile
 * runs, right after the N-th launch over all threads returned. */
static void after_launch(void)
{
    int n = ++launched;
    if (n == cfg.crash_after) {
        fprintf(stderr, "launches: segfaulting after launch %d (--crash-after)\n", n);
        *crash_ptr = 1;
    }
    if (n == cfg.exit_after) {
        fprintf(stderr, "launches: exit(3) from a launching thread after launch %d (--exit-thread-after)\n", n);
        exit(3);
    }
    if (n == cfg.kill_after) {
        fprintf(stderr, "launches: SIGKILL to itself after launch %d (--kill-after)\n", n);
        kill(getpid(), SIGKILL);
    }
}

static void launch_one(const unsigned char *data, cudaStream_t s, unsigned *out)
{
    if (cfg.ex) {
        cudaLaunchConfig_t lc;
        memset(&lc, 0, sizeof lc);
        lc.gridDim = dim3(132);
        lc.blockDim = dim3(256);
        lc.stream = s;
        CUDA_CHECK(cudaLaunchKernelEx(&lc, small_hist, data, cfg.bytes, out), exit(1));
    } else {
        small_hist<<<132, 256, 0, s>>>(data, cfg.bytes, out);
        CUDA_CHECK(cudaGetLastError(), exit(1));
    }
}

/* The input on device d (again after a reset). */
static void upload(int d)
{
    unsigned char *d_data;
    CUDA_CHECK(cudaSetDevice(d), exit(1));
    CUDA_CHECK(cudaMalloc(&d_data, cfg.bytes), exit(1));
    CUDA_CHECK(cudaMemcpy(d_data, cfg.h_data, cfg.bytes, cudaMemcpyHostToDevice), exit(1));
    cfg.d_data[d] = d_data;
}

static void run_launches(int tid, int n);

/* One host thread: its own streams and output buffers on device tid % devices;
 * launches/threads launches in all (with --reset-every, in parts, the device reset between). */
static void *worker(void *arg)
{
    int tid = (int)(size_t)arg, n = cfg.launches / cfg.threads + (tid < cfg.launches % cfg.threads);
    for (int done = 0, part; done < n; done += part) {
        part = cfg.reset_every && cfg.reset_every < n - done ? cfg.reset_every : n - done;
        if (done > 0) {
            CUDA_CHECK(cudaDeviceReset(), exit(1));
            upload(0);
        }
        run_launches(tid, part);
    }
    return NULL;
}

static void run_launches(int tid, int n)
{
    int dev = tid % cfg.devices;
    const unsigned char *data = cfg.d_data[dev];
    CUDA_CHECK(cudaSetDevice(dev), exit(1));
    cudaStream_t *st = (cudaStream_t *)calloc((size_t)cfg.streams, sizeof *st);
    unsigned *d_out;
    CUDA_CHECK(cudaMalloc(&d_out, (size_t)n * BINS * sizeof(unsigned)), exit(1));
    CUDA_CHECK(cudaMemset(d_out, 0, (size_t)n * BINS * sizeof(unsigned)), exit(1));
    for (int i = 0; i < cfg.streams; ++i)
        CUDA_CHECK(cudaStreamCreateWithFlags(&st[i], cudaStreamNonBlocking), exit(1));
    if (cfg.graph) {
        cudaGraph_t g;
        cudaGraphExec_t ge;
        CUDA_CHECK(cudaStreamBeginCapture(st[0], cudaStreamCaptureModeThreadLocal), exit(1));
        for (int i = 0; i < n; ++i)
            launch_one(data, st[0], d_out + (size_t)i * BINS);
        CUDA_CHECK(cudaStreamEndCapture(st[0], &g), exit(1));
        CUDA_CHECK(cudaGraphInstantiate(&ge, g, 0), exit(1));
        CUDA_CHECK(cudaGraphLaunch(ge, st[0]), exit(1));
        CUDA_CHECK(cudaStreamSynchronize(st[0]), exit(1));
        CUDA_CHECK(cudaGraphExecDestroy(ge), exit(1));
        CUDA_CHECK(cudaGraphDestroy(g), exit(1));
    } else {
        for (int i = 0; i < n; ++i) {
            launch_one(data, st[i % cfg.streams], d_out + (size_t)i * BINS);
            after_launch();
        }
    }
    CUDA_CHECK(cudaDeviceSynchronize(), exit(1));
    unsigned *h = (unsigned *)malloc((size_t)n * BINS * sizeof(unsigned));
    CUDA_CHECK(cudaMemcpy(h, d_out, (size_t)n * BINS * sizeof(unsigned), cudaMemcpyDeviceToHost), exit(1));
    for (int i = 0; i < n; ++i)
        if (memcmp(h + (size_t)i * BINS, cfg.ref, sizeof cfg.ref) != 0) {
            fprintf(stderr, "launches: thread %d launch %d: wrong histogram\n", tid, i);
            exit(1);
        }
    free(h);
    for (int i = 0; i < cfg.streams; ++i)
        CUDA_CHECK(cudaStreamDestroy(st[i]), exit(1));
    CUDA_CHECK(cudaFree(d_out), exit(1));
    free(st);
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {{"launches", required_argument, 0, 'n'},
                                         {"streams", required_argument, 0, 's'},
                                         {"threads", required_argument, 0, 't'},
                                         {"graph", no_argument, 0, 'g'},
                                         {"ex", no_argument, 0, 'x'},
                                         {"devices", required_argument, 0, 'd'},
                                         {"crash-after", required_argument, 0, 'C'},
                                         {"exit-thread-after", required_argument, 0, 'E'},
                                         {"kill-after", required_argument, 0, 'K'},
                                         {"reset-every", required_argument, 0, 'R'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "n:s:t:gxh", opts, NULL)) != -1) {
        switch (c) {
        case 'n': cfg.launches = atoi(optarg); break;
        case 's': cfg.streams = atoi(optarg); break;
        case 't': cfg.threads = atoi(optarg); break;
        case 'g': cfg.graph = 1; break;
        case 'x': cfg.ex = 1; break;
        case 'd': cfg.devices = atoi(optarg); break;
        case 'C': cfg.crash_after = atoi(optarg); break;
        case 'E': cfg.exit_after = atoi(optarg); break;
        case 'K': cfg.kill_after = atoi(optarg); break;
        case 'R': cfg.reset_every = atoi(optarg); break;
        case 'h':
            puts("usage: launches [-n LAUNCHES=64] [-s STREAMS=1] [-t THREADS=1] [--graph] [--ex]\n"
                 "                [--devices N=1] [--crash-after N] [--exit-thread-after N] [--kill-after N]\n"
                 "                [--reset-every N (one thread, one device, no graph)]");
            return 0;
        default: return 2;
        }
    }
    if (optind < argc || cfg.launches < 1 || cfg.streams < 1 || cfg.threads < 1 || cfg.threads > 64 ||
        cfg.launches < cfg.threads || cfg.devices < 1 || cfg.devices > MAX_DEVICES || cfg.crash_after < 0 ||
        cfg.exit_after < 0 || cfg.kill_after < 0 || cfg.reset_every < 0 ||
        (cfg.reset_every && (cfg.threads > 1 || cfg.devices > 1 || cfg.graph))) {
        fprintf(stderr, "launches: bad arguments (see --help)\n");
        return 2;
    }
    if (cfg.devices > 1) {
        int count = 0;
        CUDA_CHECK(cudaGetDeviceCount(&count), exit(1));
        if (count < cfg.devices) {
            fprintf(stderr, "launches: --devices %d but %d device(s) visible\n", cfg.devices, count);
            return 2;
        }
    }
    unsigned char *h_data = (unsigned char *)malloc(cfg.bytes);
    unsigned long long s = 88172645463325252ull;
    for (size_t i = 0; i < cfg.bytes; ++i) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        h_data[i] = (unsigned char)s;
        cfg.ref[h_data[i]]++;
    }
    cfg.h_data = h_data;
    for (int d = 0; d < cfg.devices; ++d)
        upload(d);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pthread_t th[64];
    for (int i = 0; i < cfg.threads; ++i)
        pthread_create(&th[i], NULL, worker, (void *)(size_t)i);
    for (int i = 0; i < cfg.threads; ++i)
        pthread_join(th[i], NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("launches=%d streams=%d threads=%d graph=%d ex=%d wall_ms=%.3f\n", cfg.launches, cfg.streams, cfg.threads,
           cfg.graph, cfg.ex, (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
    for (int d = 0; d < cfg.devices; ++d) {
        CUDA_CHECK(cudaSetDevice(d), exit(1));
        CUDA_CHECK(cudaFree((void *)cfg.d_data[d]), exit(1));
    }
    free(h_data);
    return 0;
}
