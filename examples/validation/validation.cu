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
 * atomutil-profile's or ncu's per-launch rows (scripts/validate.py).
 * A profiling target: it links nothing of atomutil.
 */
#include <cuda_runtime.h>

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CUDA_CHECK(call)                                                                   \
    do {                                                                                   \
        cudaError_t err_ = (call);                                                         \
        if (err_ != cudaSuccess) {                                                         \
            fprintf(stderr, "validation: %s:%d: %s: %s\n", __FILE__, __LINE__, #call,      \
                    cudaGetErrorString(err_));                                             \
            return 1;                                                                      \
        }                                                                                  \
    } while (0)

enum { OP_ADD, OP_POPC, OP_MIX, OP_CAS64, OP_FADD, OP_IADD64, NOPS };
enum { J_ADD, J_POPC, J_CAS, J_CAS64, J_FADD, J_IADD64 };
enum { PAT_BANK, PAT_ADDR }; /* d lanes per bank on distinct words | all lanes on one word */

#define SHWORDS 2048       /* 8 KB per block: two regions of 1024 words, or 1024 64-bit words */
#define REGION 1024u
#define K0 12345u          /* initial value of the CAS words: CAS(K0, K0) always succeeds */
#define UNROLL 8           /* jobs per loop iteration: keeps the loop overhead per job small */
#define BUF_LOG2 26        /* global-load buffer: 2^26 words = 256 MiB, larger than L2 */

struct VParams {
    const unsigned *__restrict__ buf;
    double *blocksum;   /* per block: sum of its shared words after the jobs */
    unsigned *smid;     /* per block: the SM it ran on */
    unsigned *sink;     /* written only if a never-seen value occurs: keeps results alive */
    unsigned mask;      /* buffer words - 1 */
    unsigned iters;     /* jobs per thread, a multiple of UNROLL */
    int L, G;           /* FFMAs and global loads before each job */
    int pattern, d, q;  /* lane pattern, lanes per bank, CAS warps per 4 (OP_MIX) */
    unsigned magic;
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
__device__ __forceinline__ void job_loop(const VParams &p, void *word, unsigned gidx, unsigned nthr,
                                         unsigned &acc, float &y, unsigned long long &acc64)
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
                acc ^= atomicAdd(w32, 1u); /* result used: ATOMS.ADD */
            else if (JOB == J_POPC)
                atomicAdd(w32, 1u); /* result unused: ATOMS.POPC.INC */
            else if (JOB == J_CAS)
                acc ^= atomicCAS(w32, K0, K0);
            else if (JOB == J_CAS64)
                acc64 ^= atomicCAS(w64, (unsigned long long)K0, (unsigned long long)K0);
            else if (JOB == J_FADD)
                atomicAdd(wf, 1.0f); /* CAS loop: ATOMS.CAST.SPIN */
            else
                atomicAdd(w64, 1ull); /* CAS loop: ATOMS.CAST.SPIN.64 */
        }
    }
}

template <int OP, bool WORK>
__device__ __forceinline__ void vk_body(const VParams &p)
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

    unsigned w = lane_word(p.pattern, p.d, wide ? 16u : 32u, lane);
    /* CAS loops: each warp gets words of its own, so warps never make each other retry */
    if (OP == OP_FADD || OP == OP_IADD64)
        w += warp * 32u;
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

    unsigned r = acc ^ __float_as_uint(y) ^ (unsigned)acc64 ^ (unsigned)(acc64 >> 32);
    if (r == p.magic)
        *p.sink = r;
    __syncthreads();

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
        for (int o = 16; o; o >>= 1)
            s += __shfl_xor_sync(0xFFFFFFFFu, s, o);
        if (lane == 0) {
            unsigned id;
            asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
            p.blocksum[blockIdx.x] = s;
            p.smid[blockIdx.x] = id;
        }
    }
}

