/*
 * exch.cu - kernel family `exch`: atomicExch(unsigned *, v) with the result used -> ATOMS.EXCH.
 * v is a run-time operand computed once: every job's only other instruction folds its result.
 */
#include "harness.cuh"

struct au_op_exch {
    typedef unsigned T;
    AU_CAL_REGION32
    static __device__ __forceinline__ unsigned job(T *p, unsigned v)
    {
        return atomicExch(p, v);
    }
};

AU_CAL_DEFINE_FAMILY(exch, au_op_exch)
