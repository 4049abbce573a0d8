/*
 * max.cu - kernel family `max`: atomicMax(unsigned *, v) with the result used -> ATOMS.MAX.
 * v = 1, a run-time operand computed once (unit_bound.cu: the unit's cost does not depend on
 * whether the word changes).
 */
#include "harness.cuh"

AU_CAL_DEFINE_FAMILY(max, v)