/* Named kernels (reports read well): vk_<op>_full with the work, vk_<op>_atom without.
 * 1024 threads, 2 blocks per SM: at most 32 registers, so 64 warps fit on an SM. */
#define VK(name, op, work)                                                                 \
    __global__ void __launch_bounds__(1024, 2) name(VParams p) { vk_body<op, work>(p); }
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

__global__ void overhead_empty(void) {}

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
    {"add", vk_add_full, vk_add_atom},       {"popc", vk_popc_full, vk_popc_atom},
    {"mix", vk_mix_full, vk_mix_atom},       {"cas64", vk_cas64_full, vk_cas64_atom},
    {"fadd", vk_fadd_full, vk_fadd_atom},    {"iadd64", vk_iadd64_full, vk_iadd64_atom},
};

typedef struct {
    char name[48];
    const char *cls;    /* the knob the point belongs to */
    const char *family; /* table family that matches the op (for --family) */
    int op, pattern, d, q, L, G;
    int bnum, bden;     /* blocks per SM = bnum / bden (bden > 1: uneven over SMs) */
    int warps;          /* warps per block */
    double est;         /* estimated saturated cycles per job, only sizes the point */
} point;

#define MAXPOINTS 128
static point pts[MAXPOINTS];
static int npts;

static void add_point(const char *cls, int op, int pattern, int d, int q, int L, int G, int bnum,
                      int bden, int warps)
{
    if (npts >= MAXPOINTS)
        return;
    point *p = &pts[npts++];
    memset(p, 0, sizeof *p);
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
    s.block = 32 * p->warps;
    s.reshaped = p->warps != 32;
    /* about 600k cycles of atomics (0.3 ms), the full kernel at most about 8M cycles */
    double work = 0.4 * p->L + 12.0 * p->G;
    double full = p->est > work ? p->est : work;
    if (wps < 16)
        full *= 16.0 / wps; /* few warps: latency-bound */
    double jobs = 6e5 / p->est;
    if (jobs > 8e6 / full)
        jobs = 8e6 / full;
    jobs *= scale;
    /* a reshaped atomics-only launch needs jobs per SM divisible by 64 warps x UNROLL */
    unsigned q = s.reshaped ? 64 * UNROLL : UNROLL;
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

typedef struct {
    double *d_sum;
    unsigned *d_smid, *d_sink, *d_buf;
    double *h_sum;
    unsigned *h_smid;
    int maxgrid;
    cudaEvent_t e0, e1;
} ctx;

/* One launch, timed with events when ms != NULL; its checksums are poisoned (NaN) before and
 * checked after.  Returns 0, or 1 after printing what failed. */
static int launch(ctx *c, vk_fn fn, int grid, int block, VParams vp, const point *p, unsigned iters,
                  float *ms)
{
    CUDA_CHECK(cudaMemset(c->d_sum, 0xFF, (size_t)grid * sizeof(double)));
    vp.iters = iters;
    CUDA_CHECK(cudaEventRecord(c->e0));
    fn<<<grid, block>>>(vp);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaEventRecord(c->e1));
    CUDA_CHECK(cudaEventSynchronize(c->e1));
    if (ms)
        CUDA_CHECK(cudaEventElapsedTime(ms, c->e0, c->e1));
    CUDA_CHECK(cudaMemcpy(c->h_sum, c->d_sum, (size_t)grid * sizeof(double), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(c->h_smid, c->d_smid, (size_t)grid * sizeof(unsigned), cudaMemcpyDeviceToHost));
    double want = expected_sum(p, block / 32, iters);
    for (int b = 0; b < grid; ++b)
        if (!(c->h_sum[b] == want)) {
            fprintf(stderr, "validation: %s: block %d reports %.1f, expected %.1f\n", p->name, b,
                    c->h_sum[b], want);
            return 1;
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

/* Median event time of an empty launch of this shape (launch overhead), cached per shape. */
static int empty_ms(ctx *c, int grid, int block, int reps, float *out)
{
    static int g[64], b[64], n;
    static float v[64];
    for (int i = 0; i < n; ++i)
        if (g[i] == grid && b[i] == block) {
            *out = v[i];
            return 0;
        }
    float ms[64];
    for (int r = -1; r < reps; ++r) {
        CUDA_CHECK(cudaEventRecord(c->e0));
        overhead_empty<<<grid, block>>>();
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaEventRecord(c->e1));
        CUDA_CHECK(cudaEventSynchronize(c->e1));
        if (r >= 0)
            CUDA_CHECK(cudaEventElapsedTime(&ms[r], c->e0, c->e1));
    }
    *out = median(ms, reps);
    if (n < 64)
        g[n] = grid, b[n] = block, v[n++] = *out;
    return 0;
}

static void usage(FILE *f)
{
    fputs("usage: validation [options]\n"
          "  -m, --mode MODE     time (default): time every point; profile: launch each point's\n"
          "                      full kernel twice and its atomics-only kernel once, for a profiler\n"
          "  -o, --out FILE      CSV output (default stdout)\n"
          "  -r, --reps N        timed launches per kernel and point after one warm-up (default 7)\n"
          "  -s, --scale F       multiply every point's job count (default 1)\n"
          "  -f, --filter TEXT   only points whose name or class contains TEXT\n"
          "  -W, --no-warm       profile mode: no warm-up launch of the full kernel\n"
          "  -l, --list          print the points and exit (no GPU needed)\n"
          "  -h, --help          this text\n"
          "Examples:\n"
          "  validation -o vtime.csv\n"
          "  atomutil-profile -o vprof --csv -- validation --mode profile -o vprof_points.csv\n",
          f);
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"mode", required_argument, 0, 'm'}, {"out", required_argument, 0, 'o'},
        {"reps", required_argument, 0, 'r'}, {"scale", required_argument, 0, 's'},
        {"filter", required_argument, 0, 'f'}, {"list", no_argument, 0, 'l'},
        {"no-warm", no_argument, 0, 'W'},    {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    const char *mode = "time", *out = NULL, *filter = NULL;
    int reps = 7, list = 0, warm = 1;
    double scale = 1;
    int c;
    while ((c = getopt_long(argc, argv, "m:o:r:s:f:lWh", opts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'm': mode = optarg; break;
        case 'o': out = optarg; break;
        case 'f': filter = optarg; break;
        case 'l': list = 1; break;
        case 'W': warm = 0; break;
        case 'r':
            errno = 0;
            reps = (int)strtol(optarg, &end, 10);
            if (errno || *end || reps < 1 || reps > 63) {
                fprintf(stderr, "validation: --reps must be 1..63\n");
                return 2;
            }
            break;
        case 's':
            errno = 0;
            scale = strtod(optarg, &end);
            if (errno || *end || !(scale > 0 && scale <= 100)) {
                fprintf(stderr, "validation: --scale must be in (0, 100]\n");
                return 2;
            }
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc || (strcmp(mode, "time") && strcmp(mode, "profile"))) {
        usage(stderr);
        return 2;
    }
    int profile = !strcmp(mode, "profile");
    build_points();
    if (list) {
        /* shapes for a 132-SM GPU (H100/H200); est = estimated saturated cycles per job */
        for (int i = 0; i < npts; ++i) {
            shape s = shape_of(&pts[i], 132, scale);
            printf("%3d %-10s %-24s family=%-11s grid=%4d block=%4d iters=%7u jobs/SM=%8.0f est_atom_cycles=%.2g\n",
                   i, pts[i].cls, pts[i].name, pts[i].family, s.grid, s.block, s.iters, s.jobs_per_sm,
                   s.jobs_per_sm * pts[i].est);
        }
        return 0;
    }
    FILE *fo = out ? fopen(out, "w") : stdout;
    if (!fo) {
        fprintf(stderr, "validation: cannot write %s: %s\n", out, strerror(errno));
        return 1;
    }

    int dev;
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
    const int sm = prop.multiProcessorCount;
    int clock_khz = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev));

    ctx cx;
    memset(&cx, 0, sizeof cx);
    cx.maxgrid = 8 * sm;
    const size_t nbuf = (size_t)1 << BUF_LOG2;
    CUDA_CHECK(cudaMalloc(&cx.d_buf, nbuf * sizeof(unsigned)));
    CUDA_CHECK(cudaMalloc(&cx.d_sum, (size_t)cx.maxgrid * sizeof(double)));
    CUDA_CHECK(cudaMalloc(&cx.d_smid, (size_t)cx.maxgrid * sizeof(unsigned)));
    CUDA_CHECK(cudaMalloc(&cx.d_sink, sizeof(unsigned)));
    CUDA_CHECK(cudaEventCreate(&cx.e0));
    CUDA_CHECK(cudaEventCreate(&cx.e1));
    cx.h_sum = (double *)malloc((size_t)cx.maxgrid * sizeof(double));
    cx.h_smid = (unsigned *)malloc((size_t)cx.maxgrid * sizeof(unsigned));
    int *per_sm = (int *)calloc((size_t)sm, sizeof(int));
    if (!cx.h_sum || !cx.h_smid || !per_sm) {
        fprintf(stderr, "validation: out of host memory\n");
        return 1;
    }
    init_buffer<<<4 * sm, 256>>>(cx.d_buf, nbuf);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());

    VParams vp;
    memset(&vp, 0, sizeof vp);
    vp.buf = cx.d_buf, vp.blocksum = cx.d_sum, vp.smid = cx.d_smid, vp.sink = cx.d_sink;
    vp.mask = (unsigned)(nbuf - 1), vp.magic = 0xA5A5F00Du;

    fprintf(fo, "# validation mode=%s gpu=\"%s\" sm_count=%d clock_mhz=%.0f reps=%d scale=%g\n", mode,
            prop.name, sm, clock_khz / 1000.0, reps, scale);
    if (profile)
        fprintf(fo, "seq,idx,name,class,role,kernel\n");
    else
        fprintf(fo, "idx,name,class,op,family,pattern,d,cas_pct,alu,loads,grid,block,iters,jobs_per_sm,"
                    "atom_grid,atom_block,atom_iters,reshaped,blocks_per_sm_max,blocks_per_sm_min,"
                    "t_full_ms,t_atom_ms,t_empty_full_ms,t_empty_atom_ms,u_true,u_true_raw,"
                    "full_kernel,atom_kernel\n");
    int seq = 0, rc = 0;
    for (int i = 0; i < npts && rc == 0; ++i) {
        const point *p = &pts[i];
        if (filter && !strstr(p->name, filter) && !strstr(p->cls, filter))
            continue;
        shape s = shape_of(p, sm, scale);
        const int has_work = p->L > 0 || p->G > 0;
        vk_fn full = has_work ? ops[p->op].full : ops[p->op].atom, atom = ops[p->op].atom;
        char fname[32], aname[32];
        snprintf(fname, sizeof fname, "vk_%s_%s", ops[p->op].name, has_work ? "full" : "atom");
        snprintf(aname, sizeof aname, "vk_%s_atom", ops[p->op].name);
        int resident = 0;
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, full, s.block, 0));
        if (resident * p->bden < p->bnum || s.grid > cx.maxgrid) {
            fprintf(stderr, "validation: %s: %d blocks of %d threads per SM do not fit (%d); skipped\n",
                    p->name, (p->bnum + p->bden - 1) / p->bden, s.block, resident);
            continue;
        }
        vp.L = p->L, vp.G = p->G, vp.pattern = p->pattern, vp.d = p->d, vp.q = p->q;
        if (profile) {
            if ((warm && launch(&cx, full, s.grid, s.block, vp, p, s.iters, NULL)) ||
                launch(&cx, full, s.grid, s.block, vp, p, s.iters, NULL)) {
                rc = 1;
                break;
            }
            VParams va = vp;
            va.L = 0, va.G = 0;
            if (launch(&cx, atom, s.agrid, s.ablock, va, p, s.aiters, NULL)) {
                rc = 1;
                break;
            }
            if (warm)
                fprintf(fo, "%d,%d,%s,%s,warm,%s\n", seq++, i, p->name, p->cls, fname);
            fprintf(fo, "%d,%d,%s,%s,full,%s\n", seq++, i, p->name, p->cls, fname);
            fprintf(fo, "%d,%d,%s,%s,atom,%s\n", seq++, i, p->name, p->cls, aname);
            continue;
        }
        float tf[64], ta[64], te_f, te_a;
        VParams va = vp;
        va.L = 0, va.G = 0;
        /* warm-up, then full and atomics-only alternately so that clock drift hits both */
        if (launch(&cx, full, s.grid, s.block, vp, p, s.iters, NULL) ||
            launch(&cx, atom, s.agrid, s.ablock, va, p, s.aiters, NULL)) {
            rc = 1;
            break;
        }
        for (int r = 0; r < reps && rc == 0; ++r)
            rc = launch(&cx, full, s.grid, s.block, vp, p, s.iters, &tf[r]) ||
                 launch(&cx, atom, s.agrid, s.ablock, va, p, s.aiters, &ta[r]);
        if (rc)
            break;
        /* blocks per SM of the last full launch */
        if (launch(&cx, full, s.grid, s.block, vp, p, s.iters, NULL)) {
            rc = 1;
            break;
        }
        memset(per_sm, 0, (size_t)sm * sizeof(int));
        for (int b = 0; b < s.grid; ++b)
            if (cx.h_smid[b] < (unsigned)sm)
                per_sm[cx.h_smid[b]]++;
        int bmax = 0, bmin = 1 << 30;
        for (int k = 0; k < sm; ++k)
            bmax = per_sm[k] > bmax ? per_sm[k] : bmax, bmin = per_sm[k] < bmin ? per_sm[k] : bmin;
        if (empty_ms(&cx, s.grid, s.block, reps, &te_f) || empty_ms(&cx, s.agrid, s.ablock, reps, &te_a)) {
            rc = 1;
            break;
        }
        float mf = median(tf, reps), ma = median(ta, reps);
        double ut = (ma - te_a) / (mf - te_f), ur = ma / mf;
        fprintf(fo, "%d,%s,%s,%s,%s,%s,%d,%d,%d,%d,%d,%d,%u,%.0f,%d,%d,%u,%d,%d,%d,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%s,%s\n",
                i, p->name, p->cls, ops[p->op].name, p->family, p->pattern == PAT_ADDR ? "same_addr" : "same_bank",
                p->d, p->op == OP_MIX ? 25 * p->q : p->op == OP_CAS64 ? 100 : 0, p->L, p->G, s.grid, s.block,
                s.iters, s.jobs_per_sm, s.agrid, s.ablock, s.aiters, s.reshaped, bmax, bmin, mf, ma, te_f,
                te_a, ut, ur, fname, aname);
        fflush(fo);
        fprintf(stderr, "%3d %-28s T_full %8.4f ms  T_atom %8.4f ms  U_true %5.1f %%\n", i, p->name, mf,
                ma, 100 * ut);
    }
    if (fo != stdout && fclose(fo) != 0) {
        fprintf(stderr, "validation: cannot write %s\n", out);
        rc = 1;
    }
    CUDA_CHECK(cudaFree(cx.d_buf));
    CUDA_CHECK(cudaFree(cx.d_sum));
    CUDA_CHECK(cudaFree(cx.d_smid));
    CUDA_CHECK(cudaFree(cx.d_sink));
    free(cx.h_sum);
    free(cx.h_smid);
    free(per_sm);
    return rc;
}
