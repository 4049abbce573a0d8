/*
 * add.cu - kernel family `add`: atomicAdd(unsigned *, 1u) with the result used -> ATOMS.ADD.
 * The old value feeds the warp's checksum, which keeps the compiler from the result-free
 * ATOMS.POPC.INC form.
 */
#include "harness.cuh"

AU_CAL_DEFINE_FAMILY(add, 1u)
