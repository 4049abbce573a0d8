/*
 * max.cu - kernel family `max`: atomicMax(unsigned *, v) with the result used -> ATOMS.MAX.
 * v rises every job, so every job changes the word.
 */
#include "harness.cuh"

struct au_op_max {
    typedef unsigned T;
    AU_CAL_REGION32
    static __device__ __forceinline__ unsigned job(T *p, unsigned i)
    {
        return atomicMax(p, i + 1);
    }
};

AU_CAL_DEFINE_FAMILY(max, au_op_max)
