/*
 * generic.cu - kernel family `generic`: cuda::atomic_ref<unsigned, thread_scope_block> on the
 * block's shared words, fetch_add(1u, relaxed) with the result used -> the generic ATOM.E.ADD
 * (the reference's inline PTX takes a generic address, so the compiler does not turn it into an
 * ATOMS).  GH100 counts no shared-atomic instruction for it but its shared-atomic wavefronts, so
 * the model prices such atomics per wavefront (docs/opcodes.md, "Generic atomics"); this family's
 * S at a = 1 is that price.  Its c warps run the generic ATOM.E.CAS, so that S(n, a, c) prices the
 * generic CAS jobs the generic counter set counts.
 */
#include "harness.cuh"

AU_CAL_DEFINE_FAMILY_MIX(generic, 1u, au_op_gen_cas_mix)
