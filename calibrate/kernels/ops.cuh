/*
 * ops.cuh - the one home of the atomic operations that atomutil's kernels issue on shared memory:
 * the device operation of every family of the registry (model/include/atomutil/families.def), by
 * the family's name in namespace au_ops, and of the operations that are no family of their own;
 * and the unit-bound reference cases (AU_REFERENCE_CASES) with their lane patterns (au_word_of, and
 * AU_LANE_PATTERNS for the generic operations), which calibrate/tools/unit_bound.cu measures and
 * validation/validation.cu runs as workloads.
 * The calibration kernels (calibrate/kernels/<family>.cu), unit_bound and the validation include it,
 * and with it the launch bounds of the kernels that issue these operations on each architecture.
 */
#ifndef ATOMUTIL_CAL_OPS_CUH
#define ATOMUTIL_CAL_OPS_CUH

#include <cuda/atomic>
#include <cuda_fp16.h>

/* The threads an SM holds on the architecture being compiled: 2048 on sm_80, 90, 100 and 103; 1536
 * on sm_86-89, 110 and 120-121; 1024 on sm_75.  2048 in the host pass, which has no architecture. */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 800 || (__CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1100)
#define AU_SM_THREADS 2048
#elif __CUDA_ARCH__ < 800
#define AU_SM_THREADS 1024
#else
#define AU_SM_THREADS 1536
#endif

/* Blocks of 1024 threads, two of them resident per SM where an SM holds them; elsewhere no minimum,
 * which is what ptxas made of the minimum of 2 it could not meet (it ignored it, with a warning):
 * the same code on every architecture. */
#if AU_SM_THREADS >= 2048
#define AU_LAUNCH_BOUNDS_2X1024 __launch_bounds__(1024, 2)
#else
#define AU_LAUNCH_BOUNDS_2X1024 __launch_bounds__(1024)
#endif

/* A pointer the compiler cannot trace to shared memory: an atomic through it is a generic ATOM.E.*,
 * whose address the hardware resolves at run time, as in code that receives a pointer without its
 * address space (a helper that takes a pointer, a pointer chosen at run time). */
template <class T> __device__ __forceinline__ T *au_generic_ptr(T *p)
{
    asm("" : "+l"(p));
    return p;
}

/* A block-scope atomic reference of libcu++ (cuda::atomic_ref), relaxed: the generic ATOM.E.* on
 * whatever memory the word is in (docs/opcodes.md, "Generic atomics"). */
typedef cuda::atomic_ref<unsigned, cuda::thread_scope_block> au_block_ref;

/* The half2 operand whose bits are x's. */
__device__ __forceinline__ __half2 au_half2_bits(unsigned x)
{
    return __halves2half2(__ushort_as_half((unsigned short)x), __ushort_as_half((unsigned short)(x >> 16)));
}

/* One job of an operation: job(p, x) issues the atomic on *p with operand x (the caller's
 * loop-invariant run-time value, or a constant) and returns what feeds the caller's checksum (0
 * where the result is unused, so that the compiler may emit the result-free form).  The fixed
 * part of an operand (and: ~x; inc, dec: the wrap x | 2^31; cas: compare with x, write x) is the
 * operation's.  The comment names the SASS opcode on sm_90. */
#define AU_OP(name, type, expr)                                     \
    struct name {                                                   \
        typedef type T;                                             \
        static __device__ __forceinline__ type job(type *p, type x) \
        {                                                           \
            return expr;                                            \
        }                                                           \
    };
/* the same for an operation whose result is unused (the compiler may then emit a result-free
 * form): job returns 0 */
#define AU_OP_UNUSED(name, type, call)                                  \
    struct name {                                                       \
        typedef type T;                                                 \
        static __device__ __forceinline__ unsigned job(type *p, type x) \
        {                                                               \
            call;                                                       \
            return 0u;                                                  \
        }                                                               \
    };
