/*
 * min.cu - kernel family `min`: atomicMin(int *, v) with the result used -> ATOMS.MIN.S32.
 * v falls every job (-1, -2, ...), so every job changes the word.
 */
#include "harness.cuh"

struct au_op_min {
    typedef int T;
    AU_CAL_REGION32
    static __device__ __forceinline__ unsigned job(T *p, unsigned i)
    {
        return (unsigned)atomicMin(p, -(int)i - 1);
    }
};

AU_CAL_DEFINE_FAMILY(min, au_op_min)
