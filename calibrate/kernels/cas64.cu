/*
 * cas64.cu - kernel family `cas64`: atomicCAS(unsigned long long *, cmp, val), result used -> ATOMS.CAS.64.
 * Each lane owns one 8-byte word; the same-bank pattern puts a warp's lanes on one bank pair.
 * cmp = val = 0 on words that hold 0: every CAS succeeds.
 */
#include "harness.cuh"

AU_CAL_DEFINE_FAMILY(cas64, (T)(v - 1u))
