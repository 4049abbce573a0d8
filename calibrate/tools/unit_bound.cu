/*
 * unit_bound.cu - the shared atomic unit's saturated cost per family and lane pattern, measured
 * with kernels that do nothing but the atomic: 2 blocks x 32 warps on every SM, every warp issuing
 * K jobs from a fully unrolled loop whose operands are loop-invariant registers, each result folded
 * into a checksum by one LOP3 (at most 3 instructions per job, so the 4 schedulers of an SM can
 * issue more than one job per cycle and the unit, not issue, sets the pace).  Cycles per job of an
 * SM = (last block end - first block start, clock64 of that SM) / jobs of that SM; the median over
 * SMs is printed.  The independent check of atomutil-calibrate's saturated costs
 * (tests/calibrate/test_family_costs.c reads recorded outputs of it, tests/data/unit-bound).
 *
 * One job is one source-level operation; for the CAS loops (float, half2 and 64-bit atomicAdd,
 * 64-bit And/Or/Xor/Min/Max) it includes the loop's retries.  The generic cases (gen_*, and the
 * family generic) issue generic atomics (ATOM.E.*) on the same shared words.
 *
 * Lane patterns: lane l of a warp uses word l % W of W words, laid out B per row of 128 bytes
 * (B = banks for 32-bit words, bank pairs for 64-bit): B = W puts the words in distinct banks,
 * B = 1 puts all W words in one bank.  Every warp owns its words unless --shared (then all warps
 * of a block use warp 0's words: CAS loops contend across warps, as in a histogram of constant
 * data).  The generic operations have the lane patterns of the generic validation points too
 * (random256, random4096, skewed, grouped: au_lane_word, on 4096 words that the block's warps
 * share).  The operations, the cases and the lane patterns are calibrate/kernels/ops.cuh's, which
 * the calibration kernels and the validation workloads share.
 *
 * usage: unit_bound [--list] [--filter TEXT] [--jobs K] [--reps N]
 * Output: CSV on stdout (one row per case), progress on stderr.  A standalone tool: it links
 * nothing of atomutil.
 */
#include "../kernels/ops.cuh"

#include <cuda_runtime.h>

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CUDA_CHECK_PROGRAM "unit_bound"
#include "../kernels/cuda_check.h"

#define WORDS  1024 /* words per block region: 4 KB (32-bit) or 8 KB (64-bit); AU_LP_WORDS for au_lane_word */
#define UNROLL 16

struct Args {
    long long *t0, *t1; /* per block: clock64 at start and end */
    unsigned *smid;     /* per block */
    unsigned *sink;     /* written only if the checksum equals `guard` (never) */
    unsigned guard;
    unsigned v;       /* operand, a run-time value (1) */
    int W, B, shared; /* lane pattern */
    int lanes;        /* active lanes per warp (the first `lanes`) */
    int iters;        /* loop iterations; jobs per warp = iters * UNROLL */
    int lp;           /* ub_kernel_lp: the lane pattern of au_lane_word (AU_LP_*) */
};

/* One job of each case: the operation on *p with the loop-invariant operand v (ops.cuh); returns
 * what feeds the checksum (0 where the result is unused). */
#define UB_CASE(name, op, W, x) AU_CASE(op_##name, op, W, x)
AU_REFERENCE_CASES(UB_CASE)
#undef UB_CASE

/* The jobs of a case, LP: on the words of au_lane_word (ub_kernel_lp), else of au_word_of
 * (ub_kernel). */
