/*
 * validation: ground truth for atomutil's utilization U (docs/validation.md, issue 6).
 *
 * Every point is a synthetic kernel whose shared-memory atomics can be kept while everything else
 * is removed.  Each thread runs `iters` jobs (one shared-atomic warp-instruction each, or one
 * source-level atomicAdd for the CAS-loop operations); before each job it does L dependent FFMAs
 * and G coalesced global loads (the non-atomic work).  The atomics never depend on that work:
 * every lane uses one fixed shared word, chosen by a lane pattern that sets the serialization
 * (d lanes on distinct words of one bank = d passes; all lanes on one word).
 *
 *   T_full  time of the point's kernel (with its work)
 *   T_atom  time of the same jobs with the work compiled out; the launch keeps the same grid,
 *           block and jobs when blocks have 32 warps, otherwise the same jobs per SM are spread
 *           over 2 blocks x 32 warps per SM, enough to saturate the unit
 *   U_true  = (T_atom - t_empty) / (T_full - t_empty), t_empty = an empty launch of that shape
 *
 * --mode time (default) measures all points: CUDA events around each launch, one warm-up, then
 * --reps launches of the full and the atomics-only kernel alternately, medians.  Every launch's
 * result is checked: each block sums its shared words and the host compares with the exact count.
 * --mode profile launches, per point, the full kernel twice (warm-up, measured) and the
 * atomics-only kernel once, and writes the list of those launches in order, for joining with
 * atomutil-profile's or ncu's per-launch rows (validation/validate.py).
 *
 * Class "family" (issues 11, 21): every table family, 25 operations (32- and 64-bit; generic atomics
 * on shared memory: atomic_ref and generic pointers, issue 21) x 3 lane patterns
 * x 4 work levels, each kernel running calibrate/tools/unit_bound.cu's cases (the reference cases
 * of calibrate/kernels/ops.cuh, the home of the atomic operations this program issues: loop-invariant
 * operand, result folded into a checksum with XOR, unrolled) and their lane pattern (au_word_of: lane
 * l uses word l % W of W words laid B per 128-byte row, every warp its own words), 2 blocks x 32
 * warps per SM, so that the atomics-only launch is the unit_bound case named in column ub_case.
 *
 * Class "generic" (issue 36): every 32-bit generic atomic on shared memory (ATOM.E.ADD through
 * atomic_ref and through a generic pointer, MAX, MIN, EXCH, CAS, AND, OR, XOR, INC, DEC) x the lane
 * patterns of ops.cuh's au_lane_word (distinct, random256, random4096, skewed, grouped: 4096 words
 * per block, shared by its warps) x 4 work levels, as the family class: points generic_<op>_
 * <pattern>[_L<n>], kernels vk_generic_<op>_*, and unit_bound's case <op>/<pattern> of the same
 * jobs.  Their sizes come from the passes the pattern gives each warp (lp_est).
 *
 * Reference boundness: every atomics-only kernel records per block clock64 at its start and end
 * (the end after all its lanes' atomics have completed) and its SM; --mode time writes per point
 * atom_cycles_per_job: per timed launch, the median over the SMs that held exactly the launch's
 * blocks per SM of (last end - first start) / jobs of the SM, then the median over the launches;
 * validation/validate.py compares it with unit_bound's cycles_per_job of case ub_case (the same jobs
 * at the unit's rate; empty where the reference is not 2 x 32 warps per SM or mixes opcodes).
 *
 * Class "dsmem" (issue 12): atomics on distributed shared memory.  Thread block clusters of C = 2,
 * 4 or 8 blocks (cudaLaunchKernelEx with a cluster dimension; sm_90), one block of 32 warps per SM
 * (each block asks for more than half an SM's shared memory, as calibrate/kernels/dsmem.cu), every
 * lane's jobs atomicAdd(cluster.map_shared_rank(bins, target) + word, 1u), result used (the
 * generic ATOM.E.ADD), target = (rank + 1) % C (a ring: every SM sends as much as it receives),
 * its own rank (C = 2: local generic atomics), or rank 0 for every block with every lane on one
 * word (hot: the cluster histogram of one value, C = 2, 4, 8); the same work chain before each
 * job; lane patterns distinct, bank32, hashed, word_ownrow, word_onerow, word_one (dsmem_word
 * below).  Checked per block: the
 * weighted sum of its words and the sum of the results its lanes got (both exact on the host).
 * The reference's boundness cannot be shown with unit_bound or the wavefront counter (the cluster
 * counter set has neither); --mode time also times the reference with 16 warps per block issuing
 * the same requests per SM (half_cycles_per_job): a reference whose 32 warps are no faster per job
 * than 16 has reached the path's throughput (docs/validation.md, "The dsmem class").  Every dsmem
 * launch records its blocks' clocks (one block per SM), so vtime.csv also gets the full kernel's
 * cycles per job and u_true_sm, the mean SM's U_true from those windows, beside the event-time
 * u_true of every class.
 * A profiling target: it links nothing of atomutil.
 */
#include "../calibrate/kernels/cluster_launch.cuh"
#include "../calibrate/kernels/ops.cuh"

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CUDA_CHECK_PROGRAM "validation"
#include "../calibrate/kernels/cuda_check.h"

enum { OP_ADD, OP_POPC, OP_MIX, OP_CAS64, OP_FADD, OP_IADD64, NOPS };
enum { J_ADD, J_POPC, J_CAS, J_CAS64, J_FADD, J_IADD64 };
/* d lanes per bank on distinct words | all lanes on one word | ops.cuh's au_word_of(W, B) */
enum { PAT_BANK, PAT_ADDR, PAT_WORDS };

#define SHWORDS  2048 /* 8 KB per block: two regions of 1024 words, or 1024 64-bit words */
#define REGION   1024u
#define K0       12345u /* initial value of the CAS words: CAS(K0, K0) always succeeds */
#define UNROLL   8      /* jobs per loop iteration: keeps the loop overhead per job small */
#define BUF_LOG2 26     /* global-load buffer: 2^26 words = 256 MiB, larger than L2 */

struct VParams {
    const unsigned *__restrict__ buf;
    double *blocksum;  /* per block: sum of its shared words after the jobs */
    unsigned *smid;    /* per block: the SM it ran on */
    unsigned *sink;    /* written only if a never-seen value occurs: keeps results alive */
    unsigned mask;     /* buffer words - 1 */
    unsigned iters;    /* jobs per thread, a multiple of UNROLL */
    int L, G;          /* FFMAs and global loads before each job */
    int pattern, d, q; /* lane pattern, lanes per bank, CAS warps per 4 (OP_MIX) */
    unsigned magic;
    long long *t0, *t1;             /* atomics-only kernels: per block, clock64 at start and end of the jobs */
    unsigned long long *blocksum64; /* family kernels: per block, wrapping sum of its words */
    unsigned long long init, v;     /* family kernels: initial word value, operand */
    int W, B;                       /* PAT_WORDS and family kernels: W words, B per 128-byte row (word_of) */
    unsigned *ressum;               /* dsmem kernels: per block, the sum (mod 2^32) of its lanes' results */
    int shift;                      /* dsmem kernels: target rank = (own rank + shift) % cluster size */
};

/* Word of this lane: d lanes on distinct words of one bank (nb banks of the operand width), so a
 * job takes d passes; or every lane on word 0. 64-bit words with d = 1 need 32 bank pairs of which
 * there are 16: consecutive words, two passes. */
__device__ __forceinline__ unsigned lane_word(int pattern, int d, unsigned nb, unsigned lane)
{
    if (pattern == PAT_ADDR)
        return 0;
    unsigned g = 32u / (unsigned)d;
    if (g > nb)
        return lane;
    return lane % g + nb * (lane / g);
}

template <int JOB, bool WORK>
__device__ __forceinline__ void job_loop(const VParams &p, void *word, unsigned gidx, unsigned nthr, unsigned &acc,
                                         float &y, unsigned long long &acc64)
{
    unsigned *w32 = (unsigned *)word;
    float *wf = (float *)word;
    unsigned long long *w64 = (unsigned long long *)word;
    for (unsigned i = 0; i < p.iters; i += UNROLL) {
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) {
            if (WORK) {
                /* a dependent FFMA chain (converges to 1000, never inf or NaN) */
                for (int l = 0; l < p.L; ++l)
                    y = fmaf(y, 0.999f, 1.0f);
                /* coalesced streaming loads; unsigned wrap-around is harmless under the mask */
                for (int g = 0; g < p.G; ++g)
                    acc += p.buf[(gidx + ((i + u) * (unsigned)p.G + (unsigned)g) * nthr) & p.mask];
            }
            if (JOB == J_ADD)
                acc ^= au_ops::add::job(w32, 1u); /* result used: ATOMS.ADD */
            else if (JOB == J_POPC)
                au_ops::popc_inc::job(w32, 1u); /* result unused: ATOMS.POPC.INC */
            else if (JOB == J_CAS)
                acc ^= au_ops::cas::job(w32, K0);
            else if (JOB == J_CAS64)
                acc64 ^= au_ops::cas64::job(w64, (unsigned long long)K0);
            else if (JOB == J_FADD)
                au_ops::cast_spin::job(wf, 1.0f); /* CAS loop: ATOMS.CAST.SPIN */
            else
                au_ops::cast_spin64::job(w64, 1ull); /* CAS loop: ATOMS.CAST.SPIN.64 */
        }
    }
}

/* After a lane's jobs: keeps its checksum r alive (stored only if it equals a never-seen value; the
 * comparison waits for r, and the store cannot pass the barrier), waits for every lane of the
 * block, then reads the end clock of an atomics-only launch (0 otherwise). */
__device__ __forceinline__ long long jobs_done(const VParams &p, unsigned r, bool timed)
{
    if (r == p.magic)
        *p.sink = r;
    __syncthreads();
    return timed ? clock64() : 0;
}

/* Warp 0, after each lane summed its share of the block's words: the block's checksum (the warp's
 * sum), the SM it ran on and, for an atomics-only launch, its start and end clocks. */
template <class S>
__device__ __forceinline__ void report_block(const VParams &p, S s, S *out, bool timed, long long t0, long long t1)
{
    for (int o = 16; o; o >>= 1)
        s += __shfl_xor_sync(0xFFFFFFFFu, s, o);
    if ((threadIdx.x & 31u) == 0) {
        unsigned id;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
        out[blockIdx.x] = s;
        p.smid[blockIdx.x] = id;
        if (timed)
            p.t0[blockIdx.x] = t0, p.t1[blockIdx.x] = t1;
    }
}

template <int OP, bool WORK> __device__ __forceinline__ void vk_body(const VParams &p)
{
    __shared__ __align__(8) unsigned sh[SHWORDS];
    unsigned long long *sh64 = (unsigned long long *)sh;
    const bool wide = OP == OP_CAS64 || OP == OP_IADD64;
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;

    /* 32-bit ops: region A (counters) = 0, region C (CAS words) = K0; 64-bit: all K0 */
    for (unsigned i = threadIdx.x; i < SHWORDS; i += blockDim.x) {
        if (wide) {
            if (i < REGION)
                sh64[i] = K0;
        } else {
            sh[i] = i < REGION ? 0u : K0;
        }
    }
    __syncthreads();

    unsigned w;
    if (p.pattern == PAT_WORDS) /* the family class (add, cas64): unit_bound's patterns */
        w = (unsigned)au_word_of((int)lane, (int)warp, p.W, p.B, wide ? 16 : 32);
    else
        w = lane_word(p.pattern, p.d, wide ? 16u : 32u, lane);
    /* CAS loops: each warp gets words of its own, so warps never make each other retry */
    if ((OP == OP_FADD || OP == OP_IADD64) && p.pattern != PAT_WORDS)
        w += warp * 32u;
    /* atomics-only kernels time their jobs (the reference's boundness): clock64 after the barrier */
    long long t0 = 0;
    if (!WORK)
        t0 = clock64();
    const unsigned gidx = blockIdx.x * blockDim.x + threadIdx.x, nthr = gridDim.x * blockDim.x;
    unsigned acc = 0;
    float y = (float)lane;
    unsigned long long acc64 = 0;
    if (OP == OP_ADD)
        job_loop<J_ADD, WORK>(p, &sh[w], gidx, nthr, acc, y, acc64);
    else if (OP == OP_POPC)
        job_loop<J_POPC, WORK>(p, &sh[w], gidx, nthr, acc, y, acc64);
    else if (OP == OP_MIX) {
        /* q of every 4 warps issue ATOMS.CAS, the others ATOMS.ADD (as the calibration's c) */
        if ((warp & 3u) < (unsigned)p.q)
            job_loop<J_CAS, WORK>(p, &sh[REGION + w], gidx, nthr, acc, y, acc64);
        else
            job_loop<J_ADD, WORK>(p, &sh[w], gidx, nthr, acc, y, acc64);
    } else if (OP == OP_CAS64)
        job_loop<J_CAS64, WORK>(p, &sh64[w], gidx, nthr, acc, y, acc64);
    else if (OP == OP_FADD)
        job_loop<J_FADD, WORK>(p, &sh[w], gidx, nthr, acc, y, acc64);
    else
        job_loop<J_IADD64, WORK>(p, &sh64[w], gidx, nthr, acc, y, acc64);
    if (!WORK) {
        /* a load of the lane's word, ordered after the lane's atomics on it; the comparison below
         * waits for it and the store it guards cannot pass the barrier: when the barrier opens,
         * every lane's jobs have completed */
        if (wide)
            acc64 ^= *(volatile unsigned long long *)&sh64[w];
        else if (OP == OP_MIX && (warp & 3u) < (unsigned)p.q)
            acc ^= *(volatile unsigned *)&sh[REGION + w];
        else
            acc ^= *(volatile unsigned *)&sh[w];
    }

    const long long t1 = jobs_done(p, acc ^ __float_as_uint(y) ^ (unsigned)acc64 ^ (unsigned)(acc64 >> 32), !WORK);

    /* checksum of the block's shared words, exact in double for these counts */
    if (warp == 0) {
        double s = 0;
        for (unsigned i = lane; i < REGION; i += 32) {
            if (wide)
                s += (double)sh64[i];
            else if (OP == OP_FADD)
                s += (double)((const float *)sh)[i] + (double)sh[REGION + i];
            else
                s += (double)sh[i] + (double)sh[REGION + i];
        }
        report_block(p, s, p.blocksum, !WORK, t0, t1);
    }
}

/* Named kernels (reports read well): vk_<op>_full with the work, vk_<op>_atom without.
 * 1024 threads, 2 blocks per SM where an SM holds them (AU_LAUNCH_BOUNDS_2X1024, ops.cuh): at most
 * 32 registers, so 64 warps fit on an SM. */
