/*
 * bit_or.cu - kernel family `bit_or`: atomicOr(unsigned *, v) with the result used -> ATOMS.OR.
 * Its own family: single-pass jobs cost more than add even at saturation (docs/calibration.md).
 */
#include "harness.cuh"

struct au_op_bit_or {
    typedef unsigned T;
    AU_CAL_REGION32
    static __device__ __forceinline__ unsigned job(T *p, unsigned i)
    {
        return atomicOr(p, 1u << (i & 31));
    }
};

AU_CAL_DEFINE_FAMILY(bit_or, au_op_bit_or)
