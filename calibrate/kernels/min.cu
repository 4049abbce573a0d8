/*
 * min.cu - kernel family `min`: atomicMin(int *, v) with the result used -> ATOMS.MIN.S32.
 * v = -1, computed once (a value that changes every job cost instruction issue, not unit time).
 */
#include "harness.cuh"

AU_CAL_DEFINE_FAMILY(min, -(int)v)
