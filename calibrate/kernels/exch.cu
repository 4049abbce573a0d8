/*
 * exch.cu - kernel family `exch`: atomicExch(unsigned *, v) with the result used -> ATOMS.EXCH.
 * v is a run-time operand computed once: every job's only other instruction folds its result.
 */
#include "harness.cuh"

AU_CAL_DEFINE_FAMILY(exch, v)
