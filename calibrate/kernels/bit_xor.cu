/*
 * bit_xor.cu - kernel family `bit_xor`: atomicXor(unsigned *, v) with the result used -> ATOMS.XOR.
 * v = 1, computed once; the unit's cost does not depend on the value (unit_bound.cu).
 */
#include "harness.cuh"

struct au_op_bit_xor {
    typedef unsigned T;
    AU_CAL_REGION32
    static __device__ __forceinline__ unsigned job(T *p, unsigned v)
    {
        return atomicXor(p, v);
    }
};

AU_CAL_DEFINE_FAMILY(bit_xor, au_op_bit_xor)
