/*
 * bit_or.cu - kernel family `bit_or`: atomicOr(unsigned *, v) with the result used -> ATOMS.OR.
 * v = 1, a run-time operand computed once (unit_bound.cu: the cost does not depend on the value).
 */
#include "harness.cuh"

AU_CAL_DEFINE_FAMILY(bit_or, v)
