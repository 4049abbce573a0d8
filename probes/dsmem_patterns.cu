/*
 * dsmem_patterns.cu - issue 12: which counters see which distributed-shared-memory atomics, and
 * what they cost per SM.  One block of 1024 threads (32 warps) per SM (120 KB of dynamic shared
 * memory), clusters of C = 1, 2, 4, 8, 16 blocks; each thread does iters x 8 atomicAdd(p, 1u)
 * through cluster.map_shared_rank, result used (use 1) or unused (use 0), on
 *   mode 1: its own rank, 2: the next rank (ring), 3: rank 0 (every block of the cluster),
 *   4: rank (r + lane) % C (one instruction, several ranks), 5: a hashed rank per thread;
 * lane pattern 0: 32 distinct words, 1: one word per warp, 2: 32 words of one bank, 3: hashed.
 * Prints per case the median and largest over blocks of block cycles per warp-job (= per SM).
 * "quick" (second argument) runs the subset profiled under ncu.  Build and run:
 * probes/dsmem_patterns.sh.  Standalone (sm_90).
 */
#include <cooperative_groups.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
namespace cg = cooperative_groups;
#define CUDA_CHECK_PROGRAM "dsmem_patterns"
#include "../calibrate/kernels/cuda_check.h"
#define CK(x) CUDA_CHECK(x, exit(1))
struct A {
    long long *t0, *t1;
    unsigned *sink;
    int iters, mode, pattern;
};
__device__ __forceinline__ unsigned hsh(unsigned x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}
template <int USE> __global__ void k_ds(A g)
{
    extern __shared__ unsigned bins[]; // 2048 words used
    cg::cluster_group cl = cg::this_cluster();
    for (int i = threadIdx.x; i < 2048; i += blockDim.x)
        bins[i] = 0;
    cl.sync();
    unsigned r = cl.block_rank(), C = cl.num_blocks();
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    unsigned tgt = g.mode == 1   ? r
                   : g.mode == 2 ? (r + 1) % C
                   : g.mode == 3 ? 0
                   : g.mode == 4 ? (r + lane) % C
                                 : hsh(threadIdx.x * 7919 + blockIdx.x) % C;
    unsigned off = g.pattern == 0   ? (w * 32 + lane) % 1024
                   : g.pattern == 1 ? (w % 32)
                   : g.pattern == 2 ? lane * 32 + (w % 32)
                                    : hsh(threadIdx.x + 1000 * blockIdx.x) % 1024;
    unsigned *p = cl.map_shared_rank(bins, tgt) + off;
    long long t0 = clock64();
    unsigned acc = 0;
    for (int i = 0; i < g.iters; ++i) {
#pragma unroll
        for (int u = 0; u < 8; ++u) {
            if (USE)
                acc += atomicAdd(p, 1u);
            else
                atomicAdd(p, 1u);
        }
    }
    if (acc == 0xdeadbeef)
        g.sink[0] = acc;
    __syncthreads();
    long long t1 = clock64();
    cl.sync();
    if (threadIdx.x == 0) {
        g.t0[blockIdx.x] = t0;
        g.t1[blockIdx.x] = t1;
    }
}
// the CUDA Programming Guide's cluster histogram, in its shape
__global__ void clusterHist_kernel(int *bins, const int nbins, const int bins_per_block, const int *__restrict__ input,
                                   size_t array_size)
{
    extern __shared__ int smem[];
    int tid = cg::this_grid().thread_rank();
    cg::cluster_group cluster = cg::this_cluster();
    unsigned int clusterBlockRank = cluster.block_rank();
    int cluster_size = cluster.dim_blocks().x;
    for (int i = threadIdx.x; i < bins_per_block; i += blockDim.x)
        smem[i] = 0;
    cluster.sync();
    for (int i = tid; i < array_size; i += blockDim.x * gridDim.x) {
        int ldata = input[i];
        int binid = ldata;
        if (ldata < 0)
            binid = 0;
        else if (ldata >= nbins)
            binid = nbins - 1;
        int dst_block_rank = (int)(binid / bins_per_block);
        int dst_offset = binid % bins_per_block;
        int *dst_smem = cluster.map_shared_rank(smem, dst_block_rank);
        atomicAdd(dst_smem + dst_offset, 1);
    }
    cluster.sync();
    int *lbins = bins + cluster.block_rank() * bins_per_block;
    for (int i = threadIdx.x; i < bins_per_block; i += blockDim.x)
        atomicAdd(&lbins[i], smem[i]);
    (void)clusterBlockRank;
    (void)cluster_size;
}
int main(int argc, char **argv)
{
    int nsm;
    CK(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, 0));
    int iters = argc > 1 ? atoi(argv[1]) : 256;
    int quick = argc > 2;
    int grid = nsm, smem = 120 * 1024; // one block per SM
    CK(cudaFuncSetAttribute(k_ds<0>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    CK(cudaFuncSetAttribute(k_ds<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    CK(cudaFuncSetAttribute(k_ds<0>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    CK(cudaFuncSetAttribute(k_ds<1>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    A a;
    memset(&a, 0, sizeof a);
    CK(cudaMalloc(&a.t0, grid * 8));
    CK(cudaMalloc(&a.t1, grid * 8));
    CK(cudaMalloc(&a.sink, 4));
    a.iters = iters;
    long long t0[1024], t1[1024];
    printf("case,cluster,mode,pattern,use,warps,blocks,cycles_per_job_median,cycles_per_job_max\n");
    int csz[] = {1, 2, 4, 8, 16};
    int wz[] = {32, 8};
    for (int wi = 0; wi < (quick ? 1 : 2); ++wi)
        for (int ci = 0; ci < 5; ++ci)
            for (int mode = 1; mode <= 5; ++mode)
                for (int pat = 0; pat < 4; ++pat)
                    for (int use = 0; use < 2; ++use) {
                        int C = csz[ci];
                        if (C == 1 && mode != 1)
                            continue;
                        if (quick && (C == 1 || C == 16 || (C == 8 && mode != 2) || pat == 3 && mode != 5))
                            continue;
                        a.mode = mode;
                        a.pattern = pat;
                        int blocks = (grid / C) * C;
                        cudaLaunchConfig_t cfg = {};
                        cfg.gridDim = dim3(blocks);
                        cfg.blockDim = dim3(wz[wi] * 32);
                        cfg.dynamicSmemBytes = smem;
                        cudaLaunchAttribute at[1];
                        at[0].id = cudaLaunchAttributeClusterDimension;
                        at[0].val.clusterDim.x = C;
                        at[0].val.clusterDim.y = 1;
                        at[0].val.clusterDim.z = 1;
                        cfg.attrs = at;
                        cfg.numAttrs = 1;
                        int ncl = 0;
                        if (use)
                            CK(cudaOccupancyMaxActiveClusters(&ncl, k_ds<1>, &cfg));
                        else
                            CK(cudaOccupancyMaxActiveClusters(&ncl, k_ds<0>, &cfg));
                        if (ncl * C < blocks) {
                            blocks = ncl * C;
                            cfg.gridDim = dim3(blocks);
                        }
                        for (int rep = 0; rep < (quick ? 1 : 2); ++rep) {
                            if (use)
                                CK(cudaLaunchKernelEx(&cfg, k_ds<1>, a));
                            else
                                CK(cudaLaunchKernelEx(&cfg, k_ds<0>, a));
                            CK(cudaDeviceSynchronize());
                        }
                        CK(cudaMemcpy(t0, a.t0, blocks * 8, cudaMemcpyDeviceToHost));
                        CK(cudaMemcpy(t1, a.t1, blocks * 8, cudaMemcpyDeviceToHost));
                        double v[1024];
                        int n = 0;
                        for (int b = 0; b < blocks; ++b)
                            v[n++] = (double)(t1[b] - t0[b]) / ((double)wz[wi] * iters * 8);
                        for (int i = 1; i < n; i++) {
                            double x = v[i];
                            int j = i - 1;
                            while (j >= 0 && v[j] > x) {
                                v[j + 1] = v[j];
                                j--;
                            }
                            v[j + 1] = x;
                        }
                        printf("c%d_m%d_p%d_u%d_w%d,%d,%d,%d,%d,%d,%d,%.3f,%.3f\n", C, mode, pat, use, wz[wi], C, mode,
                               pat, use, wz[wi], blocks, v[n / 2], v[n - 1]);
                    }
    return 0;
}
