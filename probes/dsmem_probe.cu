/*
 * dsmem_probe.cu - groundwork for issue 12: what distributed-shared-memory (thread block cluster)
 * atomics compile to, what they cost and which counters see them.  One kernel, 1024 threads per
 * block, clusters of C = 1, 2, 4, 8 blocks; each thread does iters x 8 atomicAdd(p, 1u), result
 * used, on
 *   mode 0: its block's shared memory through a generic pointer (the compiler makes every mode a
 *           generic ATOM, since the pointer is chosen at run time),
 *   mode 1: its own rank's shared memory through cluster.map_shared_rank,
 *   mode 2: the next rank's (remote),
 *   mode 3: rank 0's (every block of the cluster on one block's shared memory),
 * with lane pattern 0 (32 lanes, distinct words) or 1 (all lanes of a warp on one word).
 * Prints per case the median over blocks of (block's clock at end - at start) / the block's
 * warp-jobs (32 warps x iters x 8).  Build and run: probes/dsmem_probe.sh.  Standalone (sm_90).
 */
#include <cooperative_groups.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
namespace cg = cooperative_groups;
#define CUDA_CHECK_PROGRAM "dsmem_probe"
#include "../calibrate/kernels/cuda_check.h"
#define CK(x) CUDA_CHECK(x, exit(1))
struct A {
    long long *t0, *t1;
    unsigned *smid, *sink;
    int iters, mode, pattern;
};
// mode 0: own block's smem (plain shared), 1: own rank via map_shared_rank, 2: rank (r+1)%C, 3: all to rank 0
__global__ void k_dsmem(A g)
{
    __shared__ unsigned bins[1024];
    cg::cluster_group cl = cg::this_cluster();
    for (int i = threadIdx.x; i < 1024; i += blockDim.x)
        bins[i] = 0;
    cl.sync();
    unsigned r = cl.block_rank(), C = cl.num_blocks();
    unsigned tgt = g.mode == 2 ? (r + 1) % C : g.mode == 3 ? 0 : r;
    unsigned *base = g.mode == 0 ? bins : cl.map_shared_rank(bins, tgt);
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    unsigned *p = base + (g.pattern == 0 ? (w * 32 + lane) % 1024 : (w % 32));
    long long t0 = clock64();
    unsigned acc = 0;
    for (int i = 0; i < g.iters; ++i) {
#pragma unroll
        for (int u = 0; u < 8; ++u)
            acc += atomicAdd(p, 1u);
    }
    if (acc == 0xdeadbeef)
        g.sink[0] = acc;
    __syncthreads();
    long long t1 = clock64();
    cl.sync();
    if (threadIdx.x == 0) {
        unsigned id;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
        g.t0[blockIdx.x] = t0;
        g.t1[blockIdx.x] = t1;
        g.smid[blockIdx.x] = id;
    }
}
int main(int argc, char **argv)
{
    int nsm;
    CK(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, 0));
    int iters = argc > 1 ? atoi(argv[1]) : 256;
    int grid = 2 * nsm; // 2 blocks per SM of 1024 threads? cluster blocks must be co-scheduled
    A a;
    memset(&a, 0, sizeof a);
    CK(cudaMalloc(&a.t0, grid * 8));
    CK(cudaMalloc(&a.t1, grid * 8));
    CK(cudaMalloc(&a.smid, grid * 4));
    CK(cudaMalloc(&a.sink, 4));
    a.iters = iters;
    long long *t0 = (long long *)malloc(grid * 8), *t1 = (long long *)malloc(grid * 8);
    unsigned *sm = (unsigned *)malloc(grid * 4);
    printf("case,cluster,mode,pattern,cycles_per_job_median_block\n");
    int csz[] = {1, 2, 4, 8};
    for (int ci = 0; ci < 4; ++ci)
        for (int mode = 0; mode < 4; ++mode)
            for (int pat = 0; pat < 2; ++pat) {
                int C = csz[ci];
                if (C == 1 && mode >= 2)
                    continue;
                a.mode = mode;
                a.pattern = pat;
                cudaLaunchConfig_t cfg = {};
                cfg.gridDim = dim3((grid / C) * C);
                cfg.blockDim = dim3(1024);
                cudaLaunchAttribute at[1];
                at[0].id = cudaLaunchAttributeClusterDimension;
                at[0].val.clusterDim.x = C;
                at[0].val.clusterDim.y = 1;
                at[0].val.clusterDim.z = 1;
                cfg.attrs = at;
                cfg.numAttrs = 1;
                for (int rep = 0; rep < 2; ++rep) {
                    CK(cudaLaunchKernelEx(&cfg, k_dsmem, a));
                    CK(cudaDeviceSynchronize());
                }
                CK(cudaMemcpy(t0, a.t0, grid * 8, cudaMemcpyDeviceToHost));
                CK(cudaMemcpy(t1, a.t1, grid * 8, cudaMemcpyDeviceToHost));
                double v[1024];
                int n = 0;
                for (int b = 0; b < (grid / C) * C; ++b)
                    v[n++] = (double)(t1[b] - t0[b]) / (32.0 * iters * 8);
                // per-block cycles per warp-job as seen by one block (32 warps): block time / jobs of the block
                for (int i = 1; i < n; i++) {
                    double x = v[i];
                    int j = i - 1;
                    while (j >= 0 && v[j] > x) {
                        v[j + 1] = v[j];
                        j--;
                    }
                    v[j + 1] = x;
                }
                printf("c%d_m%d_p%d,%d,%d,%d,%.3f\n", C, mode, pat, C, mode, pat, v[n / 2]);
            }
    return 0;
}
