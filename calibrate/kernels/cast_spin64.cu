/*
 * cast_spin64.cu - kernel family `cast_spin64`: atomicAdd(unsigned long long *, 1ull) on shared memory, which the compiler emits
 * as a load + ATOMS.CAST.SPIN.64 retry loop.
 * Every lane owns its word, so no attempt fails: one ATOMS per job (checked with ncu).
 */
#include "harness.cuh"

AU_CAL_DEFINE_FAMILY(cast_spin64, 1ull)
