/*
 * latency.cu - one dependent global load of a lone thread, in SM cycles: a single thread chases
 * pointers (one per 128-byte line, in the order the host wrote) with ld.global.cg, which skips L1,
 * and reads clock64() around the chase.  calibrate/latency.c picks the buffers (one inside L2, one
 * many times it) and writes the table's l2_hit_latency_cycles and dram_latency_cycles.  The chase
 * warms first: the TLB and, for the L2 buffer, the lines it will hit.  The same file measures
 * __match_any_sync (MATCH.ANY) with 32 distinct lane values: one block per SM, each warp a
 * dependent chain, for the table's match_any_cycles_per_value and its latency.
 */
#include "launch.h"

#include <cuda_runtime.h>

__global__ void au_cal_chase_kernel(const unsigned long long *buf, unsigned long long start, long warm, long loads,
                                    unsigned long long *out, long long *cycles)
{
    unsigned long long p = start;
    for (long i = 0; i < warm; ++i)
        p = __ldcg(buf + p);
    const long long t0 = clock64();
    for (long i = 0; i < loads; ++i)
        p = __ldcg(buf + p);
    const long long t1 = clock64();
    *out = p; /* keeps the chase */
    *cycles = t1 - t0;
}

extern "C" int au_cal_chase_launch(const unsigned long long *buf, unsigned long long start, long warm, long loads,
                                   unsigned long long *out, long long *cycles)
{
    au_cal_chase_kernel<<<1, 1>>>(buf, start, warm, loads, out, cycles);
    return (int)cudaGetLastError();
}

/* Each warp `iters` dependent MATCH.ANY of 32 distinct lane values; cycles[b]: block b's clock64()
 * span (-1 where the GPU has no MATCH, before sm_70). */
__global__ void au_cal_match_kernel(long iters, long long *cycles, unsigned *sink)
{
#if __CUDA_ARCH__ >= 700
    const unsigned lane = threadIdx.x & 31u;
    unsigned v = lane, acc = 0;
    __syncthreads();
    const long long t0 = clock64();
    for (long i = 0; i < iters; ++i) {
        const unsigned r = __match_any_sync(0xffffffffu, v);
        acc += r;
        v = lane ^ (r & 0x80000000u); /* depends on r, the 32 values stay distinct */
    }
    __syncthreads();
    const long long t1 = clock64();
    if (threadIdx.x == 0)
        cycles[blockIdx.x] = t1 - t0;
    if (acc == 0x12345678u)
        *sink = acc;
#else
    if (threadIdx.x == 0)
        cycles[blockIdx.x] = -1;
#endif
}

extern "C" int au_cal_match_launch(int blocks, int warps, long iters, long long *cycles, unsigned *sink)
{
    au_cal_match_kernel<<<blocks, 32 * warps>>>(iters, cycles, sink);
    return (int)cudaGetLastError();
}