#define VK(name, op, work)                                  \
    __global__ void AU_LAUNCH_BOUNDS_2X1024 name(VParams p) \
    {                                                       \
        vk_body<op, work>(p);                               \
    }
VK(vk_add_full, OP_ADD, true)
VK(vk_add_atom, OP_ADD, false)
VK(vk_popc_full, OP_POPC, true)
VK(vk_popc_atom, OP_POPC, false)
VK(vk_mix_full, OP_MIX, true)
VK(vk_mix_atom, OP_MIX, false)
VK(vk_cas64_full, OP_CAS64, true)
VK(vk_cas64_atom, OP_CAS64, false)
VK(vk_fadd_full, OP_FADD, true)
VK(vk_fadd_atom, OP_FADD, false)
VK(vk_iadd64_full, OP_IADD64, true)
VK(vk_iadd64_atom, OP_IADD64, false)

/* ------------------------------------------------------------------ the family class
 * One job per operation, unit_bound's cases (calibrate/kernels/ops.cuh): the operation on *p with
 * the loop-invariant operand v (min64 and max64 also use the job index k; v is a kernel
 * parameter, unknown to the compiler, so that no operation is an identity it could turn into a
 * load); returns what feeds the checksum (0 where the result is unused: POPC.INC and the CAS
 * loops).  add and cas64 use the kernels above (vk_add_*, vk_cas64_*: the same ATOMS.ADD /
 * ATOMS.CAS.64 with pattern PAT_WORDS). */
#define VCASE(name, op, W, x) AU_CASE(op_##name, op, W, x)
AU_REFERENCE_CASES(VCASE)
#undef VCASE

#define FWORDS  1024 /* words per block: 4 KB (32-bit) or 8 KB (64-bit) */
#define FUNROLL 16   /* jobs per loop iteration, as unit_bound */

/* LP (the generic class): AU_LP_WORDS words, lane pattern au_lane_word(p.pattern), as unit_bound's
 * ub_kernel_lp. */
template <class Op, bool WORK, bool LP = false> __device__ __forceinline__ void fam_body(const VParams &p)
{
    typedef typename Op::T T;
    const int NW = LP ? AU_LP_WORDS : FWORDS;
    __shared__ __align__(8) T sh[NW];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    for (int i = tid; i < NW; i += blockDim.x)
        sh[i] = (T)p.init;
    const int P = sizeof(T) == 8 ? 16 : 32;
    T *const w = sh + (LP ? au_lane_word(p.pattern, warp, lane) : au_word_of(lane, warp, p.W, p.B, P));
    const T v = (T)p.v;
    float y = (float)lane;
    T acc = 0;
    __syncthreads();
    long long t0 = 0;
    if (!WORK)
        t0 = clock64();
    for (unsigned i = 0; i < p.iters; i += FUNROLL) {
#pragma unroll
        for (int u = 0; u < FUNROLL; ++u) {
            if (WORK) {
                /* the same dependent FFMA chain as the other classes */
                for (int l = 0; l < p.L; ++l)
                    y = fmaf(y, 0.999f, 1.0f);
            }
            acc ^= Op::job(w, v, i + u);
        }
    }
    /* ordered after this lane's atomics on its word; the comparison waits for the load, and the
     * store it guards cannot pass the barrier: every lane's jobs have completed when it opens */
    acc ^= *(volatile T *)w;
    const long long t1 =
        jobs_done(p, (unsigned)acc ^ (unsigned)((unsigned long long)acc >> 32) ^ __float_as_uint(y), !WORK);
    /* checksum: the wrapping 64-bit sum of the block's words (the host computes it exactly) */
    if (warp == 0) {
        unsigned long long s = 0;
        for (int i = lane; i < NW; i += 32)
            s += (unsigned long long)sh[i];
        report_block(p, s, p.blocksum64, !WORK, t0, t1);
    }
}

#define VKF(op, st)                                                   \
    __global__ void AU_LAUNCH_BOUNDS_2X1024 vk_##op##_full(VParams p) \
    {                                                                 \
        fam_body<st, true>(p);                                        \
    }                                                                 \
    __global__ void AU_LAUNCH_BOUNDS_2X1024 vk_##op##_atom(VParams p) \
    {                                                                 \
        fam_body<st, false>(p);                                       \
    }
VKF(popc_inc, op_popc_inc)
VKF(cas, op_cas)
VKF(exch, op_exch)
VKF(min, op_min)
VKF(max, op_max)
VKF(bit_and, op_and)
VKF(bit_or, op_or)
VKF(bit_xor, op_xor)
VKF(inc, op_inc)
VKF(dec, op_dec)
VKF(cast_spin, op_fadd)
VKF(exch64, op_exch64)
VKF(min64, op_min64)
VKF(max64, op_max64)
VKF(cast_spin64, op_add64)
VKF(and64, op_and64)
VKF(or64, op_or64)
VKF(xor64, op_xor64)
VKF(generic, op_gen_add)
VKF(gen_max, op_gen_max)
VKF(gen_cas, op_gen_cas)
VKF(gen_ptr_add, op_gen_ptr_add)
VKF(gen_h2_add, op_gen_h2_add)

/* The generic class's kernels, vk_generic_<op>_full / _atom: the generic operations on the lane
 * patterns of au_lane_word. */
#define VKG(name, st)                                                           \
    __global__ void AU_LAUNCH_BOUNDS_2X1024 vk_generic_##name##_full(VParams p) \
    {                                                                           \
        fam_body<st, true, true>(p);                                            \
    }                                                                           \
    __global__ void AU_LAUNCH_BOUNDS_2X1024 vk_generic_##name##_atom(VParams p) \
    {                                                                           \
        fam_body<st, false, true>(p);                                           \
    }
VKG(add, op_gen_add)
VKG(ptr_add, op_gen_ptr_add)
VKG(max, op_gen_max)
VKG(min, op_gen_min)
VKG(exch, op_gen_exch)
VKG(cas, op_gen_cas)
VKG(and, op_gen_and)
VKG(or, op_gen_or)
VKG(xor, op_gen_xor)
VKG(inc, op_gen_inc)
VKG(dec, op_gen_dec)

/* ------------------------------------------------------------------ the dsmem class
 * Lane patterns of a job (warp w < 32, lane l), words of the target block's first DSWORDS:
 *   distinct     w * 32 + l: 32 distinct words, one per bank, each warp its own row
 *   bank32       l * 32 + w: 32 words of bank w, one per row
 *   hashed       hash(w * 32 + l) % DSWORDS: a pseudo-random word per lane (same-word lanes fold
 *                into one word's count, bank conflicts as they fall)
 *   word_ownrow  w * 33: every lane of a warp on one word, each warp's in its own 128-byte row
 *                (and bank)
 *   word_onerow  w: every lane of a warp on one word, all warps' words in one 128-byte row
 *   word_one     0: every lane of every warp on word 0 (the "hot" points: every block of a cluster
 *                on rank 0's word 0, the CUDA Programming Guide's cluster histogram of one value)
 * (H100 with 32 warps, docs/calibration.md, "Distributed shared memory (cluster) families": the
 * last two cost 111 and 240 cycles per remote job, the same counters.) */
enum { DP_DISTINCT, DP_BANK32, DP_HASHED, DP_WORD_OWNROW, DP_WORD_ONEROW, NDPATS, DP_WORD_ONE = NDPATS };
#define DSWORDS 1024u /* words of a block the jobs use (of its dynamic shared memory) */
#define DS_SMEM_FLOOR \
    (120 * 1024) /* dynamic shared memory per block: at least this, and more
                                    * than half an SM's, so that no second block fits beside it */

__host__ __device__ __forceinline__ unsigned dsmem_word(int pattern, unsigned warp, unsigned lane)
{
    switch (pattern) {
    case DP_DISTINCT: return warp * 32u + lane;
    case DP_BANK32: return lane * 32u + warp;
    case DP_HASHED: return au_lane_hash(warp * 32u + lane) % DSWORDS;
    case DP_WORD_OWNROW: return warp * 33u;
    case DP_WORD_ONE: return 0u;
    default: return warp;
    }
}

/* One block of 32 warps, or of 16 (the half reference): zero its words, a cluster barrier (every
 * block's words zeroed before any job reaches them), `iters` jobs per lane on its word of rank
 * (own + shift) % C, each after L dependent FFMAs (WORK), results summed.  The jobs are those of
 * 32 warps in either case: with 16 warps, warp w takes the jobs of warps w and w + 16 in turn (two
 * words, alternate jobs), so the half reference runs the same requests per SM with half the
 * warps.  The atomics-only kernel times its jobs as the others
 * do (clock64 after the barrier, and after a block barrier that every lane reaches only with its
 * last result).  A second cluster barrier: every job on this block's words has completed (each
 * sender waited for its results before arriving), so warp 0 then reads them: the block's checksum
 * is sum_i (2 i + 1) word[i] (mod 2^64), with the sum of its lanes' results (mod 2^32). */
template <bool WORK> __device__ __forceinline__ void dsmem_body(const VParams &p)
{
    extern __shared__ unsigned ds_bins[];
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    __shared__ unsigned part[32];
    namespace cg = cooperative_groups;
    cg::cluster_group cl = cg::this_cluster();
    const unsigned tid = threadIdx.x, lane = tid & 31u, warp = tid >> 5;
    for (unsigned i = tid; i < DSWORDS; i += blockDim.x)
        ds_bins[i] = 0;
    /* the pointer is computed before the jobs (a special-register read after the barrier would
     * wait behind jobs already queued, calibrate/kernels/dsmem.cu); the target is a run-time value,
     * so the own rank's jobs compile to the same generic ATOM */
    const unsigned target = p.shift < 0 ? 0u : (cl.block_rank() + (unsigned)p.shift) % cl.num_blocks();
    unsigned *const base = cl.map_shared_rank(ds_bins, target);
    const unsigned nw = blockDim.x >> 5;
    unsigned *const w0 = base + dsmem_word(p.pattern, warp, lane);
    unsigned *const w1 = base + dsmem_word(p.pattern, nw < 32 ? warp + nw : warp, lane);
    cl.sync();
    /* both kernels time their jobs: per SM (one block each) the reference's and the full kernel's
     * windows, next to the launches' event times */
    const long long t0 = clock64();
    unsigned acc = 0;
    float y = (float)lane;
    for (unsigned i = 0; i < p.iters; i += UNROLL) {
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) {
            if (WORK) {
                /* the same dependent FFMA chain as the other classes */
                for (int l = 0; l < p.L; ++l)
                    y = fmaf(y, 0.999f, 1.0f);
            }
            acc += au_ops::add::job(u & 1 ? w1 : w0, 1u); /* result used: ATOM.E.ADD */
        }
    }
    const long long t1 = jobs_done(p, acc ^ __float_as_uint(y), true);
    for (int o = 16; o; o >>= 1)
        acc += __shfl_xor_sync(0xFFFFFFFFu, acc, o);
    if (lane == 0)
        part[warp] = acc;
    cl.sync();
    if (warp == 0) {
        unsigned long long s = 0;
        for (unsigned i = lane; i < DSWORDS; i += 32)
            s += (unsigned long long)ds_bins[i] * (2ull * i + 1);
        unsigned r = lane < (blockDim.x >> 5) ? part[lane] : 0u;
        for (int o = 16; o; o >>= 1)
            r += __shfl_xor_sync(0xFFFFFFFFu, r, o);
        if (lane == 0)
            p.ressum[blockIdx.x] = r;
        report_block(p, s, p.blocksum64, true, t0, t1);
    }
#else
    (void)ds_bins;
    if (threadIdx.x == 0) /* built without sm_90 code: the host checks ptxVersion first */
        p.smid[blockIdx.x] = 0xFFFFFFFEu;
#endif
}

/* Own rank and ring: the same code (the target is a run-time value), two names, so that reports
 * and the profiler's per-kernel choices keep them apart.  One block of up to 32 warps per SM. */
#define VKD(name, work)                                        \
    __global__ void __launch_bounds__(1024, 1) name(VParams p) \
    {                                                          \
        dsmem_body<work>(p);                                   \
    }
VKD(vk_dsmem_own_full, true)
VKD(vk_dsmem_own_atom, false)
VKD(vk_dsmem_ring_full, true)
VKD(vk_dsmem_ring_atom, false)
VKD(vk_dsmem_hot_full, true)
VKD(vk_dsmem_hot_atom, false)

/* launch overhead of a cluster launch of the same shape and shared memory */
__global__ void overhead_empty_cluster(void)
{
    extern __shared__ unsigned ds_bins[];
    (void)ds_bins;
}

__global__ void overhead_empty(void)
{
}

/* Non-zero pseudo-random words (never time on zeros). */
__global__ void init_buffer(unsigned *buf, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned x = (unsigned)i * 0x9E3779B1u + 0x7F4A7C15u;
        x ^= x >> 15, x *= 0x2C1B3C6Du, x ^= x >> 12;
        buf[i] = x | 1u;
    }
}

typedef void (*vk_fn)(VParams);
static const struct {
    const char *name;
    vk_fn full, atom;
} ops[NOPS] = {
    {"add", vk_add_full, vk_add_atom},    {"popc", vk_popc_full, vk_popc_atom},
    {"mix", vk_mix_full, vk_mix_atom},    {"cas64", vk_cas64_full, vk_cas64_atom},
    {"fadd", vk_fadd_full, vk_fadd_atom}, {"iadd64", vk_iadd64_full, vk_iadd64_atom},
};

/* Expected final value of a family word hit by n jobs (the host's side of the checksum). */
enum {
    FV_ADD,
    FV_POPC,
    FV_CAS,
    FV_EXCH,
    FV_MIN32,
    FV_MAX,
    FV_AND,
    FV_OR,
    FV_XOR,
    FV_INC,
    FV_DEC,
    FV_FADD,
    FV_MIN64,
    FV_MAX64,
    FV_ADD64,
    FV_H2ADD,
    FV_MINU
};

/* The family class's operations: unit_bound's op names, the table family atomutil prices them
 * with, the opcode the compiler emits on sm_90 (confirmed on an H100 with unit_bound), initial
 * word value and operand, and the saturated cycles per job unit_bound measured on an H100 (64
 * warps per SM) for the patterns distinct / words4_bank / word (per source-level operation for
 * the CAS loops).  old_op >= 0: the kernels of that op above (vk_add_*, vk_cas64_*). */
typedef struct {
    const char *name, *family, *sass;
    int width, loop, old_op, rule;
    vk_fn full, atom;
    unsigned long long init, v;
    double est[3];
} fam_op;

