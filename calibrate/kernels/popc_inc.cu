/*
 * popc_inc.cu - kernel family `popc_inc`: atomicAdd(unsigned *, 1u) with the result unused -> ATOMS.POPC.INC.32.
 * Hopper folds lanes on one word into one pass for this form, so only the same-bank pattern
 * yields a wavefronts; the harness's final load of the word marks completion.
 */
#include "harness.cuh"

AU_CAL_DEFINE_FAMILY(popc_inc, 1u)
