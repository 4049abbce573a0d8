/*
 * add.cu - kernel family `add`: atomicAdd(unsigned *, 1u) with the result used -> ATOMS.ADD.
 * The old value feeds the warp's checksum, which keeps the compiler from the result-free
 * ATOMS.POPC.INC form.
 */
#include "harness.cuh"

struct au_op_add {
    typedef unsigned T;
    AU_CAL_REGION32
    static __device__ __forceinline__ unsigned job(T *p, unsigned)
    {
        return atomicAdd(p, 1u);
    }
};

AU_CAL_DEFINE_FAMILY(add, au_op_add)