template <class Op, bool LP> __device__ __forceinline__ void ub_body(const Args &g)
{
    typedef typename Op::T T;
    const int NW = LP ? AU_LP_WORDS : WORDS;
    __shared__ __align__(8) T sh[NW];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    for (int i = tid; i < NW; i += blockDim.x)
        sh[i] = (T)g.v; /* CAS(v, v) then succeeds */
    const int P = sizeof(T) == 8 ? 16 : 32;
    T *p = sh + (LP ? au_lane_word(g.lp, warp, lane) : au_word_of(lane, g.shared ? 0 : warp, g.W, g.B, P));
    /* the operand: loop-invariant, unknown to the compiler; inc/dec/and fold their constants
     * into it once, outside the loop */
    const T v = (T)g.v;
    const bool active = lane < g.lanes;
    __syncthreads();
    long long t0 = clock64();
    T acc = 0;
    if (active) {
        for (int i = 0; i < g.iters; ++i) {
#pragma unroll
            for (int u = 0; u < UNROLL; ++u)
                acc ^= Op::job(p, v, (unsigned)(i * UNROLL + u));
        }
        acc ^= *(volatile T *)p; /* ordered after this lane's atomics */
    }
    /* the comparison waits for that load, and the store it guards cannot move past the barrier:
     * every warp's jobs have completed when the barrier opens */
    if ((unsigned)acc == g.guard)
        g.sink[0] = (unsigned)acc;
    __syncthreads();
    long long t1 = clock64();
    if (tid == 0) {
        unsigned id;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
        g.t0[blockIdx.x] = t0;
        g.t1[blockIdx.x] = t1;
        g.smid[blockIdx.x] = id;
    }
}

template <class Op> __global__ void AU_LAUNCH_BOUNDS_2X1024 ub_kernel(Args g)
{
    ub_body<Op, false>(g);
}
template <class Op> __global__ void AU_LAUNCH_BOUNDS_2X1024 ub_kernel_lp(Args g)
{
    ub_body<Op, true>(g);
}

/* the registry's kinds (as in atomutil/model.h, which this standalone tool does not include) */
enum { AU_KIND_PLAIN, AU_KIND_CAS, AU_KIND_CAS_LOOP, AU_KIND_DSMEM, AU_KIND_GENERIC };
/* The families of the registry (model/include/atomutil/families.def): their opcode, operand width
 * and whether they are CAS loops come from it. */
