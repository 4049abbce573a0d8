/*
 * latency.cu - one dependent global load of a lone thread, in SM cycles: a single thread chases
 * pointers (one per 128-byte line, in the order the host wrote) with ld.global.cg, which skips L1,
 * and reads clock64() around the chase.  calibrate/latency.c picks the buffers (one inside L2, one
 * many times it) and writes the table's l2_hit_latency_cycles and dram_latency_cycles.  The chase
 * warms first: the TLB and, for the L2 buffer, the lines it will hit.
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
