/*
 * cast_spin.cu - kernel family `cast_spin`: atomicAdd(float *, 1.0f) on shared memory, which the compiler emits as a
 * load + ATOMS.CAST.SPIN retry loop.
 * Every lane owns its word, so no attempt fails: one ATOMS per job (checked with ncu), and S is
 * the cost of one executed ATOMS.CAST.SPIN with the loop's load and branch around it.
 */
#include "harness.cuh"

AU_CAL_DEFINE_FAMILY(cast_spin, 1.0f)
