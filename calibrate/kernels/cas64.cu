/*
 * cas64.cu - kernel family `cas64`: atomicCAS(unsigned long long *, cmp, val), result used -> ATOMS.CAS.64.
 * Each lane owns one 8-byte word; the same-bank pattern puts a warp's lanes on one bank pair.
 */
#include "harness.cuh"

struct au_op_cas64 {
    typedef unsigned long long T;
    AU_CAL_REGION64
    static __device__ __forceinline__ unsigned job(T *p, unsigned i)
    {
        return (unsigned)atomicCAS(p, (T)i, (T)i + 1);
    }
};

AU_CAL_DEFINE_FAMILY(cas64, au_op_cas64)
