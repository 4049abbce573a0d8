/*
 * cas64.cu - kernel family `cas64`: atomicCAS(unsigned long long *, cmp, val), result used -> ATOMS.CAS.64.
 * Each lane owns one 8-byte word; the same-bank pattern puts a warp's lanes on one bank pair.
 * cmp = val = 0 on words that hold 0: every CAS succeeds.
 */
#include "harness.cuh"

struct au_op_cas64 {
    typedef unsigned long long T;
    AU_CAL_REGION64
    static __device__ __forceinline__ unsigned job(T *p, unsigned v)
    {
        return (unsigned)atomicCAS(p, (T)(v - 1u), (T)(v - 1u));
    }
};

AU_CAL_DEFINE_FAMILY(cas64, au_op_cas64)
