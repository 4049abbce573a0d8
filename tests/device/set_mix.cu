/*
 * set_mix: launches with and without thread block clusters interleaved, as library code makes
 * them (cuDNN's cluster kernels between element-wise kernels), to test which counter set measures
 * each launch (docs/counters.md, "Quiet kernels").  Each round launches, in this order:
 *   exchange  cluster of 2: each block reads its partner's shared memory (DSMEM loads, no atomics)
 *   scale     no cluster, no atomics
 *   late      no cluster; its shared atomics run only from round LATE_ROUND on (before it, quiet)
 *   gatom     no cluster; atomicAdd through a generic pointer that points to global memory (ATOM,
 *             not ATOMS; on the H100 the standard set still counts one shared-atomic wavefront
 *             per warp-instruction of it, so the kernel is never taken for quiet)
 *   hist      no cluster, shared-memory atomicAdd on every element (a real histogram)
 * Every result is checked on the host; exit 1 on a wrong one.  Prints "set_mix: ok (R rounds)".
 *   set_mix [ROUNDS=6]
 */
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace cg = cooperative_groups;

#define BINS       256
#define THREADS    256
#define BLOCKS     132
#define N          (1 << 20)
#define LATE_ROUND 3

#define CUDA_CHECK_PROGRAM "set_mix"
#include "../../calibrate/kernels/cuda_check.h"

__global__ void __cluster_dims__(2, 1, 1) exchange(unsigned *out)
{
    __shared__ unsigned buf[THREADS];
    cg::cluster_group cl = cg::this_cluster();
    buf[threadIdx.x] = blockIdx.x * THREADS + threadIdx.x;
    cl.sync();
    const unsigned *peer = cl.map_shared_rank(buf, cl.block_rank() ^ 1);
    out[blockIdx.x * THREADS + threadIdx.x] = peer[threadIdx.x];
    cl.sync();
}

__global__ void scale(const float *in, float *out, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        out[i] = 2.0f * in[i] + 1.0f;
}

/* This block's shared-memory histogram of data[0..n) (grid-stride), zeroed first; n == 0: no atomic. */
__device__ void block_hist(const unsigned char *data, int n, unsigned *h)
{
    for (int i = threadIdx.x; i < BINS; i += blockDim.x)
        h[i] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&h[data[i]], 1u);
    __syncthreads();
}

__global__ void hist(const unsigned char *data, int n, unsigned *out)
{
    __shared__ unsigned h[BINS];
    block_hist(data, n, h);
    for (int i = threadIdx.x; i < BINS; i += blockDim.x)
        if (h[i])
            atomicAdd(&out[i], h[i]);
}

/* the pointer is the shared array or the global one by a run-time flag, so the compiler emits a
 * generic ATOM; with to_shared == 0 every atomic goes to global memory */
__global__ void gatom(unsigned *g, int to_shared)
{
    __shared__ unsigned h[BINS];
    if (threadIdx.x < BINS)
        h[threadIdx.x] = 0;
    __syncthreads();
    unsigned *p = to_shared ? h : g;
    /* the old value is used (never true here), so it stays an ATOM, not a RED */
    if (atomicAdd(&p[threadIdx.x % BINS], 1u) == 0xffffffffu)
        g[0] = 0;
}