#define I64(x) ((unsigned long long)(x))
static const fam_op fops[] = {
    {"add", "add", "ATOMS.ADD", 32, 0, OP_ADD, FV_ADD, vk_add_full, vk_add_atom, 0, 1, {1.0, 32, 32}},
    {"popc_inc",
     "popc_inc",
     "ATOMS.POPC.INC.32",
     32,
     0,
     -1,
     FV_POPC,
     vk_popc_inc_full,
     vk_popc_inc_atom,
     0,
     1,
     {1.0, 4.0, 1.0}},
    {"cas", "cas", "ATOMS.CAS", 32, 0, -1, FV_CAS, vk_cas_full, vk_cas_atom, K0, K0, {2.0, 64, 64}},
    {"exch", "exch", "ATOMS.EXCH", 32, 0, -1, FV_EXCH, vk_exch_full, vk_exch_atom, 0, K0, {1.0, 32, 32}},
    {"min", "min", "ATOMS.MIN.S32", 32, 0, -1, FV_MIN32, vk_min_full, vk_min_atom, K0, 7, {1.0, 32, 32}},
    {"max", "max", "ATOMS.MAX", 32, 0, -1, FV_MAX, vk_max_full, vk_max_atom, 7, K0, {1.0, 32, 32}},
    {"bit_and", "bit_and", "ATOMS.AND", 32, 0, -1, FV_AND, vk_bit_and_full, vk_bit_and_atom, K0, 1, {1.0, 32, 32}},
    {"bit_or", "bit_or", "ATOMS.OR", 32, 0, -1, FV_OR, vk_bit_or_full, vk_bit_or_atom, K0, 0x100, {1.0, 32, 32}},
    {"bit_xor", "bit_xor", "ATOMS.XOR", 32, 0, -1, FV_XOR, vk_bit_xor_full, vk_bit_xor_atom, K0, 0x5A5A, {1.0, 32, 32}},
    /* inc: wrap v | 2^31 = 0x80000001, far above the counts: counts like add */
    {"inc", "inc", "ATOMS.INC", 32, 0, -1, FV_INC, vk_inc_full, vk_inc_atom, 5, 1, {1.0, 32, 32}},
    /* dec: wrap v | 2^31 = 0xFFFFFFFF: counts down from its initial value (mod 2^32) */
    {"dec", "dec", "ATOMS.DEC", 32, 0, -1, FV_DEC, vk_dec_full, vk_dec_atom, 0x80000000u, 0xFFFFFFFFu, {1.0, 32, 32}},
    /* float atomicAdd of 1.0f from 0.0f: exact while below 2^24 (checked on the host) */
    {"cast_spin",
     "cast_spin",
     "ATOMS.CAST.SPIN",
     32,
     1,
     -1,
     FV_FADD,
     vk_cast_spin_full,
     vk_cast_spin_atom,
     0,
     1,
     {3.0, 186, 96}},
    {"cas64", "cas64", "ATOMS.CAS.64", 64, 0, OP_CAS64, FV_CAS, vk_cas64_full, vk_cas64_atom, K0, K0, {4.0, 64, 64}},
    {"exch64",
     "exch",
     "ATOMS.EXCH.64",
     64,
     0,
     -1,
     FV_EXCH,
     vk_exch64_full,
     vk_exch64_atom,
     0,
     I64(0x123456789ABCDEF0),
     {2.0, 32, 32}},
    /* min64/max64: operand v -/+ job index; sm_90 compiles them to a CAS loop that skips the CAS
     * where the value need not change (ATOMS.CAST.SPIN.64, family cast_spin64 by opcode) */
    {"min64",
     "min",
     "ATOMS.CAST.SPIN.64 (conditional loop)",
     64,
     1,
     -1,
     FV_MIN64,
     vk_min64_full,
     vk_min64_atom,
     K0,
     I64(-5),
     {6.0, 64, 64}},
    {"max64",
     "max",
     "ATOMS.CAST.SPIN.64 (conditional loop)",
     64,
     1,
     -1,
     FV_MAX64,
     vk_max64_full,
     vk_max64_atom,
     K0,
     I64(0x100000001),
     {6.0, 64, 64}},
    {"cast_spin64",
     "cast_spin64",
     "ATOMS.CAST.SPIN.64",
     64,
     1,
     -1,
     FV_ADD64,
     vk_cast_spin64_full,
     vk_cast_spin64_atom,
     0,
     I64(0x100000001),
     {6.0, 185, 140}},
    {"and64",
     "cast_spin64",
     "ATOMS.CAST.SPIN.64",
     64,
     1,
     -1,
     FV_AND,
     vk_and64_full,
     vk_and64_atom,
     I64(0xFFFFFFFF00003039),
     I64(0x100000001),
     {6.0, 177, 80}},
    {"or64",
     "cast_spin64",
     "ATOMS.CAST.SPIN.64",
     64,
     1,
     -1,
     FV_OR,
     vk_or64_full,
     vk_or64_atom,
     K0,
     I64(0x100000100),
     {6.0, 177, 80}},
    {"xor64",
     "cast_spin64",
     "ATOMS.CAST.SPIN.64",
     64,
     1,
     -1,
     FV_XOR,
     vk_xor64_full,
     vk_xor64_atom,
     K0,
     I64(0xA5A500005A5A),
     {6.0, 185, 140}},
    /* generic atomics on shared memory (docs/opcodes.md, "Generic atomics"): the family generic's
     * operation (cuda::atomic_ref, fetch_add), fetch_max and compare_exchange through the same
     * reference, and atomicAdd through a pointer the compiler cannot trace to shared memory; their
     * saturated costs are assumed those of the ATOMS forms (they only size the points) */
    {"generic",
     "generic",
     "ATOM.E.ADD (atomic_ref)",
     32,
     0,
     -1,
     FV_ADD,
     vk_generic_full,
     vk_generic_atom,
     0,
     1,
     {1.0, 32, 32}},
    {"gen_max",
     "generic",
     "ATOM.E.MAX (atomic_ref)",
     32,
     0,
     -1,
     FV_MAX,
     vk_gen_max_full,
     vk_gen_max_atom,
     7,
     K0,
     {1.0, 32, 32}},
    {"gen_cas",
     "generic",
     "ATOM.E.CAS (atomic_ref)",
     32,
     0,
     -1,
     FV_CAS,
     vk_gen_cas_full,
     vk_gen_cas_atom,
     K0,
     K0,
     {2.0, 64, 64}},
    {"gen_ptr_add",
     "generic",
     "ATOM.E.ADD (generic pointer)",
     32,
     0,
     -1,
     FV_ADD,
     vk_gen_ptr_add_full,
     vk_gen_ptr_add_atom,
     0,
     1,
     {1.0, 32, 32}},
    /* half2 atomicAdd of (1, 1) through a generic pointer: on shared memory the compiler's CAS loop
     * (family cast_spin by its opcode; the ATOM.E.ADD.F16x2 beside it serves other memory) */
    {"gen_h2_add",
     "cast_spin",
     "ATOMS.CAST.SPIN (+ ATOM.E.ADD.F16x2)",
     32,
     1,
     -1,
     FV_H2ADD,
     vk_gen_h2_add_full,
     vk_gen_h2_add_atom,
     0,
     0x3C003C00u,
     {3.0, 186, 96}},
};
#define NFOPS (int)(sizeof fops / sizeof fops[0])

/* The family class's lane patterns, unit_bound's names; B = 0: all slots of a row (distinct). */
static const struct {
    const char *name;
    int W, B;
} fpats[] = {{"distinct", 32, 0}, {"words4_bank", 4, 1}, {"word", 1, 1}};
#define NFPATS 3

/* The generic class's operations (issue 36): every 32-bit generic atomic on shared memory, by the
 * word of its point and kernel names (generic_<tok>_..., vk_generic_<tok>_*) and as a family
 * operation (unit_bound's op name, opcode on sm_90, initial word value and operand, the exact final
 * value's rule); est is not used (the points' costs come from their lane patterns: lp_est). */
typedef struct {
    const char *tok;
    int cas; /* ATOM.E.CAS: its own cost per pass */
    fam_op o;
} gen_op;

