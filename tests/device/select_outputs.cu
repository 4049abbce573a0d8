// select_outputs.cu - a deterministic program for the tests of launch selection
// (tests/device/select_check.py): one sel_init launch, then per iteration i a sel_mix launch (no
// atomics) and every K-th iteration a sel_hist launch (a 64-bin histogram in shared memory,
// integer atomics: the same counts in any order).  Each launch's grid tells which one it was:
// sel_mix of iteration i runs 1 + i % 5 blocks, the j-th sel_hist 1 << (j % 4); sel_hist always
// runs exactly N_DATA / 32 shared-atomic warp-instructions (one per element, N_DATA a multiple of
// every grid's threads).  Prints "select_outputs: checksum X launches L" (FNV-1a of the data and
// the bins at the end): a profiled run must print the same line.
//   select_outputs [-n ITERATIONS] [--hist-every K] [--profile-range A:B]
// --profile-range: cudaProfilerStart before iteration A, cudaProfilerStop after iteration B-1.
// Exit 77 without a GPU.
#include <cuda_profiler_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_DATA  (1u << 16)
#define THREADS 128
#define BINS    64

#define CUDA_CHECK_PROGRAM "select_outputs"
#include "../../calibrate/kernels/cuda_check.h"

__global__ void sel_init(unsigned *data, unsigned n)
{
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        data[i] = i * 2654435761u;
}

__global__ void sel_mix(unsigned *data, unsigned n, unsigned iter)
{
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        unsigned x = data[i] ^ (iter * 0x9e3779b9u);
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        data[i] = x;
    }
}

__global__ void sel_hist(const unsigned *data, unsigned n, unsigned *bins)
{
    __shared__ unsigned s[BINS];
    for (unsigned b = threadIdx.x; b < BINS; b += blockDim.x)
        s[b] = 0;
    __syncthreads();
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&s[data[i] % BINS], 1u);
    __syncthreads();
    for (unsigned b = threadIdx.x; b < BINS; b += blockDim.x)
        atomicAdd(&bins[b], s[b]);
}

static unsigned long long fnv1a(const void *p, size_t n, unsigned long long h)
{
    const unsigned char *b = (const unsigned char *)p;
    for (size_t i = 0; i < n; ++i)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static int usage(void)
{
    fprintf(stderr, "usage: select_outputs [-n ITERATIONS] [--hist-every K] [--profile-range A:B]\n");
    return 2;
}

static int parse(int argc, char **argv, long *iters, long *every, long *from, long *to)
{
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 >= argc)
            return -1;
        char *end;
        if (strcmp(argv[i], "-n") == 0)
            *iters = strtol(argv[i + 1], &end, 10);
        else if (strcmp(argv[i], "--hist-every") == 0)
            *every = strtol(argv[i + 1], &end, 10);
        else if (strcmp(argv[i], "--profile-range") == 0) {
            *from = strtol(argv[i + 1], &end, 10);
            if (*end != ':')
                return -1;
            *to = strtol(end + 1, &end, 10);
            if (*from < 0 || *to <= *from)
                return -1;
        } else
            return -1;
        if (*end)
            return -1;
    }
    return *iters >= 1 && *iters <= 1000000 && *every >= 1 ? 0 : -1;
}

int main(int argc, char **argv)
{
    long iters = 40, every = 4, from = -1, to = -1;
    if (parse(argc, argv, &iters, &every, &from, &to) != 0)
        return usage();
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        fprintf(stderr, "select_outputs: no CUDA device: skipped\n");
        return 77;
    }
    unsigned *data, *bins;
    CUDA_CHECK(cudaMalloc(&data, N_DATA * sizeof *data), exit(1));
    CUDA_CHECK(cudaMalloc(&bins, BINS * sizeof *bins), exit(1));
    CUDA_CHECK(cudaMemset(bins, 0, BINS * sizeof *bins), exit(1));
    sel_init<<<8, THREADS>>>(data, N_DATA);
    long launches = 1, hists = 0;
    for (long i = 0; i < iters; ++i) {
        if (i == from)
            CUDA_CHECK(cudaProfilerStart(), exit(1));
        sel_mix<<<1 + i % 5, THREADS>>>(data, N_DATA, (unsigned)i);
        ++launches;
        if (i % every == 0) {
            sel_hist<<<1u << (hists % 4), THREADS>>>(data, N_DATA, bins);
            ++hists, ++launches;
        }
        if (i == to - 1)
            CUDA_CHECK(cudaProfilerStop(), exit(1));
    }
    CUDA_CHECK(cudaGetLastError(), exit(1));
    static unsigned h_data[N_DATA];
    unsigned h_bins[BINS];
    CUDA_CHECK(cudaMemcpy(h_data, data, sizeof h_data, cudaMemcpyDeviceToHost), exit(1));
    CUDA_CHECK(cudaMemcpy(h_bins, bins, sizeof h_bins, cudaMemcpyDeviceToHost), exit(1));
    unsigned long long total = 0;
    for (int b = 0; b < BINS; ++b)
        total += h_bins[b];
    if (total != (unsigned long long)hists * N_DATA) {
        fprintf(stderr, "select_outputs: the bins hold %llu counts, want %llu\n", total,
                (unsigned long long)hists * N_DATA);
        return 1;
    }
    unsigned long long h = fnv1a(h_data, sizeof h_data, 1469598103934665603ull);
    h = fnv1a(h_bins, sizeof h_bins, h);
    printf("select_outputs: checksum %016llx launches %ld\n", h, launches);
    return 0;
}
