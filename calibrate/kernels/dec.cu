/*
 * dec.cu - kernel family `dec`: atomicDec(unsigned *, wrap) with the result used -> ATOMS.DEC.
 * wrap varies at run time, so the compiler cannot fold the operation.
 */
#include "harness.cuh"

struct au_op_dec {
    typedef unsigned T;
    AU_CAL_REGION32
    static __device__ __forceinline__ unsigned job(T *p, unsigned i)
    {
        return atomicDec(p, i | 0x80000000u);
    }
};

AU_CAL_DEFINE_FAMILY(dec, au_op_dec)
