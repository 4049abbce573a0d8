/*
 * cas.cu - kernel family `cas`: atomicCAS(unsigned *, cmp, val) with the result used -> ATOMS.CAS.
 * cmp = val = v - 1 = 0 on words that hold 0: every CAS succeeds (the c warps of the mix run the
 * same operation, so this family's S does not depend on c).
 */
#include "harness.cuh"

struct au_op_cas {
    typedef unsigned T;
    AU_CAL_REGION32
    static __device__ __forceinline__ unsigned job(T *p, unsigned v)
    {
        return atomicCAS(p, v - 1u, v - 1u);
    }
};

AU_CAL_DEFINE_FAMILY(cas, au_op_cas)
