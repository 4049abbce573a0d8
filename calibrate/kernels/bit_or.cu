/*
 * bit_or.cu - kernel family `bit_or`: atomicOr(unsigned *, v) with the result used -> ATOMS.OR.
 * v = 1, a run-time operand computed once (unit_bound.cu: the cost does not depend on the value).
 */
#include "harness.cuh"

struct au_op_bit_or {
    typedef unsigned T;
    AU_CAL_REGION32
    static __device__ __forceinline__ unsigned job(T *p, unsigned v)
    {
        return atomicOr(p, v);
    }
};

AU_CAL_DEFINE_FAMILY(bit_or, au_op_bit_or)
