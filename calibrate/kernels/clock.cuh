/*
 * clock.cuh - the special registers the calibration kernels read: the SM clock (clock64, ordered
 * against the memory operations around it) and the SM a block runs on (%smid).  Shared by the
 * ATOMS harness (harness.cuh) and the dsmem kernel (dsmem.cu).
 */
#ifndef ATOMUTIL_CAL_CLOCK_CUH
#define ATOMUTIL_CAL_CLOCK_CUH

__device__ __forceinline__ long long au_clock(void)
{
    long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
    return t;
}

__device__ __forceinline__ unsigned au_smid(void)
{
    unsigned r;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
    return r;
}

#endif
