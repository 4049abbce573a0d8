/*
 * dsmem.cu - the kernel of the dsmem families: atomicAdd(unsigned *, 1u), result used, on
 * distributed shared memory through cluster.map_shared_rank -> the generic ATOM.E.ADD (its own
 * rank's memory included: the pointer is chosen at run time).  Its own harness, not harness.cuh's
 * two blocks per SM: one block of n warps per SM (the host gives each block more than half an SM's
 * shared memory and checks %smid), clusters of 2 to 16 blocks, every warp k jobs on words of the
 * rank (own rank + shift) % cluster size, or rank 0 (shift < 0: hot).  A pass starts at a cluster barrier; a block's cycles run
 * from thread 0's clock read after it to thread 0's clock read after a block barrier that every
 * warp reaches only with its last result.  Why: docs/calibration.md, "Distributed shared memory
 * (cluster) families".
 */
#include "clock.cuh"
#include "cluster_launch.cuh"
#include "launch.h"
#include "ops.cuh"

#include <cooperative_groups.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

/* Words the jobs use: 32 per warp (a row of 32 banks), 32 warps. */
#define AU_CAL_DSMEM_WORDS 1024

__global__ void __launch_bounds__(1024, 1) au_cal_dsmem_kernel(au_cal_dsmem_args g)
{
    extern __shared__ unsigned au_dsmem_bins[];
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    cg::cluster_group cl = cg::this_cluster();
    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
    for (int i = tid; i < AU_CAL_DSMEM_WORDS; i += blockDim.x)
        au_dsmem_bins[i] = 0;
    if (tid == 0)
        g.smid[blockIdx.x] = (int)au_smid();
    /* Each warp owns row `warp` (row = 1: all warps share row 0); lane l takes word
     * (l % (32 / a) + warp) % 32 of it: 32 / a words in distinct banks, a lanes on each, and the
     * warps' words rotated by the warp index, so that with a = 32 every warp's one word lies in its
     * own bank (row = 1: the pattern probe's one word per warp; docs/calibration.md, "Distributed
     * shared memory (cluster) families").
     * Measured (H100): at a = 32, n = 32 a remote job costs 111 cycles with a row per warp (with or
     * without the rotation) and 240 with every warp's word in one row (row = 1, the probe's one word
     * per warp): the warps' requests to one 128-byte row serialize.  The counters cannot tell the
     * two apart; the model gives such launches a range (docs/model.md, "DSMEM").
     * The pointer is computed once, before the passes: a special-register read after the release
     * would wait behind jobs already queued. */
    const unsigned size = cl.num_blocks();
    /* hot (shift < 0): every block on rank 0, every warp on the same 32 / a words of row 0, so
     * rank 0's SM serves the whole cluster's jobs */
    const unsigned target = g.shift < 0 ? 0u : (cl.block_rank() + (unsigned)g.shift) % size;
    unsigned *const p = cl.map_shared_rank(au_dsmem_bins, target) +
                        (g.shift < 0 ? lane % (32 / g.a) : (g.row ? 0 : warp * 32) + (lane % (32 / g.a) + warp) % 32);
    const int k = g.k;
    unsigned acc = 0;
    /* pass 0 warms up (instruction cache, the words, the path to the target); the rest are timed */
    for (int pass = 0; pass < g.passes; ++pass) {
        cl.sync(); /* the blocks of a cluster start together (and the words are zeroed) */
        const long long t0 = au_clock();
        /* 8 independent jobs per iteration on a loop-invariant address: a warp keeps several in
         * flight, as the ATOMS harness does */
#pragma unroll 8
        for (int i = 0; i < k; ++i)
            acc += au_ops::add::job(p, 1u);
        if (acc == g.guard) /* runtime-false: keeps every job alive, and needs every result */
            g.sink[tid] = acc;
        __syncthreads();
        if (tid == 0 && pass > 0)
            g.cycles[(size_t)(pass - 1) * gridDim.x + blockIdx.x] = au_clock() - t0;
    }
    cl.sync(); /* no block leaves while the others' jobs may still reach its shared memory */
#else
    (void)au_dsmem_bins;
    if (threadIdx.x == 0) /* built without sm_90 code: the host rejects the launch */
        g.smid[blockIdx.x] = -1;
#endif
}

/* The launch configuration: clusters * cluster blocks in clusters of `cluster`. */
static cudaLaunchConfig_t au_dsmem_config(int cluster, int clusters, int block_threads, int smem_bytes,
                                          cudaLaunchAttribute *attr)
{
    return au_cluster_config((unsigned)(cluster * clusters), (unsigned)block_threads, (size_t)smem_bytes,
                             (unsigned)cluster, attr);
}

extern "C" int au_cal_dsmem_setup(int smem_bytes)
{
    cudaError_t e = cudaFuncSetAttribute(au_cal_dsmem_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes);
    if (e == cudaSuccess)
        e = cudaFuncSetAttribute(au_cal_dsmem_kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    return (int)e;
}

extern "C" int au_cal_dsmem_max_clusters(int cluster, int block_threads, int smem_bytes, int *clusters)
{
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t cfg = au_dsmem_config(cluster, 1, block_threads, smem_bytes, &attr);
    return (int)cudaOccupancyMaxActiveClusters(clusters, au_cal_dsmem_kernel, &cfg);
}

extern "C" int au_cal_dsmem_launch(const au_cal_dsmem_args *args, int cluster, int clusters, int block_threads,
                                   int smem_bytes)
{
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t cfg = au_dsmem_config(cluster, clusters, block_threads, smem_bytes, &attr);
    return (int)cudaLaunchKernelEx(&cfg, au_cal_dsmem_kernel, *args);
}
