/*
 * max.cu - kernel family `max`: atomicMax(unsigned *, v) with the result used -> ATOMS.MAX.
 * v = 1, a run-time operand computed once (unit_bound.cu: the unit's cost does not depend on
 * whether the word changes).
 */
#include "harness.cuh"

struct au_op_max {
    typedef unsigned T;
    AU_CAL_REGION32
    static __device__ __forceinline__ unsigned job(T *p, unsigned v)
    {
        return atomicMax(p, v);
    }
};

AU_CAL_DEFINE_FAMILY(max, au_op_max)
