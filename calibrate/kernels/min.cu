/*
 * min.cu - kernel family `min`: atomicMin(int *, v) with the result used -> ATOMS.MIN.S32.
 * v = -1, computed once (a value that changes every job cost instruction issue, not unit time).
 */
#include "harness.cuh"

struct au_op_min {
    typedef int T;
    AU_CAL_REGION32
    static __device__ __forceinline__ unsigned job(T *p, unsigned v)
    {
        return (unsigned)atomicMin(p, -(int)v);
    }
};

AU_CAL_DEFINE_FAMILY(min, au_op_min)