namespace au_ops
{
/* compare-and-swap of x with x through the atomic reference: the word's old value */
__device__ __forceinline__ unsigned gen_cas_job(unsigned *p, unsigned x)
{
    unsigned e = x;
    au_block_ref(*p).compare_exchange_strong(e, x, cuda::memory_order_relaxed);
    return e;
}
/* the families, by their registry names */
AU_OP(add, unsigned, atomicAdd(p, x))                          /* ATOMS.ADD */
AU_OP_UNUSED(popc_inc, unsigned, atomicAdd(p, x))              /* ATOMS.POPC.INC.32: x = 1, result unused */
AU_OP(cas, unsigned, atomicCAS(p, x, x))                       /* ATOMS.CAS */
AU_OP(cas64, unsigned long long, atomicCAS(p, x, x))           /* ATOMS.CAS.64 */
AU_OP_UNUSED(cast_spin, float, atomicAdd(p, x))                /* ATOMS.CAST.SPIN loop */
AU_OP_UNUSED(cast_spin64, unsigned long long, atomicAdd(p, x)) /* ATOMS.CAST.SPIN.64 loop */
AU_OP(exch, unsigned, atomicExch(p, x))                        /* ATOMS.EXCH */
AU_OP(min, int, atomicMin(p, x))                               /* ATOMS.MIN.S32 */
AU_OP(max, unsigned, atomicMax(p, x))                          /* ATOMS.MAX */
AU_OP(bit_and, unsigned, atomicAnd(p, ~x))                     /* ATOMS.AND */
AU_OP(bit_or, unsigned, atomicOr(p, x))                        /* ATOMS.OR */
AU_OP(bit_xor, unsigned, atomicXor(p, x))                      /* ATOMS.XOR */
AU_OP(inc, unsigned, atomicInc(p, x | 0x80000000u))            /* ATOMS.INC */
AU_OP(dec, unsigned, atomicDec(p, x | 0x80000000u))            /* ATOMS.DEC */
/* 64-bit operations that are no family of their own: sm_90 has no 64-bit shared min, max, and,
 * or, xor or add, so the compiler emits a CAS loop (ATOMS.CAST.SPIN.64); min and max load the
 * word and run the loop only where the value must change */
AU_OP(exch64, unsigned long long, atomicExch(p, x))       /* ATOMS.EXCH.64 */
AU_OP(min64, long long, atomicMin(p, x))                  /* conditional CAS loop */
AU_OP(max64, unsigned long long, atomicMax(p, x))         /* conditional CAS loop */
AU_OP_UNUSED(and64, unsigned long long, atomicAnd(p, ~x)) /* ATOMS.CAST.SPIN.64 loop */
AU_OP_UNUSED(or64, unsigned long long, atomicOr(p, x))    /* ATOMS.CAST.SPIN.64 loop */
AU_OP_UNUSED(xor64, unsigned long long, atomicXor(p, x))  /* ATOMS.CAST.SPIN.64 loop */
/* generic atomics on shared memory (family generic: priced per wavefront, their instructions
 * are not counted) */
AU_OP(generic, unsigned, au_block_ref(*p).fetch_add(x, cuda::memory_order_relaxed)) /* ATOM.E.ADD */
AU_OP(gen_max, unsigned, au_block_ref(*p).fetch_max(x, cuda::memory_order_relaxed)) /* ATOM.E.MAX */
AU_OP(gen_cas, unsigned, gen_cas_job(p, x))                                         /* ATOM.E.CAS */
AU_OP(gen_ptr_add, unsigned, atomicAdd(au_generic_ptr(p), x))                       /* ATOM.E.ADD */
/* the other 32-bit generic operations, each with its ATOMS counterpart's operand (docs/opcodes.md,
 * "Generic atomics": one cost per pass for all but CAS) */
AU_OP(gen_min, unsigned, au_block_ref(*p).fetch_min(x, cuda::memory_order_relaxed))  /* ATOM.E.MIN */
AU_OP(gen_exch, unsigned, au_block_ref(*p).exchange(x, cuda::memory_order_relaxed))  /* ATOM.E.EXCH */
AU_OP(gen_and, unsigned, au_block_ref(*p).fetch_and(~x, cuda::memory_order_relaxed)) /* ATOM.E.AND */
AU_OP(gen_or, unsigned, au_block_ref(*p).fetch_or(x, cuda::memory_order_relaxed))    /* ATOM.E.OR */
AU_OP(gen_xor, unsigned, au_block_ref(*p).fetch_xor(x, cuda::memory_order_relaxed))  /* ATOM.E.XOR */
AU_OP(gen_inc, unsigned, atomicInc(au_generic_ptr(p), x | 0x80000000u))              /* ATOM.E.INC */
AU_OP(gen_dec, unsigned, atomicDec(au_generic_ptr(p), x | 0x80000000u))              /* ATOM.E.DEC */
/* half2 atomicAdd through a generic pointer: the compiler branches on the address's space, to a
 * CAS loop on shared memory (ATOMS.CAST.SPIN) or to the generic ATOM.E.ADD.F16x2 elsewhere */
AU_OP_UNUSED(h2_add, __half2, atomicAdd(au_generic_ptr(p), x))
} // namespace au_ops
#undef AU_OP
#undef AU_OP_UNUSED

/* Lane pattern of the reference cases: lane `lane` of warp `w` uses word lane % W of W words,
 * laid out B per row of P slots (P = 32 banks, or 16 bank pairs for 64-bit words): B = W puts the
 * words in distinct banks, B = 1 all W words in one bank; every warp owns its words. */
__host__ __device__ __forceinline__ int au_word_of(int lane, int w, int W, int B, int P)
{
    const int k = lane % W;
    const int rows = (W + B - 1) / B;
    const int grp = (w * B) / P;
    return (k / B + rows * grp) * P + (k % B + w * B) % P;
}

/* Lane patterns of the generic validation points (validation/validation.cu, class generic) and of
 * their unit_bound cases, X(id, name): lane `lane` of warp `warp` uses word au_lane_word(pattern,
 * warp, lane) of an array of AU_LP_WORDS words that every warp of the block shares:
 *   distinct    warp * 32 + lane: each lane its own word and bank (au_word_of's distinct)
 *   random256   a fixed pseudo-random word of the first 256 (a hash of pattern, warp and lane):
 *               warps share words, bank conflicts and lanes on one word fall as in a histogram
 *   random4096  the same over all 4096 words (another hash: other conflicts)
 *   skewed      the odd lanes of every warp on word 0, the even ones as random256 (skewed data)
 *   grouped     8 words of the warp's own row, in banks 0, 4, ..., 28, with 4 consecutive lanes
 *               on each */
