/*
 * dec.cu - kernel family `dec`: atomicDec(unsigned *, wrap) with the result used -> ATOMS.DEC.
 * wrap = v | 0x80000000, a run-time value computed once, so the compiler cannot fold the
 * operation and issues nothing per job besides the atomic and the checksum.
 */
#include "harness.cuh"

struct au_op_dec {
    typedef unsigned T;
    AU_CAL_REGION32
    static __device__ __forceinline__ unsigned job(T *p, unsigned v)
    {
        return atomicDec(p, v | 0x80000000u);
    }
};

AU_CAL_DEFINE_FAMILY(dec, au_op_dec)
