/*
 * inc.cu - kernel family `inc`: atomicInc(unsigned *, wrap) with the result used -> ATOMS.INC.
 * wrap = v | 0x80000000 (v the run-time operand, computed once) stays above the word's value, so
 * every job increments.
 */
#include "harness.cuh"

struct au_op_inc {
    typedef unsigned T;
    AU_CAL_REGION32
    static __device__ __forceinline__ unsigned job(T *p, unsigned v)
    {
        return atomicInc(p, v | 0x80000000u);
    }
};

AU_CAL_DEFINE_FAMILY(inc, au_op_inc)