static const struct {
    const char *name, *opcode;
    int width, loop;
} registry[] = {
#define AU_FAMILY(name, opcode, kind, wf_per_pass, width, pattern, max_a, cgrid, what) \
    {#name, opcode, width, AU_KIND_##kind == AU_KIND_CAS_LOOP},
#include "atomutil/families.def"
#undef AU_FAMILY
};

static int reg_index(const char *name)
{
    for (int i = 0; i < (int)(sizeof registry / sizeof registry[0]); ++i)
        if (!strcmp(registry[i].name, name))
            return i;
    fprintf(stderr, "unit_bound: family %s is not in the registry\n", name);
    exit(2);
}
#define FAMILY_LP(name, op, klp)                                                               \
    {                                                                                          \
#name, registry[reg_index(#name)].opcode, ub_kernel < op>,                             \
                        registry[reg_index(#name)].width, registry[reg_index(#name)].loop, klp \
    }
#define FAMILY(name, op) FAMILY_LP(name, op, NULL)
/* a generic operation: the lane patterns of au_lane_word too */
#define GENERIC(name, op, sass)                            \
    {                                                      \
        name, sass, ub_kernel<op>, 32, 0, ub_kernel_lp<op> \
    }

typedef void (*kfn)(Args);
/* The cases: the registry's families (FAMILY) and other operations (64-bit variants that compile
 * to other opcodes or to CAS loops). */
static const struct {
    const char *name, *sass; /* case name, the opcode the kernel should hold */
    kfn k;
    int width;
    int loop; /* compiled as a CAS loop: jobs are source-level operations */
    kfn klp;  /* the kernel of the au_lane_word patterns, or NULL */
} ops[] = {
    FAMILY(add, op_add),
    FAMILY(popc_inc, op_popc_inc),
    FAMILY(cas, op_cas),
    FAMILY(exch, op_exch),
    FAMILY(min, op_min),
    FAMILY(max, op_max),
    FAMILY(bit_and, op_and),
    FAMILY(bit_or, op_or),
    FAMILY(bit_xor, op_xor),
    FAMILY(inc, op_inc),
    FAMILY(dec, op_dec),
    FAMILY(cast_spin, op_fadd),
    FAMILY(cas64, op_cas64),
    {"exch64", "ATOMS.EXCH.64", ub_kernel<op_exch64>, 64, 0},
    {"min64", "ATOMS.CAST.SPIN.64 (conditional loop)", ub_kernel<op_min64>, 64, 1},
    {"max64", "ATOMS.CAST.SPIN.64 (conditional loop)", ub_kernel<op_max64>, 64, 1},
    FAMILY(cast_spin64, op_add64),
    {"and64", "ATOMS.CAST.SPIN.64", ub_kernel<op_and64>, 64, 1},
    {"or64", "ATOMS.CAST.SPIN.64", ub_kernel<op_or64>, 64, 1},
    {"xor64", "ATOMS.CAST.SPIN.64", ub_kernel<op_xor64>, 64, 1},
    /* generic atomics on shared memory (family generic prices them per wavefront), and a half2
     * add whose generic form the compiler pairs with a CAS loop for shared memory */
    FAMILY_LP(generic, op_gen_add, ub_kernel_lp<op_gen_add>),
    GENERIC("gen_max", op_gen_max, "ATOM.E.MAX"),
    GENERIC("gen_cas", op_gen_cas, "ATOM.E.CAS"),
    GENERIC("gen_ptr_add", op_gen_ptr_add, "ATOM.E.ADD"),
    {"gen_h2_add", "ATOMS.CAST.SPIN (and ATOM.E.ADD.F16x2)", ub_kernel<op_gen_h2_add>, 32, 1, NULL},
    GENERIC("gen_min", op_gen_min, "ATOM.E.MIN"),
    GENERIC("gen_exch", op_gen_exch, "ATOM.E.EXCH"),
    GENERIC("gen_and", op_gen_and, "ATOM.E.AND"),
    GENERIC("gen_or", op_gen_or, "ATOM.E.OR"),
    GENERIC("gen_xor", op_gen_xor, "ATOM.E.XOR"),
    GENERIC("gen_inc", op_gen_inc, "ATOM.E.INC"),
    GENERIC("gen_dec", op_gen_dec, "ATOM.E.DEC"),
};
#define NOPS (int)(sizeof ops / sizeof ops[0])

static const struct {
    const char *name;
    int W, B, shared; /* B = 0: all slots of a row (32 banks or 16 bank pairs); -d: d lanes per slot */
    int lanes;        /* active lanes */
} pats[] = {
    {"distinct", 32, 0, 0, 32},   {"bank2", 32, -2, 0, 32},     {"bank4", 32, -4, 0, 32},
    {"bank8", 32, -8, 0, 32},     {"bank16", 32, -16, 0, 32},   {"bank32", 32, 1, 0, 32},
    {"word", 1, 1, 0, 32},        {"words4_bank", 4, 1, 0, 32}, {"words4_distinct", 4, 4, 0, 32},
    {"words2_bank", 2, 1, 0, 32}, {"block_word", 1, 1, 1, 32},  {"lane1", 32, 0, 0, 1},
    {"half", 32, 0, 0, 16},
};
#define NPATS (int)(sizeof pats / sizeof pats[0])

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A case's lane pattern as the CSV row gives it: W words of B per row (B = 0: not in rows), shared
 * by the block's warps or not, `lanes` active lanes per warp; lp >= 0: au_lane_word's pattern. */
typedef struct {
    const char *name;
    int W, B, shared, lanes, lp;
} lane_pat;

/* The au_lane_word pattern lp as a lane_pat: its words (distinct, over a block of 32 warps), and
 * whether two warps share one. */
static lane_pat lane_pat_of(int lp)
{
    static unsigned char owner[AU_LP_WORDS];
    lane_pat q = {au_lane_pattern_name(lp), 0, 0, 0, 32, lp};
    memset(owner, 0, sizeof owner);
    for (int w = 0; w < 32; ++w)
        for (int l = 0; l < 32; ++l) {
            unsigned char *o = &owner[au_lane_word(lp, w, l)];
            q.W += *o == 0;
            q.shared |= *o != 0 && *o != w + 1;
            *o = (unsigned char)(w + 1);
        }
    return q;
}

/* Host copies of the blocks' clocks and SMs, and the per-SM and per-repetition figures. */
typedef struct {
    long long *t0, *t1;
    unsigned *sm;
    double *cpj, *med;
    int grid;
} host_bufs;

/* One case: a warm-up and `reps` launches of kernel k with a; its CSV row on stdout.  0, or 1 after
 * a message. */
static int measure(const char *name, int o, kfn k, Args a, const lane_pat *q, host_bufs *h, int reps)
{
    const int grid = h->grid;
    double lo_all = 1e30, hi_all = 0;
    int used = 0;
    for (int r = -1; r < reps; ++r) { /* r = -1: warm-up */
        k<<<grid, 1024>>>(a);
        CUDA_CHECK(cudaGetLastError(), return 1);
        CUDA_CHECK(cudaDeviceSynchronize(), return 1);
        if (r < 0)
            continue;
        CUDA_CHECK(cudaMemcpy(h->t0, a.t0, grid * sizeof(long long), cudaMemcpyDeviceToHost), return 1);
        CUDA_CHECK(cudaMemcpy(h->t1, a.t1, grid * sizeof(long long), cudaMemcpyDeviceToHost), return 1);
        CUDA_CHECK(cudaMemcpy(h->sm, a.smid, grid * sizeof(unsigned), cudaMemcpyDeviceToHost), return 1);
        int n = 0;
        for (int b = 0; b < grid; ++b) {
            int other = -1;
            for (int b2 = 0; b2 < grid; ++b2)
                if (b2 != b && h->sm[b2] == h->sm[b])
                    other = other == -1 ? b2 : -2;
            if (other < 0 || other < b)
                continue; /* not exactly two blocks on this SM, or counted already */
            long long s = h->t0[b] < h->t0[other] ? h->t0[b] : h->t0[other];
            long long e = h->t1[b] > h->t1[other] ? h->t1[b] : h->t1[other];
            h->cpj[n++] = (double)(e - s) / (64.0 * a.iters * UNROLL);
        }
        if (n == 0) {
            fprintf(stderr, "unit_bound: %s: no SM held exactly two blocks\n", name);
            return 1;
        }
        qsort(h->cpj, n, sizeof *h->cpj, cmp_d);
        h->med[r] = h->cpj[n / 2];
        lo_all = h->cpj[0] < lo_all ? h->cpj[0] : lo_all;
        hi_all = h->cpj[n - 1] > hi_all ? h->cpj[n - 1] : hi_all;
        used = n;
    }
    qsort(h->med, reps, sizeof *h->med, cmp_d);
    const double m = h->med[reps / 2];
    printf("%s,%s,%s,%d,%s,%d,%d,%d,%d,%d,%d,%.4f,%.4f,%.4f,%.4f\n", name, ops[o].name, ops[o].sass, ops[o].width,
           q->name, q->W, q->B, q->shared, q->lanes, 64 * a.iters * UNROLL, used, m, lo_all, hi_all,
           (h->med[reps - 1] - h->med[0]) / m);
    fflush(stdout);
    fprintf(stderr, "%-28s %8.3f cycles/job\n", name, m);
    return 0;
}

/* The lane pattern of case (o, q) for ops[o]: pats[q] (q < NPATS), else au_lane_word's pattern
 * q - NPATS + 1 (distinct is pats' already); 0 where the case does not exist. */
static int case_pat(int o, int q, lane_pat *out)
{
    if (q >= NPATS) {
        if (!ops[o].klp)
            return 0;
        *out = lane_pat_of(q - NPATS + 1);
        return 1;
    }
    const int P = ops[o].width == 64 ? 16 : 32;
    int W = pats[q].W, B = pats[q].B;
    if (B == 0)
        B = W < P ? W : P;
    else if (B < 0) { /* -d: d lanes per slot, distinct words */
        B = 32 / -B;
        B = B > P ? P : B;
    }
    if (ops[o].loop == 0 && !strcmp(pats[q].name, "block_word") && strcmp(ops[o].name, "add"))
        return 0; /* cross-warp sharing matters for CAS loops; add is the reference */
    *out = lane_pat{pats[q].name, W, B, pats[q].shared, pats[q].lanes, -1};
    return 1;
}

int main(int argc, char **argv)
{
    static const struct option lo[] = {{"list", no_argument, 0, 'l'},       {"filter", required_argument, 0, 'f'},
                                       {"jobs", required_argument, 0, 'k'}, {"reps", required_argument, 0, 'r'},
                                       {"help", no_argument, 0, 'h'},       {0, 0, 0, 0}};
    const char *filter = NULL;
    int list = 0, jobs = 2048, reps = 3, c;
    while ((c = getopt_long(argc, argv, "lf:k:r:h", lo, NULL)) != -1) {
        switch (c) {
        case 'l': list = 1; break;
        case 'f': filter = optarg; break;
        case 'k': jobs = atoi(optarg); break;
        case 'r': reps = atoi(optarg); break;
        case 'h':
            puts("usage: unit_bound [--list] [--filter TEXT] [--jobs K (per warp, default 2048)] [--reps N (default "
                 "3)]");
            return 0;
        default: return 2;
        }
    }
    if (optind < argc || jobs < UNROLL || reps < 1 || reps > 15) {
        fprintf(stderr, "unit_bound: bad arguments (see --help)\n");
        return 2;
    }
    if (list) {
        for (int o = 0; o < NOPS; ++o)
            for (int q = 0; q < NPATS + AU_LP_COUNT - 1; ++q) {
                lane_pat lp;
                if (q < NPATS || case_pat(o, q, &lp))
                    printf("%s/%s\n", ops[o].name, q < NPATS ? pats[q].name : lp.name);
            }
        return 0;
    }
    int dev;
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDevice(&dev), exit(1));
    CUDA_CHECK(cudaGetDeviceProperties(&prop, dev), exit(1));
    const int nsm = prop.multiProcessorCount, grid = 2 * nsm;
    Args a;
    memset(&a, 0, sizeof a);
    CUDA_CHECK(cudaMalloc(&a.t0, grid * sizeof(long long)), exit(1));
    CUDA_CHECK(cudaMalloc(&a.t1, grid * sizeof(long long)), exit(1));
    CUDA_CHECK(cudaMalloc(&a.smid, grid * sizeof(unsigned)), exit(1));
    CUDA_CHECK(cudaMalloc(&a.sink, sizeof(unsigned)), exit(1));
    a.guard = 0xA5A5F00Du;
    a.v = 1;
    a.iters = jobs / UNROLL;
    host_bufs h;
    h.grid = grid;
    h.t0 = (long long *)malloc(grid * sizeof(long long)), h.t1 = (long long *)malloc(grid * sizeof(long long));
    h.sm = (unsigned *)malloc(grid * sizeof(unsigned));
    h.cpj = (double *)malloc(nsm * sizeof(double)), h.med = (double *)malloc(reps * sizeof(double));
    printf("# unit_bound gpu=\"%s\" sm_count=%d jobs_per_warp=%d reps=%d warps_per_sm=64\n", prop.name, nsm,
           a.iters * UNROLL, reps);
    printf("case,family,sass,width,pattern,words,words_per_row,shared,lanes,jobs_per_sm,sms,cycles_per_job,"
           "cycles_per_job_min,cycles_per_job_max,rep_spread\n");
    for (int o = 0; o < NOPS; ++o)
        for (int q = 0; q < NPATS + AU_LP_COUNT - 1; ++q) {
            lane_pat lp;
            char name[64];
            if (!case_pat(o, q, &lp))
                continue;
            snprintf(name, sizeof name, "%s/%s", ops[o].name, lp.name);
            if (filter && !strstr(name, filter))
                continue;
            a.W = lp.W, a.B = lp.B, a.shared = lp.shared, a.lanes = lp.lanes, a.lp = lp.lp;
            if (measure(name, o, lp.lp >= 0 ? ops[o].klp : ops[o].k, a, &lp, &h, reps))
                return 1;
        }
    return 0;
}
