/*
 * bit_xor.cu - kernel family `bit_xor`: atomicXor(unsigned *, v) with the result used -> ATOMS.XOR.
 * v is odd, so every job changes the word.
 */
#include "harness.cuh"

struct au_op_bit_xor {
    typedef unsigned T;
    AU_CAL_REGION32
    static __device__ __forceinline__ unsigned job(T *p, unsigned i)
    {
        return atomicXor(p, i | 1u);
    }
};

AU_CAL_DEFINE_FAMILY(bit_xor, au_op_bit_xor)
