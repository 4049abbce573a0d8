/*
 * cas.cu - kernel family `cas`: atomicCAS(unsigned *, cmp, val) with the result used -> ATOMS.CAS.
 * cmp = val = v - 1 = 0 on words that hold 0: every CAS succeeds (the c warps of the mix run the
 * same operation, so this family's S does not depend on c).
 */
#include "harness.cuh"

AU_CAL_DEFINE_FAMILY(cas, v - 1u)