#define AU_LANE_PATTERNS(X)   \
    X(DISTINCT, distinct)     \
    X(RANDOM256, random256)   \
    X(RANDOM4096, random4096) \
    X(SKEWED, skewed)         \
    X(GROUPED, grouped)
enum {
#define AU_LP_ENUM(id, name) AU_LP_##id,
    AU_LANE_PATTERNS(AU_LP_ENUM)
#undef AU_LP_ENUM
        AU_LP_COUNT
};
#define AU_LP_WORDS 4096

inline const char *au_lane_pattern_name(int pattern)
{
#define AU_LP_NAME(id, name)   \
    if (pattern == AU_LP_##id) \
        return #name;
    AU_LANE_PATTERNS(AU_LP_NAME)
#undef AU_LP_NAME
    return "?";
}

/* A 32-bit integer hash (full avalanche): the pseudo-random words of the lane patterns. */
__host__ __device__ __forceinline__ unsigned au_lane_hash(unsigned x)
{
    x ^= x >> 16, x *= 0x7FEB352Du, x ^= x >> 15, x *= 0x846CA68Bu, x ^= x >> 16;
    return x;
}

__host__ __device__ __forceinline__ int au_lane_word(int pattern, int warp, int lane)
{
    const unsigned id = (unsigned)(warp * 32 + lane);
    if (pattern == AU_LP_SKEWED && (lane & 1))
        return 0;
    switch (pattern) {
    case AU_LP_RANDOM256:
    case AU_LP_SKEWED: return (int)(au_lane_hash(0x10000u | id) % 256u);
    case AU_LP_RANDOM4096: return (int)(au_lane_hash(0x20000u | id) % AU_LP_WORDS);
    case AU_LP_GROUPED: return warp * 32 + 4 * (lane >> 2);
    default: return (int)id;
    }
}

/* A reference case: operation `op` (au_ops::op) on words of type W with the operand expression
 * x of the run-time value v and the job index k (min64 and max64 change their operand each job,
 * so that every job changes the word). */
#define AU_CASE(name, op, W, x)                                                 \
    struct name {                                                               \
        typedef W T;                                                            \
        static __device__ __forceinline__ W job(W *p, W v, unsigned k)          \
        {                                                                       \
            (void)k;                                                            \
            return (W)au_ops::op::job(reinterpret_cast<au_ops::op::T *>(p), x); \
        }                                                                       \
    };

/* The reference cases, X(case, op, word type, operand): calibrate/tools/unit_bound.cu names its
 * cases by them and validation/validation.cu's family class runs them as workloads.  The
 * operand v is 1 in unit_bound, the point's operand in the validation. */
#define AU_REFERENCE_CASES(X)                                        \
    X(add, add, unsigned, v)                                         \
    X(popc_inc, popc_inc, unsigned, 1u)                              \
    X(cas, cas, unsigned, v)                                         \
    X(exch, exch, unsigned, v)                                       \
    X(min, min, unsigned, (int)v)                                    \
    X(max, max, unsigned, v)                                         \
    X(and, bit_and, unsigned, v)                                     \
    X(or, bit_or, unsigned, v)                                       \
    X(xor, bit_xor, unsigned, v)                                     \
    X(inc, inc, unsigned, v)                                         \
    X(dec, dec, unsigned, v)                                         \
    X(fadd, cast_spin, unsigned, (float)v)                           \
    X(cas64, cas64, unsigned long long, v)                           \
    X(exch64, exch64, unsigned long long, v)                         \
    X(min64, min64, unsigned long long, (long long)v - (long long)k) \
    X(max64, max64, unsigned long long, v + k)                       \
    X(add64, cast_spin64, unsigned long long, v)                     \
    X(and64, and64, unsigned long long, v)                           \
    X(or64, or64, unsigned long long, v)                             \
    X(xor64, xor64, unsigned long long, v)                           \
    X(gen_add, generic, unsigned, v)                                 \
    X(gen_max, gen_max, unsigned, v)                                 \
    X(gen_cas, gen_cas, unsigned, v)                                 \
    X(gen_ptr_add, gen_ptr_add, unsigned, v)                         \
    X(gen_h2_add, h2_add, unsigned, au_half2_bits(v))                \
    X(gen_min, gen_min, unsigned, v)                                 \
    X(gen_exch, gen_exch, unsigned, v)                               \
    X(gen_and, gen_and, unsigned, v)                                 \
    X(gen_or, gen_or, unsigned, v)                                   \
    X(gen_xor, gen_xor, unsigned, v)                                 \
    X(gen_inc, gen_inc, unsigned, v)                                 \
    X(gen_dec, gen_dec, unsigned, v)

#endif
