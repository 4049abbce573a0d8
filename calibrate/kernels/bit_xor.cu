/*
 * bit_xor.cu - kernel family `bit_xor`: atomicXor(unsigned *, v) with the result used -> ATOMS.XOR.
 * v = 1, computed once; the unit's cost does not depend on the value (unit_bound.cu).
 */
#include "harness.cuh"

AU_CAL_DEFINE_FAMILY(bit_xor, v)
