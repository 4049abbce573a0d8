/*
 * bit_and.cu - kernel family `bit_and`: atomicAnd(unsigned *, v) with the result used -> ATOMS.AND.
 * The mask ~v is computed once: an operand computed per job made the kernel issue-bound (1.7
 * cycles per job instead of the unit's 1.0; calibrate/tools/unit_bound.cu).
 */
#include "harness.cuh"

AU_CAL_DEFINE_FAMILY(bit_and, v)
