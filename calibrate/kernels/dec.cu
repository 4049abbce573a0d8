/*
 * dec.cu - kernel family `dec`: atomicDec(unsigned *, wrap) with the result used -> ATOMS.DEC.
 * wrap = v | 0x80000000, a run-time value computed once, so the compiler cannot fold the
 * operation and issues nothing per job besides the atomic and the checksum.
 */
#include "harness.cuh"

AU_CAL_DEFINE_FAMILY(dec, v)