static gen_op make_gop(const char *tok, int cas, const char *name, const char *sass, int rule, unsigned long long init,
                       unsigned long long v, vk_fn full, vk_fn atom)
{
    const gen_op g = {tok, cas, {name, "generic", sass, 32, 0, -1, rule, full, atom, init, v, {0, 0, 0}}};
    return g;
}
#define GOP(tok, cas, name, sass, rule, init, v) \
    make_gop(#tok, cas, name, sass, rule, init, v, vk_generic_##tok##_full, vk_generic_##tok##_atom)
static const gen_op gops[] = {
    GOP(add, 0, "generic", "ATOM.E.ADD (atomic_ref)", FV_ADD, 0, 1),
    GOP(ptr_add, 0, "gen_ptr_add", "ATOM.E.ADD (generic pointer)", FV_ADD, 0, 1),
    GOP(max, 0, "gen_max", "ATOM.E.MAX (atomic_ref)", FV_MAX, 7, K0),
    GOP(min, 0, "gen_min", "ATOM.E.MIN (atomic_ref)", FV_MINU, K0, 7),
    GOP(exch, 0, "gen_exch", "ATOM.E.EXCH (atomic_ref)", FV_EXCH, 0, K0),
    GOP(cas, 1, "gen_cas", "ATOM.E.CAS (atomic_ref)", FV_CAS, K0, K0),
    GOP(and, 0, "gen_and", "ATOM.E.AND (atomic_ref)", FV_AND, K0, 1),
    GOP(or, 0, "gen_or", "ATOM.E.OR (atomic_ref)", FV_OR, K0, 0x100),
    GOP(xor, 0, "gen_xor", "ATOM.E.XOR (atomic_ref)", FV_XOR, K0, 0x5A5A),
    /* inc: wrap 0x80000001, far above the counts; dec: wrap 0xFFFFFFFF, counts down */
    GOP(inc, 0, "gen_inc", "ATOM.E.INC (generic pointer)", FV_INC, 5, 1),
    GOP(dec, 0, "gen_dec", "ATOM.E.DEC (generic pointer)", FV_DEC, 0x80000000u, 0xFFFFFFFFu),
};
#undef GOP
#define NGOPS (int)(sizeof gops / sizeof gops[0])

/* Estimated saturated cycles per job of a generic operation on lane pattern lp (2 blocks x 32 warps
 * per SM): each warp's instruction takes a passes, a = the most lanes of the warp in one bank (on
 * one word or not), and costs max(2, a) cycles, or ATOM.E.CAS 3 at one pass and 2 per pass from 2
 * on (H100, docs/opcodes.md, "Generic atomics"); the mean over the warps of a block. */
static double lp_est(int lp, int cas)
{
    double sum = 0;
    for (int w = 0; w < 32; ++w) {
        int n[32] = {0}, a = 0;
        for (int l = 0; l < 32; ++l) {
            int *c = &n[au_lane_word(lp, w, l) % 32];
            a = ++*c > a ? *c : a;
        }
        sum += cas ? (a == 1 ? 3 : 2 * a) : (a < 2 ? 2 : a);
    }
    return sum / 32;
}

typedef struct {
    char name[48];
    const char *cls;    /* the knob the point belongs to */
    const char *family; /* table family that matches the op (for --family) */
    int op, pattern, d, q, L, G;
    int bnum, bden;     /* blocks per SM = bnum / bden (bden > 1: uneven over SMs) */
    int warps;          /* warps per block */
    double est;         /* estimated saturated cycles per job, only sizes the point */
    int fop, fpat;      /* family class: index in fops and fpats; -1 for the other classes */
    int gop, lp;        /* generic class: index in gops, lane pattern (AU_LP_*); -1 for the others */
    int W, B;           /* family class: word_of's W and B */
    int level;          /* family class: work level 0..3 (none, ~70, ~40, ~15 % intended) */
    double t_est;       /* family class: estimated cycles per job of the full kernel */
    char ub_case[40];   /* unit_bound case of the same jobs at the unit's rate, or "" */
    int dpat;           /* dsmem class: lane pattern (DP_*); -1 for the other classes */
    int cluster, shift; /* dsmem class: blocks per cluster, target rank = (own + shift) % cluster */
} point;

#define MAXPOINTS 1024
static point pts[MAXPOINTS];
static int npts;

static void add_point(const char *cls, int op, int pattern, int d, int q, int L, int G, int bnum, int bden, int warps)
{
    if (npts >= MAXPOINTS) {
        fprintf(stderr, "validation: more than %d points (raise MAXPOINTS)\n", MAXPOINTS);
        exit(2);
    }
    point *p = &pts[npts++];
    memset(p, 0, sizeof *p);
    p->fop = p->fpat = p->level = p->dpat = p->gop = p->lp = -1;
    p->cls = cls, p->op = op, p->pattern = pattern, p->d = d, p->q = q, p->L = L, p->G = G;
    p->bnum = bnum, p->bden = bden, p->warps = warps;
    static const char *const fam[NOPS] = {"add", "popc_inc", "add", "cas64", "cast_spin", "cast_spin64"};
    p->family = op == OP_MIX && q == 4 ? "cas" : fam[op];
    double passes = pattern == PAT_ADDR ? (op == OP_POPC ? 1 : 32) : d;
    switch (op) {
    case OP_MIX: p->est = passes * (1 + q / 4.0); break;
    case OP_CAS64: p->est = 2 * (passes < 2 ? 2 : passes); break;
    case OP_FADD: p->est = pattern == PAT_ADDR ? 400 : 3.5; break;
    case OP_IADD64: p->est = 6.5; break;
    default: p->est = passes;
    }
    char pat[16], occ[32];
    if (pattern == PAT_ADDR)
        snprintf(pat, sizeof pat, "same");
    else
        snprintf(pat, sizeof pat, "d%d", d);
    if (bden > 1)
        snprintf(occ, sizeof occ, "_b%gx%d", (double)bnum / bden, warps);
    else if (bnum != 2 || warps != 32)
        snprintf(occ, sizeof occ, "_b%dx%d", bnum, warps);
    else
        occ[0] = '\0';
    char cas[8] = "", work[24] = "";
    if (op == OP_MIX)
        snprintf(cas, sizeof cas, "_c%d", 25 * q);
    if (L)
        snprintf(work, sizeof work, "_L%d", L);
    if (G)
        snprintf(work + strlen(work), sizeof work - strlen(work), "_G%d", G);
    snprintf(p->name, sizeof p->name, "%s_%s%s%s%s", ops[op].name, pat, cas, work, occ);
    /* the unit_bound case of the reference's jobs: only where the reference launch is 2 blocks x
     * 32 warps per SM (the same launch, or reshaped to it), as unit_bound's; none for the CAS
     * mixes (no single case) */
    const int ref_2x32 = warps != 32 || (bnum == 2 && bden == 1);
    const char *ubop = op == OP_ADD      ? "add"
                       : op == OP_POPC   ? "popc_inc"
                       : op == OP_CAS64  ? "cas64"
                       : op == OP_FADD   ? "cast_spin"
                       : op == OP_IADD64 ? "cast_spin64"
                                         : NULL;
    if (!ref_2x32 || !ubop)
        return;
    if (pattern == PAT_ADDR) {
        if (op == OP_ADD || op == OP_POPC || op == OP_FADD)
            snprintf(p->ub_case, sizeof p->ub_case, "%s/word", ubop);
    } else if (d == 1) {
        snprintf(p->ub_case, sizeof p->ub_case, "%s/distinct", ubop);
    } else if (d == 2 || d == 4 || d == 8 || d == 16 || d == 32) {
        if (op == OP_ADD || op == OP_POPC || op == OP_CAS64)
            snprintf(p->ub_case, sizeof p->ub_case, "%s/bank%d", ubop, d);
    }
}

/* Work of L dependent FFMAs per job, cycles per job per SM with 64 warps: measured with the
 * other classes on an H100 (docs/validation.md, "The suite": L = 1, 2, 4, 8 cost 2.9, 3.8, 6.9,
 * 7.5 cycles per job with a 1-cycle ADD; about 5 + 0.3 L from 8 on, 2 more for 64-bit and CAS-loop
 * kernels).  The sizing note's 0.4 L (shape_of) fits from L = 64 on but
 * misses the latency of small L: with one FFMA per job a 1-cycle operation already falls to 35 %,
 * so for 1-cycle operations no integer L gives 70 %. */
static double work_cycles(int L, double base)
{
    static const double small[8] = {0, 2.9, 3.8, 5.4, 6.9, 7.0, 7.2, 7.3};
    if (L <= 0)
        return 0;
    if (L < 8)
        return small[L] + (base - 5);
    return base + 0.3 * L;
}

/* Estimated cycles per job of a full kernel: the larger of the unit's time and the work's; a CAS
 * loop's attempts wait for each other, so its warp adds the work's latency (about 0.19 L per job,
 * H100: float CAS loop on one word per warp, L = 64: 104 -> 116 cycles). */
static double t_estimate(double est, int L, int loop, int wide)
{
    double t = work_cycles(L, loop || wide ? 7 : 5);
    if (t < est)
        t = est;
    if (loop && t < est + 0.19 * L)
        t = est + 0.19 * L;
    return t;
}

/* Estimated cycles per job of a dsmem full kernel (32 warps per SM), from its own-rank points on
 * an H100 (2026-11-24): 2.6, 3.2-3.5, 8.0-8.2 and 9.0 cycles per job for L = 1, 3, 6 and 12 (a
 * step from L = 4 on, as work_cycles has with 64 warps), work_cycles' line above. */
static double dsmem_t_estimate(double est, int L)
{
    double t = L <= 0 ? 0 : L <= 3 ? 2.3 + 0.33 * L : L <= 12 ? 7.0 + 0.25 * (L - 4) : work_cycles(L, 5);
    if (L > 12 && t < 9.0)
        t = 9.0;
    return t > est ? t : est;
}

/* Work levels of a family point: L = 0, then the L whose estimated U_true = est / t_estimate is
 * nearest (in ratio) to 70, 40 and 15 %, increasing; up to L = 4096.  A dsmem point (dsmem != 0):
 * the same with dsmem_t_estimate, up to 8192 (its remote jobs cost up to 255 cycles). */
static void family_levels(double est, int loop, int wide, int dsmem, int L[4])
{
    static const int cand[] = {1,   2,   3,   4,   6,   8,   12,   16,   24,   32,   48,   64,   96,
                               128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192};
    static const double target[3] = {0.70, 0.40, 0.15};
    const size_t ncand = sizeof cand / sizeof *cand - (dsmem ? 0 : 2);
    L[0] = 0;
    for (int k = 0; k < 3; ++k) {
        int best = -1;
        double bd = 0;
        for (size_t i = 0; i < ncand; ++i) {
            if (cand[i] <= L[k])
                continue;
            const double t = dsmem ? dsmem_t_estimate(est, cand[i]) : t_estimate(est, cand[i], loop, wide);
            double d = fabs(log(est / t / target[k]));
            if (best < 0 || d < bd)
                best = cand[i], bd = d;
        }
        L[k + 1] = best;
    }
}

/* One point of the family class: operation f, pattern q, work level k with L FFMAs per job;
 * 2 blocks x 32 warps per SM, the reference is the same launch without the work. */
static void add_family_point(int f, int q, int k, int L)
{
    const fam_op *o = &fops[f];
    add_point("family", o->old_op >= 0 ? o->old_op : OP_ADD, PAT_WORDS, 0, 0, L, 0, 2, 1, 32);
    point *p = &pts[npts - 1];
    p->op = o->old_op; /* -1: the family kernels (fops[f].full / .atom) */
    p->fop = f, p->fpat = q, p->level = k;
    p->family = o->family;
    p->W = fpats[q].W;
    p->B = fpats[q].B ? fpats[q].B : (o->width == 64 ? 16 : 32);
    p->est = o->est[q];
    p->t_est = t_estimate(p->est, L, o->loop, o->width == 64);
    snprintf(p->name, sizeof p->name, "%s_%s", o->name, fpats[q].name);
    if (L)
        snprintf(p->name + strlen(p->name), sizeof p->name - strlen(p->name), "_L%d", L);
    snprintf(p->ub_case, sizeof p->ub_case, "%s/%s", o->name, fpats[q].name);
}

/* One point of the generic class: operation g, lane pattern lp (au_lane_word), work level k with L
 * FFMAs per job; 2 blocks x 32 warps per SM, the reference is the same launch without the work,
 * the unit_bound case <op>/<pattern>. */
static void add_generic_point(int g, int lp, int k, int L, double est)
{
    add_point("generic", OP_ADD, PAT_WORDS, 0, 0, L, 0, 2, 1, 32);
    point *p = &pts[npts - 1];
    p->op = -1; /* the generic kernels (gops[g].o.full / .atom) */
    p->gop = g, p->lp = lp, p->level = k;
    p->family = "generic";
    p->est = est;
    p->t_est = t_estimate(est, L, 0, 0);
    snprintf(p->name, sizeof p->name, "generic_%s_%s", gops[g].tok, au_lane_pattern_name(lp));
    if (L)
        snprintf(p->name + strlen(p->name), sizeof p->name - strlen(p->name), "_L%d", L);
    snprintf(p->ub_case, sizeof p->ub_case, "%s/%s", gops[g].o.name, au_lane_pattern_name(lp));
}

/* The dsmem class's lane patterns (dsmem_word) and the cycles per job per SM of their reference
 * (32 warps, no work) measured on an H100 (docs/calibration.md, "Distributed shared memory (cluster)
 * families", the probe's table, result used: own rank, then the ring at C = 2, 4, 8; word_ownrow:
 * the calibration kernel's row per warp, 111 at C = 2, taken for every C).  They only size the
 * points and choose the work levels. */
static const struct {
    const char *name;
    double own, ring[3];
} dpats[NDPATS] = {
    {"distinct", 2.0, {14.2, 15.9, 15.7}},        {"bank32", 32.0, {96.0, 112.5, 111.6}},
    {"hashed", 3.5, {113.6, 135.8, 130.8}},       {"word_ownrow", 32.0, {111.0, 111.0, 111.0}},
    {"word_onerow", 32.0, {240.5, 255.5, 253.8}},
};
static const int dclusters[3] = {2, 4, 8};
/* word_one on rank 0 of clusters of 2, 4, 8 (the hot points): the receiving SM's cycles per job
 * of each SM (H100, docs/results/dsmem-patterns-h100-2026-11-24: 80, 185, 335 with 32 warps on
 * one word each; with one word for all, sized the same) */
static const double dhot[3] = {80.0, 185.0, 335.0};

/* A dsmem point's target: its own rank, the next (ring), or rank 0 for every block (hot). */
static const char *dsmem_target_name(const point *p)
{
    return p->shift < 0 ? "hot" : p->shift ? "ring" : "own";
}

/* One point of the dsmem class: clusters of C blocks, jobs to rank (own + shift) % C, lane pattern
 * q, work level k with L FFMAs per job; one block of 32 warps per SM, the reference is the same
 * launch without the work. */
static void add_dsmem_point(int C, int shift, int q, int k, int L, double est)
{
    add_point("dsmem", OP_ADD, PAT_WORDS, 0, 0, L, 0, 1, 1, 32);
    point *p = &pts[npts - 1];
    p->op = -1;
    p->family = "dsmem";
    p->dpat = q, p->cluster = C, p->shift = shift, p->level = k;
    p->est = est;
    p->t_est = dsmem_t_estimate(est, L);
    snprintf(p->name, sizeof p->name, "dsmem_c%d_%s_%s", C, dsmem_target_name(p),
             q == DP_WORD_ONE ? "word_one" : dpats[q].name);
    if (L)
        snprintf(p->name + strlen(p->name), sizeof p->name - strlen(p->name), "_L%d", L);
    p->ub_case[0] = '\0';
}

/* The ground-truth suite: one knob per class, the others at a reference value
 * (ATOMS.ADD, 2 blocks x 32 warps per SM, no work). */
static void build_points(void)
{
    static const int alu1[] = {0, 1, 2, 4, 8, 16, 64}, alu8[] = {0, 8, 16, 32, 64, 256},
                     alu32[] = {0, 32, 64, 128, 256, 1024};
    for (size_t i = 0; i < sizeof alu1 / sizeof *alu1; ++i)
        add_point("alu", OP_ADD, PAT_BANK, 1, 0, alu1[i], 0, 2, 1, 32);
    for (size_t i = 0; i < sizeof alu8 / sizeof *alu8; ++i)
        add_point("alu", OP_ADD, PAT_BANK, 8, 0, alu8[i], 0, 2, 1, 32);
    for (size_t i = 0; i < sizeof alu32 / sizeof *alu32; ++i)
        add_point("alu", OP_ADD, PAT_BANK, 32, 0, alu32[i], 0, 2, 1, 32);
    static const int dl0[] = {2, 4, 16}, dl8[] = {2, 4, 16, 32}; /* d = 1, 8 with L = 8: class alu */
    for (size_t i = 0; i < 3; ++i)
        add_point("conflict", OP_ADD, PAT_BANK, dl0[i], 0, 0, 0, 2, 1, 32);
    for (size_t i = 0; i < sizeof dl8 / sizeof *dl8; ++i)
        add_point("conflict", OP_ADD, PAT_BANK, dl8[i], 0, 8, 0, 2, 1, 32);
    static const int g1[] = {1, 2}, g8[] = {1, 2, 4}, g32[] = {1, 2, 4, 8};
    for (size_t i = 0; i < 2; ++i)
        add_point("mem", OP_ADD, PAT_BANK, 1, 0, 0, g1[i], 2, 1, 32);
    for (size_t i = 0; i < 3; ++i)
        add_point("mem", OP_ADD, PAT_BANK, 8, 0, 0, g8[i], 2, 1, 32);
    for (size_t i = 0; i < 4; ++i)
        add_point("mem", OP_ADD, PAT_BANK, 32, 0, 0, g32[i], 2, 1, 32);
    for (int q = 0; q <= 4; ++q)
        add_point("cas_mix", OP_MIX, PAT_BANK, 1, q, 0, 0, 2, 1, 32);
    for (int q = 1; q <= 4; ++q)
        add_point("cas_mix", OP_MIX, PAT_BANK, 8, q, 0, 0, 2, 1, 32);
    add_point("cas_mix", OP_MIX, PAT_BANK, 1, 2, 8, 0, 2, 1, 32);
    add_point("cas_mix", OP_MIX, PAT_BANK, 1, 4, 8, 0, 2, 1, 32);
    add_point("cas_mix", OP_MIX, PAT_BANK, 8, 4, 32, 0, 2, 1, 32);
    add_point("popc", OP_POPC, PAT_ADDR, 32, 0, 0, 0, 2, 1, 32);
    add_point("popc", OP_POPC, PAT_ADDR, 32, 0, 8, 0, 2, 1, 32);
    add_point("popc", OP_POPC, PAT_ADDR, 32, 0, 32, 0, 2, 1, 32);
    add_point("popc", OP_ADD, PAT_ADDR, 32, 0, 0, 0, 2, 1, 32);
    add_point("popc", OP_ADD, PAT_ADDR, 32, 0, 32, 0, 2, 1, 32);
    add_point("popc", OP_POPC, PAT_BANK, 8, 0, 0, 0, 2, 1, 32);
    add_point("popc", OP_POPC, PAT_BANK, 8, 0, 16, 0, 2, 1, 32);
    add_point("popc", OP_POPC, PAT_BANK, 32, 0, 0, 0, 2, 1, 32);
    static const int d64[] = {1, 4, 16, 32};
    for (size_t i = 0; i < 4; ++i)
        add_point("cas64", OP_CAS64, PAT_BANK, d64[i], 0, 0, 0, 2, 1, 32);
    add_point("cas64", OP_CAS64, PAT_BANK, 2, 0, 16, 0, 2, 1, 32);
    add_point("cas64", OP_CAS64, PAT_BANK, 2, 0, 64, 0, 2, 1, 32);
    static const int lf[] = {0, 8, 32, 128};
    for (size_t i = 0; i < 4; ++i)
        add_point("loop_f32", OP_FADD, PAT_BANK, 1, 0, lf[i], 0, 2, 1, 32);
    add_point("loop_f32", OP_FADD, PAT_ADDR, 32, 0, 0, 0, 2, 1, 32);
    add_point("loop_f32", OP_FADD, PAT_ADDR, 32, 0, 64, 0, 2, 1, 32);
    static const int li[] = {0, 16, 64};
    for (size_t i = 0; i < 3; ++i)
        add_point("loop_i64", OP_IADD64, PAT_BANK, 1, 0, li[i], 0, 2, 1, 32);
    static const int occ1[][2] = {{1, 1}, {1, 2}, {1, 4}, {1, 8}, {2, 8}, {1, 16}, {4, 8}, {1, 32}, {8, 8}};
    for (size_t i = 0; i < sizeof occ1 / sizeof *occ1; ++i)
        add_point("occupancy", OP_ADD, PAT_BANK, 1, 0, 0, 0, occ1[i][0], 1, occ1[i][1]);
    static const int occ8[][2] = {{1, 1}, {1, 4}, {1, 16}, {2, 16}};
    for (size_t i = 0; i < sizeof occ8 / sizeof *occ8; ++i)
        add_point("occupancy", OP_ADD, PAT_BANK, 8, 0, 0, 0, occ8[i][0], 1, occ8[i][1]);
    static const int occw[][2] = {{1, 4}, {1, 16}, {2, 16}};
    for (size_t i = 0; i < sizeof occw / sizeof *occw; ++i)
        add_point("occupancy", OP_ADD, PAT_BANK, 1, 0, 16, 0, occw[i][0], 1, occw[i][1]);
    /* uneven: 1.5 blocks per SM (some SMs hold 2, others 1), or half the SMs idle */
    add_point("imbalance", OP_ADD, PAT_BANK, 8, 0, 0, 0, 3, 2, 32);
    add_point("imbalance", OP_ADD, PAT_BANK, 8, 0, 32, 0, 3, 2, 32);
    add_point("imbalance", OP_ADD, PAT_BANK, 1, 0, 8, 0, 3, 2, 32);
    add_point("imbalance", OP_ADD, PAT_BANK, 1, 0, 0, 0, 1, 2, 32);
    /* the family class: every operation x lane pattern x 4 work levels (issue 11) */
    for (int f = 0; f < NFOPS; ++f)
        for (int q = 0; q < NFPATS; ++q) {
            int L[4];
            family_levels(fops[f].est[q], fops[f].loop, fops[f].width == 64, 0, L);
            for (int k = 0; k < 4; ++k)
                add_family_point(f, q, k, L[k]);
        }
    /* the dsmem class: own rank at C = 2, the ring at C = 2, 4, 8; every lane pattern x 4 work
     * levels (issue 12) */
    for (int c = -1; c < 3; ++c)
        for (int q = 0; q < NDPATS; ++q) {
            const double est = c < 0 ? dpats[q].own : dpats[q].ring[c];
            int L[4];
            family_levels(est, 0, 0, 1, L);
            for (int k = 0; k < 4; ++k)
                add_dsmem_point(c < 0 ? 2 : dclusters[c], c < 0 ? 0 : 1, q, k, L[k], est);
        }
    /* the generic class: every generic operation x lane pattern x 4 work levels (issue 36) */
    for (int g = 0; g < NGOPS; ++g)
        for (int lp = 0; lp < AU_LP_COUNT; ++lp) {
            const double est = lp_est(lp, gops[g].cas);
            int L[4];
            family_levels(est, 0, 0, 0, L);
            for (int k = 0; k < 4; ++k)
                add_generic_point(g, lp, k, L[k], est);
        }
    /* the dsmem class again: every block of a cluster on rank 0's word 0, C = 2, 4, 8 (issue 36:
     * the cluster histogram of one value) */
    for (int c = 0; c < 3; ++c) {
        int L[4];
        family_levels(dhot[c], 0, 0, 1, L);
        for (int k = 0; k < 4; ++k)
            add_dsmem_point(dclusters[c], -1, DP_WORD_ONE, k, L[k], dhot[c]);
    }
}

/* The family or generic class's operation of a point, NULL for the other classes. */
static const fam_op *op_of(const point *p)
{
    return p->fop >= 0 ? &fops[p->fop] : p->gop >= 0 ? &gops[p->gop].o : NULL;
}

/* Launch shapes and job counts of a point on a GPU with `sm` SMs. */
typedef struct {
    int grid, block, agrid, ablock;
    unsigned iters, aiters;
    double jobs_per_sm; /* nominal, per SM that holds bnum/bden blocks */
    int reshaped;       /* the atomics-only launch spreads the jobs over 2 x 32 warps per SM */
} shape;

static shape shape_of(const point *p, int sm, double scale)
{
    shape s;
    double bps = (double)p->bnum / p->bden, wps = bps * p->warps;
    s.grid = sm * p->bnum / p->bden;
    if (p->dpat >= 0) /* whole clusters (at most; the launch takes as many as fit at once) */
        s.grid = sm / p->cluster * p->cluster;
    s.block = 32 * p->warps;
    s.reshaped = p->warps != 32;
    /* about 600k cycles of atomics (0.3 ms), the full kernel at most about 8M cycles */
    double work = 0.4 * p->L + 12.0 * p->G;
    double full = p->est > work ? p->est : work;
    if (p->t_est > full)
        full = p->t_est; /* family, dsmem: the measured work curve (work_cycles) where it is larger */
    if (wps < 16)
        full *= 16.0 / wps; /* few warps: latency-bound */
    double jobs = 6e5 / p->est;
    if (jobs > 8e6 / full)
        jobs = 8e6 / full;
    jobs *= scale;
    /* a reshaped atomics-only launch needs jobs per SM divisible by 64 warps x UNROLL; the family
     * kernels run FUNROLL jobs per iteration */
    unsigned q = s.reshaped ? 64 * UNROLL : op_of(p) ? FUNROLL : UNROLL;
    double it = jobs / wps;
    s.iters = (unsigned)(ceil(it / q) * q);
    if (s.iters < q)
        s.iters = q;
    s.jobs_per_sm = wps * s.iters;
    if (s.reshaped) {
        s.agrid = 2 * sm, s.ablock = 1024;
        s.aiters = (unsigned)(p->bnum * p->warps * (s.iters / 64));
    } else {
        s.agrid = s.grid, s.ablock = s.block, s.aiters = s.iters;
    }
    return s;
}

/* Exact checksums of a block of the dsmem kernels, whose jobs are those of 32 warps of `iters`
 * jobs per lane (run by 32 warps, or by 16 of twice as many jobs): the words of each block are hit
 * by one block's lanes (its own, or its ring predecessor's), so every block reports
 * sum_i (2 i + 1) n_i (mod 2^64) for its words and sum_i n_i (n_i - 1) / 2 (mod 2^32) for its
 * lanes' results, n_i = lanes on word i x iters. */
static void dsmem_expected(const point *p, unsigned iters, unsigned long long *words, unsigned *results)
{
    unsigned lanes[DSWORDS];
    memset(lanes, 0, sizeof lanes);
    for (unsigned w = 0; w < 32; ++w)
        for (unsigned l = 0; l < 32; ++l)
            lanes[dsmem_word(p->dpat, w, l)]++;
    unsigned long long s = 0, r = 0;
    for (unsigned i = 0; i < DSWORDS; ++i) {
        const unsigned long long n = (unsigned long long)lanes[i] * iters;
        s += n * (2ull * i + 1);
        r += n * (n - (n > 0)) / 2;
    }
    *words = s;
    *results = (unsigned)r;
}

/* Exact checksum a block must report. */
static double expected_sum(const point *p, int warps, unsigned iters)
{
    double k0 = (double)REGION * K0;
    switch (p->op) {
    case OP_ADD:
    case OP_POPC:
    case OP_FADD:
    case OP_IADD64: return k0 + (double)warps * iters * 32;
    case OP_MIX: {
        int cas = 0;
        for (int w = 0; w < warps; ++w)
            cas += (w & 3) < p->q;
        return k0 + (double)(warps - cas) * iters * 32;
    }
    default: return k0; /* CAS64: CAS(K0, K0) leaves the words as they were */
    }
}

/* IEEE half bits of the integer k, 0 <= k <= 2048 (exact). */
static unsigned half_bits(unsigned long long k)
{
    if (k == 0)
        return 0;
    int e = 0;
    while ((k >> (e + 1)) != 0)
        ++e;
    const unsigned mant = e <= 10 ? (unsigned)(k << (10 - e)) & 0x3FFu : (unsigned)(k >> (e - 10)) & 0x3FFu;
    return (unsigned)(e + 15) << 10 | mant;
}

/* A half2 word of zeros after n adds of (1, 1): each half counts exactly up to 2048, where adding
 * 1 rounds back to 2048 (the tie goes to the even 2048) whatever the order; other starts or
 * operands cannot be known exactly here (*ok = 0). */
static unsigned long long h2_final(unsigned long long I, unsigned long long v, unsigned long long n, int *ok)
{
    if (I != 0 || v != 0x3C003C00u)
        *ok = 0;
    const unsigned h = half_bits(n < 2048 ? n : 2048);
    return (unsigned long long)h << 16 | h;
}

/* Final value of a family word hit by n jobs of operation o, or 0 with *ok = 0 where it cannot be
 * known exactly (never with this suite's sizes). */
static unsigned long long fam_final(const fam_op *o, unsigned long long n, unsigned iters, int *ok)
{
    const unsigned long long mask = o->width == 64 ? ~0ull : 0xFFFFFFFFull;
    const unsigned long long I = o->init & mask, v = o->v & mask;
    unsigned long long x = I;
    if (n == 0)
        return I;
    switch (o->rule) {
    case FV_ADD: x = I + n * v; break;
    case FV_POPC: x = I + n; break;
    case FV_CAS: x = I; break; /* CAS(v, v): writes v where the word is v, else nothing */
    case FV_EXCH: x = v; break;
    case FV_MIN32: x = (int)(unsigned)I < (int)(unsigned)v ? I : v; break;
    case FV_MIN64: /* operands v - k, k = 0 .. iters-1 */
        x = (long long)I < (long long)(v - (iters - 1)) ? I : v - (iters - 1);
        break;
    case FV_MAX64: /* operands v + k */ x = I > v + (iters - 1) ? I : v + (iters - 1); break;
    case FV_MAX: x = I > v ? I : v; break;
    case FV_MINU: x = I < v ? I : v; break;
    case FV_AND: x = I & ~v; break; /* the job is atomicAnd(p, ~v) */
    case FV_OR: x = I | v; break;
    case FV_XOR: x = n % 2 ? I ^ v : I; break;
    case FV_INC: { /* atomicInc(p, wrap): old >= wrap ? 0 : old + 1, a count modulo wrap + 1 */
        const unsigned long long wrap = (v | 0x80000000u) & 0xFFFFFFFFull;
        if (I > wrap)
            *ok = 0;
        x = (I + n) % (wrap + 1);
        break;
    }
    case FV_DEC: /* atomicDec(p, wrap): old == 0 || old > wrap ? wrap : old - 1; with wrap =
                  * 0xFFFFFFFF that is old - 1 modulo 2^32 */
        if (((v | 0x80000000u) & 0xFFFFFFFFull) != 0xFFFFFFFFull)
            *ok = 0;
        x = I - n;
        break;
    case FV_FADD: { /* adds of (float)v to a float word: exact while every partial sum is an
                     * integer below 2^24 */
        float f0, f;
        unsigned u = (unsigned)I;
        memcpy(&f0, &u, sizeof f0);
        double val = (double)f0 + (double)n * (double)(float)(unsigned)v;
        if (f0 != floorf(f0) || f0 < 0 || (float)(unsigned)v != (double)v || !(val < 16777216.0))
            *ok = 0;
        f = (float)val;
        memcpy(&u, &f, sizeof u);
        x = u;
        break;
    }
    case FV_ADD64: x = I + n * v; break;
    case FV_H2ADD: x = h2_final(I, v, n, ok); break;
    default: *ok = 0;
    }
    return x & mask;
}

/* Exact checksum a block of the family or generic kernels must report: the wrapping sum of its
 * FWORDS (generic: AU_LP_WORDS) words after each lane of each warp ran `iters` jobs on its word
 * (word_of, or au_lane_word). */
static unsigned long long fam_expected(const point *p, int warps, unsigned iters, int *ok)
{
    const fam_op *o = op_of(p);
    const int P = o->width == 64 ? 16 : 32, nw = p->lp >= 0 ? AU_LP_WORDS : FWORDS;
    static unsigned lanes[AU_LP_WORDS];
    memset(lanes, 0, sizeof lanes);
    *ok = 1;
    for (int w = 0; w < warps; ++w)
        for (int l = 0; l < 32; ++l) {
            int k = p->lp >= 0 ? au_lane_word(p->lp, w, l) : au_word_of(l, w, p->W, p->B, P);
            if (k < 0 || k >= nw) {
                *ok = 0;
                return 0;
            }
            lanes[k]++;
        }
    unsigned long long s = 0;
    for (int k = 0; k < nw; ++k)
        s += fam_final(o, (unsigned long long)lanes[k] * iters, iters, ok);
    return s;
}

typedef struct {
    double *d_sum;
    unsigned *d_smid, *d_sink, *d_buf;
    unsigned long long *d_sum64;
    long long *d_t0, *d_t1;
    double *h_sum;
    unsigned *h_smid;
    unsigned long long *h_sum64;
    long long *h_t0, *h_t1;
    unsigned *d_res, *h_res; /* dsmem kernels: per block, the sum of its lanes' results */
    int maxgrid, sm;
    cudaEvent_t e0, e1;
    int ds_ok; /* dsmem class: 1 if it can run here (ds_why says why not) */
    char ds_why[200];
    int ds_smem;        /* dynamic shared memory of every dsmem launch */
    int ds_clusters[3]; /* clusters of C = 2, 4, 8 launched at once (0: size left out) */
} ctx;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define MAXSMID 4096
/* Cycles per job of an atomics-only launch from its blocks' clocks: per SM that holds exactly `eb`
 * blocks, (last end - first start) / its jobs; the median over those SMs (NAN if none), their
 * number in *used.  Returns 0, or 1 after printing what failed. */
static int cycles_per_job(const ctx *c, const point *p, int grid, int eb, double jobs_per_block, double *out, int *used)
{
    static int cnt[MAXSMID];
    static long long lo[MAXSMID], hi[MAXSMID];
    static double v[MAXSMID];
    unsigned maxid = 0;
    for (int b = 0; b < grid; ++b) {
        if (c->h_smid[b] >= MAXSMID) {
            fprintf(stderr, "validation: %s: block %d reports SM %u\n", p->name, b, c->h_smid[b]);
            return 1;
        }
        if (c->h_t0[b] == -1 || c->h_t1[b] == -1 || c->h_t1[b] < c->h_t0[b]) {
            fprintf(stderr, "validation: %s: block %d recorded no valid clocks (%lld, %lld)\n", p->name, b, c->h_t0[b],
                    c->h_t1[b]);
            return 1;
        }
        maxid = c->h_smid[b] > maxid ? c->h_smid[b] : maxid;
    }
    for (unsigned i = 0; i <= maxid; ++i)
        cnt[i] = 0, lo[i] = 0, hi[i] = 0;
    for (int b = 0; b < grid; ++b) {
        unsigned id = c->h_smid[b];
        if (cnt[id] == 0 || c->h_t0[b] < lo[id])
            lo[id] = c->h_t0[b];
        if (cnt[id] == 0 || c->h_t1[b] > hi[id])
            hi[id] = c->h_t1[b];
        cnt[id]++;
    }
    int n = 0;
    for (unsigned i = 0; i <= maxid; ++i)
        if (cnt[i] == eb)
            v[n++] = (double)(hi[i] - lo[i]) / (eb * jobs_per_block);
    *used = n;
    if (n == 0) {
        *out = NAN;
        return 0;
    }
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    *out = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    return 0;
}

/* One launch, timed with events when ms != NULL; its checksums are poisoned before and checked
 * after.  With cpj != NULL (atomics-only kernels) the blocks' clocks are poisoned too, and
 * *cpj, *cpj_sms get cycles_per_job's result.  Returns 0, or 1 after printing what failed. */
static int launch(ctx *c, vk_fn fn, int grid, int block, VParams vp, const point *p, unsigned iters, float *ms,
                  double *cpj, int *cpj_sms)
{
    const int fam = op_of(p) && p->op < 0; /* the family and generic kernels: 64-bit checksum */
    CUDA_CHECK(cudaMemset(c->d_sum, 0xFF, (size_t)grid * sizeof(double)), return 1);
    CUDA_CHECK(cudaMemset(c->d_sum64, 0xFF, (size_t)grid * sizeof(unsigned long long)), return 1);
    CUDA_CHECK(cudaMemset(c->d_smid, 0xFF, (size_t)grid * sizeof(unsigned)), return 1);
    if (cpj) {
        CUDA_CHECK(cudaMemset(c->d_t0, 0xFF, (size_t)grid * sizeof(long long)), return 1);
        CUDA_CHECK(cudaMemset(c->d_t1, 0xFF, (size_t)grid * sizeof(long long)), return 1);
    }
    vp.iters = iters;
    CUDA_CHECK(cudaEventRecord(c->e0), return 1);
    fn<<<grid, block>>>(vp);
    CUDA_CHECK(cudaGetLastError(), return 1);
    CUDA_CHECK(cudaEventRecord(c->e1), return 1);
    CUDA_CHECK(cudaEventSynchronize(c->e1), return 1);
    if (ms)
        CUDA_CHECK(cudaEventElapsedTime(ms, c->e0, c->e1), return 1);
    CUDA_CHECK(cudaMemcpy(c->h_smid, c->d_smid, (size_t)grid * sizeof(unsigned), cudaMemcpyDeviceToHost), return 1);
    if (fam) {
        int ok = 1;
        unsigned long long want = fam_expected(p, block / 32, iters, &ok);
        if (!ok) {
            fprintf(stderr, "validation: %s: the checksum cannot be computed exactly for %u jobs per thread\n", p->name,
                    iters);
            return 1;
        }
        CUDA_CHECK(
            cudaMemcpy(c->h_sum64, c->d_sum64, (size_t)grid * sizeof(unsigned long long), cudaMemcpyDeviceToHost),
            return 1);
        for (int b = 0; b < grid; ++b)
            if (c->h_sum64[b] != want) {
                fprintf(stderr, "validation: %s: block %d reports %#llx, expected %#llx\n", p->name, b, c->h_sum64[b],
                        want);
                return 1;
            }
    } else {
        CUDA_CHECK(cudaMemcpy(c->h_sum, c->d_sum, (size_t)grid * sizeof(double), cudaMemcpyDeviceToHost), return 1);
        double want = expected_sum(p, block / 32, iters);
        for (int b = 0; b < grid; ++b)
            if (!(c->h_sum[b] == want)) {
                fprintf(stderr, "validation: %s: block %d reports %.1f, expected %.1f\n", p->name, b, c->h_sum[b],
                        want);
                return 1;
            }
    }
    for (int b = 0; b < grid; ++b)
        if (c->h_smid[b] == 0xFFFFFFFFu) {
            fprintf(stderr, "validation: %s: block %d did not report its SM\n", p->name, b);
            return 1;
        }
    if (cpj) {
        CUDA_CHECK(cudaMemcpy(c->h_t0, c->d_t0, (size_t)grid * sizeof(long long), cudaMemcpyDeviceToHost), return 1);
        CUDA_CHECK(cudaMemcpy(c->h_t1, c->d_t1, (size_t)grid * sizeof(long long), cudaMemcpyDeviceToHost), return 1);
        const int eb = (grid + c->sm - 1) / c->sm; /* blocks per SM of the launch (the larger count) */
        if (cycles_per_job(c, p, grid, eb, (double)(block / 32) * iters, cpj, cpj_sms))
            return 1;
    }
    return 0;
}

/* The launch configuration of a dsmem point: `grid` blocks of `warps` warps in clusters of C. */
static cudaLaunchConfig_t dsmem_config(const ctx *c, int cluster, int grid, int warps, cudaLaunchAttribute *attr)
{
    return au_cluster_config((unsigned)grid, (unsigned)(32 * warps), (size_t)c->ds_smem, (unsigned)cluster, attr);
}

/* Whether the dsmem class can run on this device, and how many clusters of each size fit at once
 * with one block per SM; sets c->ds_ok, or c->ds_why.  Returns 1 only on a CUDA error. */
static int dsmem_setup(ctx *c, const cudaDeviceProp *prop, int dev)
{
    int can = 0;
    c->ds_ok = 0;
    if (prop->major < 9) {
        snprintf(c->ds_why, sizeof c->ds_why, "compute capability %d.%d: thread block clusters need 9.0", prop->major,
                 prop->minor);
        return 0;
    }
    CUDA_CHECK(cudaDeviceGetAttribute(&can, cudaDevAttrClusterLaunch, dev), return 1);
    if (!can) {
        snprintf(c->ds_why, sizeof c->ds_why, "the device cannot launch thread block clusters");
        return 0;
    }
    cudaFuncAttributes fa;
    CUDA_CHECK(cudaFuncGetAttributes(&fa, vk_dsmem_ring_atom), return 1);
    if (fa.ptxVersion < 90) {
        snprintf(c->ds_why, sizeof c->ds_why, "built without sm_90 code (PTX %d; CMAKE_CUDA_ARCHITECTURES)",
                 fa.ptxVersion);
        return 0;
    }
    const long half = (long)prop->sharedMemPerMultiprocessor / 2 + 1;
    const long smem = half > DS_SMEM_FLOOR ? half : DS_SMEM_FLOOR;
    if (smem > (long)prop->sharedMemPerBlockOptin) {
        snprintf(c->ds_why, sizeof c->ds_why,
                 "a block can have %zu bytes of shared memory, %ld are needed "
                 "to keep it alone on its SM",
                 prop->sharedMemPerBlockOptin, smem);
        return 0;
    }
    c->ds_smem = (int)smem;
    const void *const fns[] = {(const void *)vk_dsmem_own_full,     (const void *)vk_dsmem_own_atom,
                               (const void *)vk_dsmem_ring_full,    (const void *)vk_dsmem_ring_atom,
                               (const void *)vk_dsmem_hot_full,     (const void *)vk_dsmem_hot_atom,
                               (const void *)overhead_empty_cluster};
    for (size_t i = 0; i < sizeof fns / sizeof *fns; ++i)
        CUDA_CHECK(cudaFuncSetAttribute(fns[i], cudaFuncAttributeMaxDynamicSharedMemorySize, c->ds_smem), return 1);
    for (int k = 0; k < 3; ++k) {
        cudaLaunchAttribute attr;
        const cudaLaunchConfig_t cfg = dsmem_config(c, dclusters[k], dclusters[k], 32, &attr);
        int n = 0;
        if (cudaOccupancyMaxActiveClusters(&n, (const void *)vk_dsmem_ring_full, &cfg) != cudaSuccess) {
            (void)cudaGetLastError();
            n = 0;
        }
        if (n * dclusters[k] > c->sm)
            n = c->sm / dclusters[k];
        c->ds_clusters[k] = n;
    }
    c->ds_ok = 1;
    return 0;
}

static int dsmem_clusters(const ctx *c, int cluster)
{
    for (int k = 0; k < 3; ++k)
        if (dclusters[k] == cluster)
            return c->ds_clusters[k];
    return 0;
}

/* The hot points' checksums: in each cluster (blocks of consecutive indexes, rank = index % C)
 * rank 0's word 0 took n = C x 32 x 32 x ipl jobs (its checksum n, the others' 0) and the lanes'
 * results, summed over the cluster, are 0 + 1 + ... + (n - 1) (mod 2^32): each block's own sum
 * depends on the order the ranks' jobs met in.  0 when right. */
static int dsmem_hot_check(const ctx *c, const point *p, int grid, unsigned ipl)
{
    const unsigned long long n = (unsigned long long)p->cluster * 32u * 32u * ipl;
    for (int b0 = 0; b0 + p->cluster <= grid; b0 += p->cluster) {
        unsigned r = 0;
        for (int k = 0; k < p->cluster; ++k) {
            const unsigned long long want = k == 0 ? n : 0;
            if (c->h_sum64[b0 + k] != want) {
                fprintf(stderr, "validation: %s: block %d reports words %#llx, expected %#llx\n", p->name, b0 + k,
                        c->h_sum64[b0 + k], want);
                return 1;
            }
            r += c->h_res[b0 + k];
        }
        if (r != (unsigned)(n * (n - 1) / 2)) {
            fprintf(stderr, "validation: %s: cluster of block %d reports results %#x, expected %#x\n", p->name, b0, r,
                    (unsigned)(n * (n - 1) / 2));
            return 1;
        }
    }
    return 0;
}

/* One launch of a dsmem kernel (as launch() does for the others): `grid` blocks of `warps` warps
 * (32, or 16 with twice the jobs) in clusters of p->cluster, `iters` jobs per lane; both checksums
 * of every block checked, and that no two blocks shared an SM. */
static int launch_dsmem(ctx *c, vk_fn fn, int grid, int warps, VParams vp, const point *p, unsigned iters, float *ms,
                        double *cpj, int *cpj_sms, double *win)
{
    static unsigned char seen[MAXSMID];
    if ((warps != 32 && warps != 16) || iters % UNROLL) {
        fprintf(stderr,
                "validation: %s: %d warps of %u jobs: the dsmem kernels take 32 or 16 warps and a "
                "multiple of %d jobs\n",
                p->name, warps, iters, UNROLL);
        return 1;
    }
    CUDA_CHECK(cudaMemset(c->d_sum64, 0xFF, (size_t)grid * sizeof(unsigned long long)), return 1);
    CUDA_CHECK(cudaMemset(c->d_res, 0xFF, (size_t)grid * sizeof(unsigned)), return 1);
    CUDA_CHECK(cudaMemset(c->d_smid, 0xFF, (size_t)grid * sizeof(unsigned)), return 1);
    CUDA_CHECK(cudaMemset(c->d_t0, 0xFF, (size_t)grid * sizeof(long long)), return 1);
    CUDA_CHECK(cudaMemset(c->d_t1, 0xFF, (size_t)grid * sizeof(long long)), return 1);
    vp.iters = iters;
    vp.shift = p->shift;
    vp.pattern = p->dpat;
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t cfg = dsmem_config(c, p->cluster, grid, warps, &attr);
    CUDA_CHECK(cudaEventRecord(c->e0), return 1);
    CUDA_CHECK(cudaLaunchKernelEx(&cfg, fn, vp), return 1);
    CUDA_CHECK(cudaEventRecord(c->e1), return 1);
    CUDA_CHECK(cudaEventSynchronize(c->e1), return 1);
    if (ms)
        CUDA_CHECK(cudaEventElapsedTime(ms, c->e0, c->e1), return 1);
    CUDA_CHECK(cudaMemcpy(c->h_smid, c->d_smid, (size_t)grid * sizeof(unsigned), cudaMemcpyDeviceToHost), return 1);
    CUDA_CHECK(cudaMemcpy(c->h_sum64, c->d_sum64, (size_t)grid * sizeof(unsigned long long), cudaMemcpyDeviceToHost),
               return 1);
    CUDA_CHECK(cudaMemcpy(c->h_res, c->d_res, (size_t)grid * sizeof(unsigned), cudaMemcpyDeviceToHost), return 1);
    unsigned long long want;
    unsigned want_r;
    dsmem_expected(p, iters * (unsigned)warps / 32u, &want, &want_r);
    memset(seen, 0, sizeof seen);
    for (int b = 0; b < grid; ++b) {
        const unsigned id = c->h_smid[b];
        if (id >= MAXSMID) {
            fprintf(stderr, "validation: %s: block %d %s\n", p->name, b,
                    id == 0xFFFFFFFEu ? "ran without sm_90 code" : "did not report its SM");
            return 1;
        }
        if (seen[id]++) {
            fprintf(stderr, "validation: %s: two blocks ran on SM %u (%d bytes of shared memory each)\n", p->name, id,
                    c->ds_smem);
            return 1;
        }
        if (p->shift < 0) /* hot: rank 0's words take every job of its cluster (dsmem_hot_check) */
            continue;
        if (c->h_sum64[b] != want || c->h_res[b] != want_r) {
            fprintf(stderr, "validation: %s: block %d reports words %#llx, results %#x; expected %#llx, %#x\n", p->name,
                    b, c->h_sum64[b], c->h_res[b], want, want_r);
            return 1;
        }
    }
    if (p->shift < 0 && dsmem_hot_check(c, p, grid, iters * (unsigned)warps / 32u))
        return 1;
    if (cpj || win) {
        CUDA_CHECK(cudaMemcpy(c->h_t0, c->d_t0, (size_t)grid * sizeof(long long), cudaMemcpyDeviceToHost), return 1);
        CUDA_CHECK(cudaMemcpy(c->h_t1, c->d_t1, (size_t)grid * sizeof(long long), cudaMemcpyDeviceToHost), return 1);
    }
    if (cpj && cycles_per_job(c, p, grid, 1, (double)warps * iters, cpj, cpj_sms))
        return 1;
    if (win) { /* the SMs' (= blocks') windows: win[0] their sum, win[1] the longest */
        win[0] = win[1] = 0;
        for (int b = 0; b < grid; ++b) {
            const double w = (double)(c->h_t1[b] - c->h_t0[b]);
            win[0] += w;
            win[1] = w > win[1] ? w : win[1];
        }
    }
    return 0;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static float median(float *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_float);
    return n % 2 ? v[n / 2] : 0.5f * (v[n / 2 - 1] + v[n / 2]);
}

/* Median event time of an empty launch of this shape (launch overhead), cached per shape; with
 * cluster > 0 a cluster launch of that size with the dsmem kernels' shared memory. */
static int empty_ms(ctx *c, int grid, int block, int cluster, int reps, float *out)
{
    static int g[64], b[64], cl[64], n;
    static float v[64];
    for (int i = 0; i < n; ++i)
        if (g[i] == grid && b[i] == block && cl[i] == cluster) {
            *out = v[i];
            return 0;
        }
    float ms[64];
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t cfg = dsmem_config(c, cluster > 0 ? cluster : 1, grid, block / 32, &attr);
    for (int r = -1; r < reps; ++r) {
        CUDA_CHECK(cudaEventRecord(c->e0), return 1);
        if (cluster > 0)
            CUDA_CHECK(cudaLaunchKernelEx(&cfg, overhead_empty_cluster), return 1);
        else
            overhead_empty<<<grid, block>>>();
        CUDA_CHECK(cudaGetLastError(), return 1);
        CUDA_CHECK(cudaEventRecord(c->e1), return 1);
        CUDA_CHECK(cudaEventSynchronize(c->e1), return 1);
        if (r >= 0)
            CUDA_CHECK(cudaEventElapsedTime(&ms[r], c->e0, c->e1), return 1);
    }
    *out = median(ms, reps);
    if (n < 64)
        g[n] = grid, b[n] = block, cl[n] = cluster, v[n++] = *out;
    return 0;
}

/* Median of n doubles (sorts them). */
static double median_d(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* One point of the dsmem class on `grid` blocks (whole clusters, all resident at once).
 * Profile mode: the full kernel twice (warm-up unless !warm) and the atomics-only kernel once,
 * listed in fo.  Time mode: a warm-up of each, then per repetition the full kernel, the reference
 * (atomics-only, 32 warps) and the half reference (atomics-only, 16 warps per block doing the same
 * jobs per SM), each timed with events and with its blocks' clocks (one block per SM); then the
 * t_empty of a cluster launch of this shape, and the row of vtime.csv: U_true from the event
 * times as for every class; the references' cycles per job (median SM), the full kernel's, and
 * u_true_sm = the reference's SM windows summed / the full kernel's (the mean SM's U_true, which
 * the rollup counters describe), medians over the repetitions.  Returns 0, or 1 after printing
 * what failed. */
static int run_dsmem_point(ctx *cx, int i, const point *p, shape s, int grid, VParams vp, int profile, int warm,
                           int reps, FILE *fo, int *seq, int *per_sm)
{
    const int has_work = p->L > 0;
    vk_fn kfull = p->shift < 0 ? vk_dsmem_hot_full : p->shift ? vk_dsmem_ring_full : vk_dsmem_own_full;
    vk_fn atom = p->shift < 0 ? vk_dsmem_hot_atom : p->shift ? vk_dsmem_ring_atom : vk_dsmem_own_atom;
    vk_fn full = has_work ? kfull : atom;
    const char *tname = dsmem_target_name(p);
    char fname[48], aname[48];
    snprintf(fname, sizeof fname, "vk_dsmem_%s_%s", tname, has_work ? "full" : "atom");
    snprintf(aname, sizeof aname, "vk_dsmem_%s_atom", tname);
    vp.L = p->L, vp.G = 0, vp.q = 0, vp.d = 0, vp.W = 0, vp.B = 0, vp.init = 0, vp.v = 0;
    VParams va = vp;
    va.L = 0;
    const unsigned hiters = 2 * s.iters; /* 16 warps: the same jobs per SM */
    if (profile) {
        if ((warm && launch_dsmem(cx, full, grid, 32, vp, p, s.iters, NULL, NULL, NULL, NULL)) ||
            launch_dsmem(cx, full, grid, 32, vp, p, s.iters, NULL, NULL, NULL, NULL) ||
            launch_dsmem(cx, atom, grid, 32, va, p, s.iters, NULL, NULL, NULL, NULL))
            return 1;
        if (warm)
            fprintf(fo, "%d,%d,%s,%s,warm,%s\n", (*seq)++, i, p->name, p->cls, fname);
        fprintf(fo, "%d,%d,%s,%s,full,%s\n", (*seq)++, i, p->name, p->cls, fname);
        fprintf(fo, "%d,%d,%s,%s,atom,%s\n", (*seq)++, i, p->name, p->cls, aname);
        return 0;
    }
    float tf[64], ta[64], th[64], te;
    double ca[64], ch[64], cf[64], usm[64], spread[64], wf[2], wa[2];
    int sms[3] = {0, 0, 0}, n[3] = {0, 0, 0}, smin[3] = {1 << 30, 1 << 30, 1 << 30};
    if (launch_dsmem(cx, full, grid, 32, vp, p, s.iters, NULL, NULL, NULL, NULL) ||
        launch_dsmem(cx, atom, grid, 32, va, p, s.iters, NULL, NULL, NULL, NULL) ||
        launch_dsmem(cx, atom, grid, 16, va, p, hiters, NULL, NULL, NULL, NULL))
        return 1;
    for (int r = 0; r < reps; ++r) {
        if (launch_dsmem(cx, full, grid, 32, vp, p, s.iters, &tf[r], &cf[n[0]], &sms[0], wf) ||
            launch_dsmem(cx, atom, grid, 32, va, p, s.iters, &ta[r], &ca[n[1]], &sms[1], wa) ||
            launch_dsmem(cx, atom, grid, 16, va, p, hiters, &th[r], &ch[n[2]], &sms[2], NULL))
            return 1;
        usm[r] = wa[0] / wf[0];
        spread[r] = wa[1] / (ca[n[1]] * 32.0 * s.iters); /* the reference's longest SM / its median */
        for (int k = 0; k < 3; ++k)
            if (sms[k] > 0)
                smin[k] = sms[k] < smin[k] ? sms[k] : smin[k], n[k]++;
    }
    /* blocks per SM of a full launch (one, or launch_dsmem would have failed) */
    if (launch_dsmem(cx, full, grid, 32, vp, p, s.iters, NULL, NULL, NULL, NULL))
        return 1;
    memset(per_sm, 0, (size_t)cx->sm * sizeof(int));
    for (int b = 0; b < grid; ++b)
        if (cx->h_smid[b] < (unsigned)cx->sm)
            per_sm[cx->h_smid[b]]++;
    int bmax = 0, bmin = 1 << 30;
    for (int k = 0; k < cx->sm; ++k)
        bmax = per_sm[k] > bmax ? per_sm[k] : bmax, bmin = per_sm[k] < bmin ? per_sm[k] : bmin;
    if (empty_ms(cx, grid, 1024, p->cluster, reps, &te))
        return 1;
    const float mf = median(tf, reps), ma = median(ta, reps);
    const double ut = (ma - te) / (mf - te), ur = ma / mf;
    const double u_sm = median_d(usm, reps), sp = median_d(spread, reps);
    char cpj_s[3][32] = {"", "", ""};
    double cpj[3] = {NAN, NAN, NAN};
    double *const cv[3] = {cf, ca, ch};
    for (int k = 0; k < 3; ++k)
        if (n[k] > 0)
            cpj[k] = median_d(cv[k], n[k]), snprintf(cpj_s[k], sizeof cpj_s[k], "%.4f", cpj[k]);
    if (n[0] == 0 || n[1] == 0 || n[2] == 0)
        fprintf(stderr, "validation: %s: a launch's blocks recorded no clocks; its cycles per job left empty\n",
                p->name);
    const double jobs_per_sm = 32.0 * s.iters;
    fprintf(fo,
            "%d,%s,%s,dsmem_%s,%s,%s,0,0,%d,0,%d,%d,%u,%.0f,%d,%d,%u,0,%d,%d,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%s,%s,"
            "%s,%d,%.3f,%s,%d,,%d,%s,16,%s,%d,%s,%.5f,%.4f\n",
            i, p->name, p->cls, tname, p->family, dpats[p->dpat].name, p->L, grid, 1024, s.iters, jobs_per_sm, grid,
            1024, s.iters, bmax, bmin, mf, ma, te, te, ut, ur, fname, aname, "ATOM.E.ADD (generic)", p->level,
            p->est / p->t_est, cpj_s[1], n[1] > 0 ? smin[1] : 0, p->cluster, tname, cpj_s[2], n[2] > 0 ? smin[2] : 0,
            cpj_s[0], u_sm, sp);
    fflush(fo);
    fprintf(stderr,
            "%3d %-29s T_full %8.4f ms  T_atom %8.4f ms  U_true %5.1f %%  atom %8.3f cycles/job, "
            "16 warps %8.3f (%.3f); full %8.3f, U_true per SM %5.1f %%, spread %.3f\n",
            i, p->name, mf, ma, 100 * ut, cpj[1], cpj[2], cpj[1] / cpj[2], cpj[0], 100 * u_sm, sp);
    (void)th;
    return 0;
}

/* Whether --filter and --exclude select point p (by name or class). */
static int selected(const point *p, const char *filter, const char *exclude)
{
    if (filter && !strstr(p->name, filter) && !strstr(p->cls, filter))
        return 0;
    return !(exclude && (strstr(p->name, exclude) || strstr(p->cls, exclude)));
}

static void usage(FILE *f)
{
    fputs("usage: validation [options]\n"
          "  -m, --mode MODE     time (default): time every point; profile: launch each point's\n"
          "                      full kernel twice and its atomics-only kernel once, for a profiler\n"
          "  -o, --out FILE      CSV output (default stdout)\n"
          "  -r, --reps N        timed launches per kernel and point after one warm-up (default 7)\n"
          "  -s, --scale F       multiply every point's job count (default 1)\n"
          "  -f, --filter TEXT   only points whose name or class contains TEXT (-f dsmem: the\n"
          "                      distributed-shared-memory class, which needs sm_90 clusters)\n"
          "  -x, --exclude TEXT  leave out points whose name or class contains TEXT (after -f)\n"
          "  -W, --no-warm       profile mode: no warm-up launch of the full kernel\n"
          "  -l, --list          print the points (those --filter, --exclude select) and exit (no GPU\n"
          "                      needed)\n"
          "  -h, --help          this text\n"
          "Examples:\n"
          "  validation -o vtime.csv\n"
          "  atomutil-profile -o vprof --csv -- validation --mode profile -o vprof_points.csv\n",
          f);
}

/* The command line (usage()). */
typedef struct vopts {
    const char *mode, *out, *filter, *exclude;
    int reps, list, warm, profile;
    double scale;
} vopts;

/* Reads the options into o; -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, vopts *o)
{
    static const struct option opts[] = {{"mode", required_argument, 0, 'm'},    {"out", required_argument, 0, 'o'},
                                         {"reps", required_argument, 0, 'r'},    {"scale", required_argument, 0, 's'},
                                         {"filter", required_argument, 0, 'f'},  {"list", no_argument, 0, 'l'},
                                         {"no-warm", no_argument, 0, 'W'},       {"help", no_argument, 0, 'h'},
                                         {"exclude", required_argument, 0, 'x'}, {0, 0, 0, 0}};
    *o = vopts{"time", NULL, NULL, NULL, 7, 0, 1, 0, 1};
    int c;
    while ((c = getopt_long(argc, argv, "m:o:r:s:f:x:lWh", opts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'm': o->mode = optarg; break;
        case 'o': o->out = optarg; break;
        case 'f': o->filter = optarg; break;
        case 'x': o->exclude = optarg; break;
        case 'l': o->list = 1; break;
        case 'W': o->warm = 0; break;
        case 'r':
            errno = 0;
            o->reps = (int)strtol(optarg, &end, 10);
            if (errno || *end || o->reps < 1 || o->reps > 63) {
                fprintf(stderr, "validation: --reps must be 1..63\n");
                return 2;
            }
            break;
        case 's':
            errno = 0;
            o->scale = strtod(optarg, &end);
            if (errno || *end || !(o->scale > 0 && o->scale <= 100)) {
                fprintf(stderr, "validation: --scale must be in (0, 100]\n");
                return 2;
            }
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc || (strcmp(o->mode, "time") && strcmp(o->mode, "profile"))) {
        usage(stderr);
        return 2;
    }
    o->profile = !strcmp(o->mode, "profile");
    return -1;
}

/* --list: the selected points' shapes for a 132-SM GPU (H100/H200); est = estimated saturated
 * cycles per job; family and dsmem classes: est_u = the intended U_true of its work level
 * (est / t_estimate); dsmem: grid = whole clusters at most (a launch takes as many as fit at once:
 * 120 blocks of 132 SMs for C = 4 and 8 on the H100) */
static void list_points(const vopts *o)
{
    for (int i = 0; i < npts; ++i) {
        const point *p = &pts[i];
        if (!selected(p, o->filter, o->exclude))
            continue;
        shape s = shape_of(p, 132, o->scale);
        printf("%3d %-10s %-29s family=%-11s grid=%4d block=%4d iters=%7u jobs/SM=%8.0f est_atom_cycles=%.2g", i,
               p->cls, p->name, p->family, s.grid, s.block, s.iters, s.jobs_per_sm, s.jobs_per_sm * p->est);
        if (op_of(p) || p->dpat >= 0)
            printf(" est_full_cycles=%.2g est_u=%.2f", s.jobs_per_sm * p->t_est, p->est / p->t_est);
        if (p->dpat >= 0)
            printf(" cluster=%d target=%s\n", p->cluster, dsmem_target_name(p));
        else
            printf(" ub_case=%s\n", p->ub_case[0] ? p->ub_case : "-");
    }
}

/* The device and host buffers of every launch; 0, or 1 after a message. */
static int ctx_alloc(ctx *cx, int sm, size_t nbuf)
{
    memset(cx, 0, sizeof *cx);
    cx->maxgrid = 8 * sm;
    cx->sm = sm;
    CUDA_CHECK(cudaMalloc(&cx->d_buf, nbuf * sizeof(unsigned)), return 1);
    CUDA_CHECK(cudaMalloc(&cx->d_sum, (size_t)cx->maxgrid * sizeof(double)), return 1);
    CUDA_CHECK(cudaMalloc(&cx->d_sum64, (size_t)cx->maxgrid * sizeof(unsigned long long)), return 1);
    CUDA_CHECK(cudaMalloc(&cx->d_t0, (size_t)cx->maxgrid * sizeof(long long)), return 1);
    CUDA_CHECK(cudaMalloc(&cx->d_t1, (size_t)cx->maxgrid * sizeof(long long)), return 1);
    CUDA_CHECK(cudaMalloc(&cx->d_smid, (size_t)cx->maxgrid * sizeof(unsigned)), return 1);
    CUDA_CHECK(cudaMalloc(&cx->d_sink, sizeof(unsigned)), return 1);
    CUDA_CHECK(cudaMalloc(&cx->d_res, (size_t)cx->maxgrid * sizeof(unsigned)), return 1);
    CUDA_CHECK(cudaEventCreate(&cx->e0), return 1);
    CUDA_CHECK(cudaEventCreate(&cx->e1), return 1);
    cx->h_sum = (double *)malloc((size_t)cx->maxgrid * sizeof(double));
    cx->h_sum64 = (unsigned long long *)malloc((size_t)cx->maxgrid * sizeof(unsigned long long));
    cx->h_t0 = (long long *)malloc((size_t)cx->maxgrid * sizeof(long long));
    cx->h_t1 = (long long *)malloc((size_t)cx->maxgrid * sizeof(long long));
    cx->h_smid = (unsigned *)malloc((size_t)cx->maxgrid * sizeof(unsigned));
    cx->h_res = (unsigned *)malloc((size_t)cx->maxgrid * sizeof(unsigned));
    if (!cx->h_sum || !cx->h_sum64 || !cx->h_t0 || !cx->h_t1 || !cx->h_smid || !cx->h_res) {
        fprintf(stderr, "validation: out of host memory\n");
        return 1;
    }
    init_buffer<<<4 * sm, 256>>>(cx->d_buf, nbuf);
    CUDA_CHECK(cudaGetLastError(), return 1);
    CUDA_CHECK(cudaDeviceSynchronize(), return 1);
    return 0;
}

static int ctx_free(ctx *cx)
{
    CUDA_CHECK(cudaFree(cx->d_buf), return 1);
    CUDA_CHECK(cudaFree(cx->d_sum), return 1);
    CUDA_CHECK(cudaFree(cx->d_sum64), return 1);
    CUDA_CHECK(cudaFree(cx->d_t0), return 1);
    CUDA_CHECK(cudaFree(cx->d_t1), return 1);
    CUDA_CHECK(cudaFree(cx->d_smid), return 1);
    CUDA_CHECK(cudaFree(cx->d_sink), return 1);
    CUDA_CHECK(cudaFree(cx->d_res), return 1);
    free(cx->h_res);
    free(cx->h_sum);
    free(cx->h_sum64);
    free(cx->h_t0);
    free(cx->h_t1);
    free(cx->h_smid);
    return 0;
}

/* The output's header lines of the mode. */
static void print_header(FILE *fo, const vopts *o, const cudaDeviceProp *prop, int clock_khz)
{
    fprintf(fo, "# validation mode=%s gpu=\"%s\" sm_count=%d clock_mhz=%.0f reps=%d scale=%g\n", o->mode, prop->name,
            prop->multiProcessorCount, clock_khz / 1000.0, o->reps, o->scale);
    if (o->profile)
        fprintf(fo, "seq,idx,name,class,role,kernel\n");
    else
        fprintf(fo, "idx,name,class,op,family,pattern,d,cas_pct,alu,loads,grid,block,iters,jobs_per_sm,"
                    "atom_grid,atom_block,atom_iters,reshaped,blocks_per_sm_max,blocks_per_sm_min,"
                    "t_full_ms,t_atom_ms,t_empty_full_ms,t_empty_atom_ms,u_true,u_true_raw,"
                    "full_kernel,atom_kernel,sass,level,est_u,atom_cycles_per_job,atom_cycles_sms,ub_case,"
                    "cluster_size,target,half_warps,half_cycles_per_job,half_cycles_sms,full_cycles_per_job,"
                    "u_true_sm,atom_spread\n");
}

/* One point's kernels (the full kernel and the atomics-only one) and their names. */
typedef struct point_kernels {
    const fam_op *fo;
    const char *kop; /* the op column: the operation's name (unit_bound's) */
    vk_fn full, atom;
    char fname[48], aname[48];
} point_kernels;

static void kernels_of(const point *p, point_kernels *k)
{
    const int has_work = p->L > 0 || p->G > 0;
    k->fo = op_of(p);
    /* kernels: the family class's vk_<op>_* (add, cas64: those of the other classes), the generic
     * class's vk_generic_<tok>_* */
    k->kop = k->fo ? k->fo->name : ops[p->op].name;
    vk_fn kfull = k->fo ? k->fo->full : ops[p->op].full;
    k->atom = k->fo ? k->fo->atom : ops[p->op].atom;
    k->full = has_work ? kfull : k->atom;
    char stem[32];
    snprintf(stem, sizeof stem, "%s%s", p->gop >= 0 ? "generic_" : "", p->gop >= 0 ? gops[p->gop].tok : k->kop);
    snprintf(k->fname, sizeof k->fname, "vk_%s_%s", stem, has_work ? "full" : "atom");
    snprintf(k->aname, sizeof k->aname, "vk_%s_atom", stem);
}

/* --mode profile: one point's launches (warm-up, full, atomics-only), named in fo. */
static int profile_point(ctx *cx, int i, const point *p, shape s, const point_kernels *k, VParams vp, const vopts *o,
                         FILE *fo, int *seq)
{
    if ((o->warm && launch(cx, k->full, s.grid, s.block, vp, p, s.iters, NULL, NULL, NULL)) ||
        launch(cx, k->full, s.grid, s.block, vp, p, s.iters, NULL, NULL, NULL))
        return 1;
    VParams va = vp;
    va.L = 0, va.G = 0;
    if (launch(cx, k->atom, s.agrid, s.ablock, va, p, s.aiters, NULL, NULL, NULL))
        return 1;
    if (o->warm)
        fprintf(fo, "%d,%d,%s,%s,warm,%s\n", (*seq)++, i, p->name, p->cls, k->fname);
    fprintf(fo, "%d,%d,%s,%s,full,%s\n", (*seq)++, i, p->name, p->cls, k->fname);
    fprintf(fo, "%d,%d,%s,%s,atom,%s\n", (*seq)++, i, p->name, p->cls, k->aname);
    return 0;
}

/* The atomics-only launch's median cycles per job (its own clocks, where SMs held its blocks), NAN
 * when none did; the full and atomics-only times of reps launches, alternately so that clock drift
 * hits both. */
static int time_point(ctx *cx, const point *p, shape s, const point_kernels *k, VParams vp, int reps, float *tf,
                      float *ta, double *acpj, int *min_sms)
{
    double ca[64];
    int ca_sms[64], nca = 0, ca_min_sms = 1 << 30, rc = 0;
    VParams va = vp;
    va.L = 0, va.G = 0;
    /* warm-up first */
    if (launch(cx, k->full, s.grid, s.block, vp, p, s.iters, NULL, NULL, NULL) ||
        launch(cx, k->atom, s.agrid, s.ablock, va, p, s.aiters, NULL, NULL, NULL))
        return 1;
    for (int r = 0; r < reps && rc == 0; ++r) {
        rc = launch(cx, k->full, s.grid, s.block, vp, p, s.iters, &tf[r], NULL, NULL) ||
             launch(cx, k->atom, s.agrid, s.ablock, va, p, s.aiters, &ta[r], &ca[nca], &ca_sms[nca]);
        if (rc == 0 && ca_sms[nca] > 0) {
            ca_min_sms = ca_sms[nca] < ca_min_sms ? ca_sms[nca] : ca_min_sms;
            nca++;
        }
    }
    if (rc)
        return 1;
    *acpj = NAN;
    *min_sms = 0;
    if (nca > 0) {
        qsort(ca, (size_t)nca, sizeof *ca, cmp_double);
        *acpj = nca % 2 ? ca[nca / 2] : 0.5 * (ca[nca / 2 - 1] + ca[nca / 2]);
        *min_sms = ca_min_sms;
    } else {
        fprintf(stderr,
                "validation: %s: no SM held exactly the expected blocks of the atomics-only "
                "launch; atom_cycles_per_job left empty\n",
                p->name);
    }
    return 0;
}

/* --mode time: one point's row (times, U_true, the atomics-only cycles per job, residency). */
static int time_point_row(ctx *cx, int i, const point *p, shape s, const point_kernels *k, VParams vp, const vopts *o,
                          FILE *fo, int *per_sm)
{
    const int sm = cx->sm, reps = o->reps;
    float tf[64], ta[64], te_f, te_a;
    double acpj;
    int min_sms;
    if (time_point(cx, p, s, k, vp, reps, tf, ta, &acpj, &min_sms))
        return 1;
    char acpj_s[32] = "", est_u[16] = "", level[8] = "";
    if (min_sms > 0)
        snprintf(acpj_s, sizeof acpj_s, "%.4f", acpj);
    if (k->fo) {
        snprintf(est_u, sizeof est_u, "%.3f", p->est / p->t_est);
        snprintf(level, sizeof level, "%d", p->level);
    }
    /* blocks per SM of the last full launch */
    if (launch(cx, k->full, s.grid, s.block, vp, p, s.iters, NULL, NULL, NULL))
        return 1;
    memset(per_sm, 0, (size_t)sm * sizeof(int));
    for (int b = 0; b < s.grid; ++b)
        if (cx->h_smid[b] < (unsigned)sm)
            per_sm[cx->h_smid[b]]++;
    int bmax = 0, bmin = 1 << 30;
    for (int q = 0; q < sm; ++q)
        bmax = per_sm[q] > bmax ? per_sm[q] : bmax, bmin = per_sm[q] < bmin ? per_sm[q] : bmin;
    if (empty_ms(cx, s.grid, s.block, 0, reps, &te_f) || empty_ms(cx, s.agrid, s.ablock, 0, reps, &te_a))
        return 1;
    float mf = median(tf, reps), ma = median(ta, reps);
    double ut = (ma - te_a) / (mf - te_f), ur = ma / mf;
    static const char *const old_sass[NOPS] = {"ATOMS.ADD",    "ATOMS.POPC.INC.32", "ATOMS.ADD+ATOMS.CAS",
                                               "ATOMS.CAS.64", "ATOMS.CAST.SPIN",   "ATOMS.CAST.SPIN.64"};
    const char *patname = p->lp >= 0               ? au_lane_pattern_name(p->lp)
                          : k->fo                  ? fpats[p->fpat].name
                          : p->pattern == PAT_ADDR ? "same_addr"
                                                   : "same_bank";
    const int cas_pct = k->fo               ? (strncmp(k->fo->family, "cas", 3) == 0 ? 100 : 0)
                        : p->op == OP_MIX   ? 25 * p->q
                        : p->op == OP_CAS64 ? 100
                                            : 0;
    fprintf(fo,
            "%d,%s,%s,%s,%s,%s,%d,%d,%d,%d,%d,%d,%u,%.0f,%d,%d,%u,%d,%d,%d,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%s,%s,"
            "%s,%s,%s,%s,%d,%s",
            i, p->name, p->cls, k->kop, p->family, patname, p->d, cas_pct, p->L, p->G, s.grid, s.block, s.iters,
            s.jobs_per_sm, s.agrid, s.ablock, s.aiters, s.reshaped, bmax, bmin, mf, ma, te_f, te_a, ut, ur, k->fname,
            k->aname, k->fo ? k->fo->sass : old_sass[p->op], level, est_u, acpj_s, min_sms, p->ub_case);
    fputs(",,,,,,,,\n", fo); /* the dsmem class's columns */
    fflush(fo);
    fprintf(stderr, "%3d %-29s T_full %8.4f ms  T_atom %8.4f ms  U_true %5.1f %%  atom %8.3f cycles/job\n", i, p->name,
            mf, ma, 100 * ut, acpj);
    return 0;
}

/* One selected point of any class; 0 also where it is skipped (with a note). */
static int run_point(ctx *cx, int i, VParams vp, const vopts *o, FILE *fo, int *seq, int *per_sm)
{
    const point *p = &pts[i];
    shape s = shape_of(p, cx->sm, o->scale);
    if (p->dpat >= 0) {
        if (!cx->ds_ok)
            return 0;
        const int ncl = dsmem_clusters(cx, p->cluster);
        if (ncl < 1) {
            fprintf(stderr, "validation: %s: no cluster of %d blocks fits with one block per SM; skipped\n", p->name,
                    p->cluster);
            return 0;
        }
        return run_dsmem_point(cx, i, p, s, ncl * p->cluster, vp, o->profile, o->warm, o->reps, fo, seq, per_sm);
    }
    point_kernels k;
    kernels_of(p, &k);
    int resident = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, k.full, s.block, 0), return 1);
    if (resident * p->bden < p->bnum || s.grid > cx->maxgrid) {
        fprintf(stderr, "validation: %s: %d blocks of %d threads per SM do not fit (%d); skipped\n", p->name,
                (p->bnum + p->bden - 1) / p->bden, s.block, resident);
        return 0;
    }
    vp.L = p->L, vp.G = p->G, vp.pattern = p->lp >= 0 ? p->lp : p->pattern, vp.d = p->d, vp.q = p->q;
    vp.W = p->W, vp.B = p->B;
    vp.init = k.fo ? k.fo->init : 0, vp.v = k.fo ? k.fo->v : 0;
    return o->profile ? profile_point(cx, i, p, s, &k, vp, o, fo, seq)
                      : time_point_row(cx, i, p, s, &k, vp, o, fo, per_sm);
}

