/*
 * inc.cu - kernel family `inc`: atomicInc(unsigned *, wrap) with the result used -> ATOMS.INC.
 * wrap = v | 0x80000000 (v the run-time operand, computed once) stays above the word's value, so
 * every job increments.
 */
#include "harness.cuh"

AU_CAL_DEFINE_FAMILY(inc, v)
