/*
 * cas.cu - kernel family `cas`: atomicCAS(unsigned *, cmp, val) with the result used -> ATOMS.CAS.
 * cmp tracks the lane's own word, so every CAS succeeds and writes; the c warps of the mix run
 * the same operation, so this family's S does not depend on c.
 */
#include "harness.cuh"

struct au_op_cas {
    typedef unsigned T;
    AU_CAL_REGION32
    static __device__ __forceinline__ unsigned job(T *p, unsigned i)
    {
        return atomicCAS(p, i, i + 1);
    }
};

AU_CAL_DEFINE_FAMILY(cas, au_op_cas)
