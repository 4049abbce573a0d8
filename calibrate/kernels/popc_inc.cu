/*
 * popc_inc.cu - kernel family `popc_inc`: atomicAdd(unsigned *, 1u) with the result unused -> ATOMS.POPC.INC.32.
 * Hopper folds lanes on one word into one pass for this form, so only the same-bank pattern
 * yields a wavefronts; the harness's final load of the word marks completion.
 */
#include "harness.cuh"

struct au_op_popc_inc {
    typedef unsigned T;
    AU_CAL_REGION32
    static __device__ __forceinline__ unsigned job(T *p, unsigned)
    {
        atomicAdd(p, 1u);
        return 0u;
    }
};

AU_CAL_DEFINE_FAMILY(popc_inc, au_op_popc_inc)
