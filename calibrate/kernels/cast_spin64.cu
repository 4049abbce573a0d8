/*
 * cast_spin64.cu - kernel family `cast_spin64`: atomicAdd(unsigned long long *, 1ull) on shared memory, which the compiler emits
 * as a load + ATOMS.CAST.SPIN.64 retry loop.
 * Every lane owns its word, so no attempt fails: one ATOMS per job (checked with ncu).
 */
#include "harness.cuh"

struct au_op_cast_spin64 {
    typedef unsigned long long T;
    AU_CAL_REGION64
    static __device__ __forceinline__ unsigned job(T *p, unsigned)
    {
        atomicAdd(p, 1ull);
        return 0u;
    }
};

AU_CAL_DEFINE_FAMILY(cast_spin64, au_op_cast_spin64)