/* count == 0: no atomic runs (only the zeroing and the copy out) */
__global__ void late(const unsigned char *data, int count, unsigned *out)
{
    __shared__ unsigned h[BINS];
    block_hist(data, count, h);
    for (int i = threadIdx.x; i < BINS; i += blockDim.x)
        out[blockIdx.x * BINS + i] = h[i];
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 6;
    if (argc > 2 || rounds < 1 || rounds > 1000) {
        fprintf(stderr, "usage: set_mix [ROUNDS=6] (1..1000)\n");
        return 2;
    }
    unsigned char *h_data = (unsigned char *)malloc(N);
    float *h_in = (float *)malloc(N * sizeof(float)), *h_out = (float *)malloc(N * sizeof(float));
    unsigned ref[BINS] = {0};
    srand(1);
    for (int i = 0; i < N; ++i) {
        h_data[i] = (unsigned char)(rand() & 255);
        ref[h_data[i]]++;
        h_in[i] = (float)(i & 1023);
    }
    unsigned char *d_data;
    float *d_in, *d_out;
    unsigned *d_hist, *d_ex, *d_late, *d_g;
    CUDA_CHECK(cudaMalloc(&d_data, N), exit(1));
    CUDA_CHECK(cudaMalloc(&d_in, N * sizeof(float)), exit(1));
    CUDA_CHECK(cudaMalloc(&d_out, N * sizeof(float)), exit(1));
    CUDA_CHECK(cudaMalloc(&d_hist, BINS * sizeof(unsigned)), exit(1));
    CUDA_CHECK(cudaMalloc(&d_ex, BLOCKS * THREADS * sizeof(unsigned)), exit(1));
    CUDA_CHECK(cudaMalloc(&d_late, BLOCKS * BINS * sizeof(unsigned)), exit(1));
    CUDA_CHECK(cudaMalloc(&d_g, BINS * sizeof(unsigned)), exit(1));
    CUDA_CHECK(cudaMemcpy(d_data, h_data, N, cudaMemcpyHostToDevice), exit(1));
    CUDA_CHECK(cudaMemcpy(d_in, h_in, N * sizeof(float), cudaMemcpyHostToDevice), exit(1));
    unsigned *h_ex = (unsigned *)malloc(BLOCKS * THREADS * sizeof(unsigned));
    unsigned *h_late = (unsigned *)malloc(BLOCKS * BINS * sizeof(unsigned));
    unsigned h_hist[BINS], h_g[BINS];
    for (int r = 0; r < rounds; ++r) {
        CUDA_CHECK(cudaMemset(d_hist, 0, BINS * sizeof(unsigned)), exit(1));
        CUDA_CHECK(cudaMemset(d_g, 0, BINS * sizeof(unsigned)), exit(1));
        exchange<<<BLOCKS, THREADS>>>(d_ex);
        CUDA_CHECK(cudaGetLastError(), exit(1));
        scale<<<BLOCKS, THREADS>>>(d_in, d_out, N);
        CUDA_CHECK(cudaGetLastError(), exit(1));
        int count = r >= LATE_ROUND ? N : 0;
        late<<<BLOCKS, THREADS>>>(d_data, count, d_late);
        CUDA_CHECK(cudaGetLastError(), exit(1));
        gatom<<<BLOCKS, THREADS>>>(d_g, 0);
        CUDA_CHECK(cudaGetLastError(), exit(1));
        hist<<<BLOCKS, THREADS>>>(d_data, N, d_hist);
        CUDA_CHECK(cudaGetLastError(), exit(1));
        CUDA_CHECK(cudaDeviceSynchronize(), exit(1));
        CUDA_CHECK(cudaMemcpy(h_ex, d_ex, BLOCKS * THREADS * sizeof(unsigned), cudaMemcpyDeviceToHost), exit(1));
        CUDA_CHECK(cudaMemcpy(h_out, d_out, N * sizeof(float), cudaMemcpyDeviceToHost), exit(1));
        CUDA_CHECK(cudaMemcpy(h_hist, d_hist, sizeof h_hist, cudaMemcpyDeviceToHost), exit(1));
        CUDA_CHECK(cudaMemcpy(h_g, d_g, sizeof h_g, cudaMemcpyDeviceToHost), exit(1));
        for (int i = 0; i < BINS; ++i)
            if (h_g[i] != BLOCKS * (THREADS / BINS)) {
                fprintf(stderr, "set_mix: round %d: gatom's global counts wrong at %d\n", r, i);
                return 1;
            }
        CUDA_CHECK(cudaMemcpy(h_late, d_late, BLOCKS * BINS * sizeof(unsigned), cudaMemcpyDeviceToHost), exit(1));
        for (int b = 0; b < BLOCKS; ++b)
            for (int t = 0; t < THREADS; ++t)
                if (h_ex[b * THREADS + t] != (unsigned)((b ^ 1) * THREADS + t)) {
                    fprintf(stderr, "set_mix: round %d: exchange wrong at block %d thread %d\n", r, b, t);
                    return 1;
                }
        for (int i = 0; i < N; ++i)
            if (h_out[i] != 2.0f * h_in[i] + 1.0f) {
                fprintf(stderr, "set_mix: round %d: scale wrong at %d\n", r, i);
                return 1;
            }
        if (memcmp(h_hist, ref, sizeof ref) != 0) {
            fprintf(stderr, "set_mix: round %d: wrong histogram\n", r);
            return 1;
        }
        static const unsigned zero[BINS] = {0};
        unsigned sum[BINS] = {0};
        for (int b = 0; b < BLOCKS; ++b)
            for (int i = 0; i < BINS; ++i)
                sum[i] += h_late[b * BINS + i];
        if (count ? memcmp(sum, ref, sizeof ref) != 0 : memcmp(sum, zero, sizeof sum) != 0) {
            fprintf(stderr, "set_mix: round %d: late kernel's histogram wrong\n", r);
            return 1;
        }
    }
    printf("set_mix: ok (%d rounds)\n", rounds);
    return 0;
}
