/*
 * exch.cu - kernel family `exch`: atomicExch(unsigned *, v) with the result used -> ATOMS.EXCH.
 * Its own family: single-pass jobs cost differently from add at low load (docs/calibration.md).
 */
#include "harness.cuh"

struct au_op_exch {
    typedef unsigned T;
    AU_CAL_REGION32
    static __device__ __forceinline__ unsigned job(T *p, unsigned i)
    {
        return atomicExch(p, i);
    }
};

AU_CAL_DEFINE_FAMILY(exch, au_op_exch)
