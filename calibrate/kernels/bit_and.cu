/*
 * bit_and.cu - kernel family `bit_and`: atomicAnd(unsigned *, v) with the result used -> ATOMS.AND.
 * Its own family: single-pass jobs cost more than add even at saturation (docs/calibration.md).
 */
#include "harness.cuh"

struct au_op_bit_and {
    typedef unsigned T;
    AU_CAL_REGION32
    static __device__ __forceinline__ unsigned job(T *p, unsigned i)
    {
        return atomicAnd(p, ~(1u << (i & 31)));
    }
};

AU_CAL_DEFINE_FAMILY(bit_and, au_op_bit_and)