int main(int argc, char **argv)
{
    vopts o;
    int st = parse_args(argc, argv, &o);
    if (st >= 0)
        return st;
    build_points();
    if (o.list) {
        list_points(&o);
        return 0;
    }
    FILE *fo = o.out ? fopen(o.out, "w") : stdout;
    if (!fo) {
        fprintf(stderr, "validation: cannot write %s: %s\n", o.out, strerror(errno));
        return 1;
    }
    int dev;
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDevice(&dev), return 1);
    CUDA_CHECK(cudaGetDeviceProperties(&prop, dev), return 1);
    const int sm = prop.multiProcessorCount;
    int clock_khz = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev), return 1);
    ctx cx;
    const size_t nbuf = (size_t)1 << BUF_LOG2;
    int *per_sm = (int *)calloc((size_t)sm, sizeof(int));
    if (!per_sm || ctx_alloc(&cx, sm, nbuf))
        return 1;
    VParams vp;
    memset(&vp, 0, sizeof vp);
    vp.buf = cx.d_buf, vp.blocksum = cx.d_sum, vp.smid = cx.d_smid, vp.sink = cx.d_sink;
    vp.blocksum64 = cx.d_sum64, vp.t0 = cx.d_t0, vp.t1 = cx.d_t1, vp.ressum = cx.d_res;
    vp.mask = (unsigned)(nbuf - 1), vp.magic = 0xA5A5F00Du;
    /* the dsmem class: only where clusters can run (its points are skipped with one note otherwise) */
    int want_dsmem = 0;
    for (int i = 0; i < npts; ++i)
        if (pts[i].dpat >= 0 && selected(&pts[i], o.filter, o.exclude))
            want_dsmem = 1;
    if (want_dsmem && dsmem_setup(&cx, &prop, dev))
        return 1;
    if (want_dsmem && !cx.ds_ok)
        fprintf(stderr, "validation: class dsmem skipped: %s\n", cx.ds_why);
    print_header(fo, &o, &prop, clock_khz);
    int seq = 0, rc = 0;
    for (int i = 0; i < npts && rc == 0; ++i)
        if (selected(&pts[i], o.filter, o.exclude))
            rc = run_point(&cx, i, vp, &o, fo, &seq, per_sm);
    if (fo != stdout && fclose(fo) != 0) {
        fprintf(stderr, "validation: cannot write %s\n", o.out);
        rc = 1;
    }
    free(per_sm);
    return ctx_free(&cx) ? 1 : rc;
}
