/*
 * advisor_pairs: ground truth for atomutil's advisor (its what-if pricing of the cures of shared
 * atomic conflicts; docs/validation.md, "Advisor pairs").  Each pair is a baseline kernel and a
 * variant that a cure makes of it:
 *   data-only  the same kernel on a conflict-heavy and on a conflict-free input (one value vs
 *              lane-distinct keys: cure one_pass; vs uniform random keys: cure hashed)
 *   code       the same result computed by code that implements the cure (POPC form, warp
 *              aggregation, replication with padding, per-lane privatization, hashed or rotated
 *              bins, CUB's BlockHistogram, a native atomic instead of a CAS loop)
 * validation/advisor.py prices the variant from the baseline's launches (the advisor's whatif_*
 * columns of the pair's cure) and compares with the variant's measured launches.
 * Every kernel runs one warm-up and --reps timed launches of 256-thread blocks, 4 per SM, over
 * --elements fixed, generated elements; every launch's result is checked against a CPU
 * reference (a variant of a code pair computes the baseline's result).  --list prints the pairs
 * as CSV without touching the GPU.  A profiling target: it links nothing of atomutil.
 */
#include <cuda_runtime.h>

#include "bodies.cuh"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CUDA_CHECK_PROGRAM "advisor_pairs"
#include "../../calibrate/kernels/cuda_check.h"

#define MAXREPS 32

/* Inputs: n keys in [0, 1024), indexed by element i (lane i % 32 of its warp). */
enum { IN_ONE, IN_LANE, IN_RAND, IN_SKEW, IN_STRIDE, IN_BLOCKY, IN_WARPUNI, NINPUTS };
static const char *const input_names[NINPUTS] = {"one", "lane", "rand", "skew", "stride", "blocky", "warpuni"};

/* What a pair computes, and so how its blocks' slices are summed and checked. */
enum {
    RES_COUNT,  /* unsigned counts of key % bins */
    RES_WSUM,   /* unsigned sums of val + 1 per key % bins */
    RES_FSUM,   /* float sums of val and 3 - val per key % bins (2 x bins words) */
    RES_FMAX,   /* float max of adv_weight per key % bins */
    RES_COMPACT /* per block: count, then the kept keys in its region */
};

/* A pair's two kernels: adv_NAME (baseline) and adv_NAME__v (variant), one name per role so that
 * a profiler's rows tell them apart, also where both run the same body. */
#define PAIR_KERNELS(name, base_body, var_body) \
    __global__ void adv_##name(AdvArgs a)       \
    {                                           \
        base_body(a);                           \
    }                                           \
    __global__ void adv_##name##__v(AdvArgs a)  \
    {                                           \
        var_body(a);                            \
    }

/* data-only: the expected opcode, with a (passes per job) heavy -> light */
PAIR_KERNELS(hist_add_one_lane, hist_add<1024>, hist_add<1024>)       /* ATOMS.ADD, 32 -> 1 */
PAIR_KERNELS(hist_add_one_rand, hist_add<1024>, hist_add<1024>)       /* ATOMS.ADD, 32 -> ~3.5 */
PAIR_KERNELS(hist_popc_stride_lane, hist_popc<1024>, hist_popc<1024>) /* ATOMS.POPC.INC, 32 -> 1 */
PAIR_KERNELS(hist_popc_stride_rand, hist_popc<1024>, hist_popc<1024>) /* ATOMS.POPC.INC, 32 -> ~3.5 */
PAIR_KERNELS(bincount_skew_rand, hist_add<4096>, hist_add<4096>)      /* ATOMS.ADD, ~14 -> ~3.5 */
PAIR_KERNELS(bincount_blocky_lane, hist_add<4096>, hist_add<4096>)    /* ATOMS.ADD, ~9.5 -> 1 */
PAIR_KERNELS(kmeans_one_lane, kmeans_sum<float>, kmeans_sum<float>)   /* ATOMS.CAST.SPIN loop */
PAIR_KERNELS(kmeans_skew_rand, kmeans_sum<float>, kmeans_sum<float>)  /* ATOMS.CAST.SPIN loop */
PAIR_KERNELS(scatter_one_lane, scatter_add, scatter_add)              /* ATOMS.ADD (no result) */
PAIR_KERNELS(scatter_skew_rand, scatter_add, scatter_add)             /* ATOMS.ADD (no result) */
/* code: baseline -> variant */
PAIR_KERNELS(hist_popc, hist_add<1024>, hist_popc<1024>)              /* ADD -> POPC.INC */
PAIR_KERNELS(bincount_popc, hist_add<4096>, hist_popc<4096>)          /* ADD -> POPC.INC */
PAIR_KERNELS(hist_match, hist_add<1024>, hist_match)                  /* ADD -> ADD, a job per key */
PAIR_KERNELS(scatter_match, scatter_add, scatter_match)               /* ADD -> ADD, a job per key */
PAIR_KERNELS(kmeans_warpsum, kmeans_sum<float>, kmeans_warpsum)       /* CAST.SPIN, a job per warp */
PAIR_KERNELS(compact_ballot, compact<false>, compact<true>)           /* ADD -> ADD, a job per warp */
PAIR_KERNELS(privlane, hist_add<256>, hist_privlane)                  /* ADD -> ADD, 32 copies */
PAIR_KERNELS(rep2, hist_add<256>, hist_rep<2>)                        /* ADD -> ADD, 2 copies */
PAIR_KERNELS(rep4, hist_add<256>, hist_rep<4>)                        /* ADD -> ADD, 4 copies */
PAIR_KERNELS(rep8, hist_add<256>, hist_rep<8>)                        /* ADD -> ADD, 8 copies */
PAIR_KERNELS(rep4_skew, hist_add<256>, hist_rep<4>)                   /* ADD -> ADD, 4 copies */
PAIR_KERNELS(hashed, hist_add<1024>, hist_placed<Feistel10>)          /* ADD -> ADD, hashed bins */
PAIR_KERNELS(rotated, hist_add<1024>, hist_placed<Rotate10>)          /* ADD -> ADD, rotated bins */
PAIR_KERNELS(cub, hist_add<256>, hist_cub)                            /* ADD -> POPC.INC (CUB) */
PAIR_KERNELS(native_float, kmeans_sum<float>, kmeans_sum<unsigned>)   /* CAST.SPIN -> ADD */
PAIR_KERNELS(native_double, kmeans_sum<double>, kmeans_sum<unsigned>) /* CAST.SPIN.64 -> ADD */
PAIR_KERNELS(native_fmax, fmax_cas, fmax_native)                      /* CAS loop -> MAX */

typedef void (*kernel_fn)(AdvArgs);

struct Pair {
    const char *name, *set, *cure;
    kernel_fn base, var;
    int in_base, in_var; /* inputs */
    int result, bins;    /* RES_*, and its bins (centroids) */
    const char *adds_work;
};

#define PAIR(name, set, cure, in_base, in_var, result, bins, work)                         \
    {                                                                                      \
#name, set, cure, adv_##name, adv_##name##__v, in_base, in_var, result, bins, work \
    }
#define DATA(name, cure, in_base, in_var, result, bins) \
    PAIR(name, "data-only", cure, in_base, in_var, result, bins, "none")
#define CODE(name, cure, in, result, bins, work) PAIR(name, "code", cure, in, in, result, bins, work)

/* Why each code pair's cure: replicate_32 for per-lane privatization (32 copies, lane l alone in
 * bank l: a = 1 as one_pass, with the copies' zeroing and merging); one_pass for the rotated bins
 * (on this input the rotation puts a warp's lanes in 32 distinct banks); popc for CUB's
 * BlockHistogram (its atomic algorithm is an increment whose result is unused). */
static const Pair pairs[] = {
    DATA(hist_add_one_lane, "one_pass", IN_ONE, IN_LANE, RES_COUNT, 1024),
    DATA(hist_add_one_rand, "hashed", IN_ONE, IN_RAND, RES_COUNT, 1024),
    DATA(hist_popc_stride_lane, "one_pass", IN_STRIDE, IN_LANE, RES_COUNT, 1024),
    DATA(hist_popc_stride_rand, "hashed", IN_STRIDE, IN_RAND, RES_COUNT, 1024),
    DATA(bincount_skew_rand, "hashed", IN_SKEW, IN_RAND, RES_COUNT, 4096),
    DATA(bincount_blocky_lane, "one_pass", IN_BLOCKY, IN_LANE, RES_COUNT, 4096),
    DATA(kmeans_one_lane, "one_pass", IN_ONE, IN_LANE, RES_FSUM, ADV_K),
    DATA(kmeans_skew_rand, "hashed", IN_SKEW, IN_RAND, RES_FSUM, ADV_K),
    DATA(scatter_one_lane, "one_pass", IN_ONE, IN_LANE, RES_WSUM, 1024),
    DATA(scatter_skew_rand, "hashed", IN_SKEW, IN_RAND, RES_WSUM, 1024),
    CODE(hist_popc, "popc", IN_BLOCKY, RES_COUNT, 1024, "none"),
    CODE(bincount_popc, "popc", IN_SKEW, RES_COUNT, 4096, "none"),
    CODE(hist_match, "aggregate", IN_SKEW, RES_COUNT, 1024, "__match_any_sync and a leader test per element"),
    CODE(scatter_match, "aggregate", IN_BLOCKY, RES_WSUM, 1024, "__match_any_sync and __reduce_add_sync per element"),
    CODE(kmeans_warpsum, "aggregate", IN_WARPUNI, RES_FSUM, ADV_K,
         "__match_all_sync and a 5-step shuffle sum of two floats per element"),
    CODE(compact_ballot, "aggregate", IN_RAND, RES_COMPACT, 0, "__ballot_sync and __popc and __shfl_sync per element"),
    CODE(privlane, "replicate_32", IN_ONE, RES_COUNT, 256, "32 copies: 8192 words zeroed and merged per block"),
    CODE(rep2, "replicate_2", IN_ONE, RES_COUNT, 256, "2 padded copies zeroed and merged per block"),
    CODE(rep4, "replicate_4", IN_ONE, RES_COUNT, 256, "4 padded copies zeroed and merged per block"),
    CODE(rep8, "replicate_8", IN_ONE, RES_COUNT, 256, "8 padded copies zeroed and merged per block"),
    CODE(rep4_skew, "replicate_4", IN_SKEW, RES_COUNT, 256, "4 padded copies zeroed and merged per block"),
    CODE(hashed, "hashed", IN_STRIDE, RES_COUNT, 1024, "a 4-round Feistel hash per element and per bin"),
    CODE(rotated, "one_pass", IN_STRIDE, RES_COUNT, 1024, "a rotation (3 integer instructions) per element"),
    CODE(cub, "popc", IN_BLOCKY, RES_COUNT, 256, "none"),
    CODE(native_float, "native", IN_SKEW, RES_FSUM, ADV_K, "a float-to-integer conversion per add"),
    CODE(native_double, "native", IN_SKEW, RES_FSUM, ADV_K, "a float-to-integer conversion per add"),
    CODE(native_fmax, "native", IN_SKEW, RES_FMAX, ADV_K, "none"),
};
#define NPAIRS (sizeof pairs / sizeof pairs[0])

struct Ctx {
    unsigned n, grid, reps, cap; /* elements, blocks, timed launches, compaction region words */
    unsigned *h_key[NINPUTS], *d_key[NINPUTS];
    float *h_val, *d_val;
    void *d_out, *h_out;
    size_t out_words;
    unsigned *d_sink;
    double *ref; /* the reference table, or per block count, sum and XOR of the kept keys */
};

static uint64_t mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* Key of element i: its lane l = i % 32 and row r = (i / 32) % 32. */
static unsigned input_key(int kind, unsigned i)
{
    const unsigned lane = i & 31u, row = (i >> 5) & 31u;
    double u, u2;
    switch (kind) {
    case IN_ONE: return 7u;
    case IN_LANE: return lane + 32u * row; /* a warp's lanes on 32 words of 32 banks */
    case IN_RAND: return (unsigned)mix64(i) & 1023u;
    case IN_SKEW: /* 1024 u^8: 42 % of the keys are 0 */
        u = (double)(mix64(i) >> 11) * 0x1p-53;
        u2 = u * u * u * u;
        return (unsigned)(1024.0 * u2 * u2);
    case IN_STRIDE: return (lane * 32u + row) & 1023u;                       /* 32 words of one bank */
    case IN_BLOCKY: return (unsigned)mix64((1ull << 40) + (i >> 3)) & 1023u; /* runs of 8 */
    default: return (unsigned)mix64((2ull << 40) + (i >> 5)) & 1023u;        /* one key per warp */
    }
}

/* The input's keys on the device, made on first use. */
static const unsigned *device_input(Ctx *c, int kind)
{
    if (c->d_key[kind])
        return c->d_key[kind];
    unsigned *h = (unsigned *)malloc((size_t)c->n * sizeof *h);
    if (!h) {
        fprintf(stderr, "advisor_pairs: out of memory for input %s\n", input_names[kind]);
        return NULL;
    }
    for (unsigned i = 0; i < c->n; ++i)
        h[i] = input_key(kind, i);
    c->h_key[kind] = h;
    CUDA_CHECK(cudaMalloc(&c->d_key[kind], (size_t)c->n * sizeof *h), return NULL);
    CUDA_CHECK(cudaMemcpy(c->d_key[kind], h, (size_t)c->n * sizeof *h, cudaMemcpyHostToDevice), return NULL);
    return c->d_key[kind];
}

static int table_words(const Pair *p)
{
    return p->result == RES_FSUM ? 2 * p->bins : p->bins;
}

/* Words of out a launch writes (the part poisoned before it and read back after it). */
static size_t out_words(const Ctx *c, const Pair *p)
{
    if (p->result == RES_COMPACT)
        return (size_t)c->grid * (c->cap + 1u);
    return (size_t)c->grid * (size_t)table_words(p);
}

/* The CPU's result: the table (all figures exact in double), or per block the count, sum and XOR
 * of the kept keys, block b holding the elements i with (i / ADV_BLOCK) % grid == b. */
static void reference(Ctx *c, const Pair *p, const unsigned *key)
{
    const size_t words = p->result == RES_COMPACT ? 3u * c->grid : (size_t)table_words(p);
    memset(c->ref, 0, words * sizeof *c->ref);
    for (unsigned i = 0; i < c->n; ++i) {
        const unsigned k = key[i] & (unsigned)(p->bins - 1);
        const float v = c->h_val[i];
        double *r = c->ref;
        switch (p->result) {
        case RES_COUNT: r[k] += 1.0; break;
        case RES_WSUM: r[k] += (double)((unsigned)v + 1u); break;
        case RES_FSUM: r[k] += v, r[p->bins + k] += 3.0 - v; break;
        case RES_FMAX: r[k] = fmax(r[k], (double)adv_weight(v, i)); break;
        default:
            if (v >= 2.0f) {
                r += 3u * ((i / ADV_BLOCK) % c->grid);
                r[0] += 1.0, r[1] = (double)((uint32_t)r[1] + key[i]), r[2] = (double)((uint32_t)r[2] ^ key[i]);
            }
        }
    }
}

/* Compares the blocks' slices of out, summed (or their max), with the reference table. */
static int check_table(const Ctx *c, const Pair *p, const char *kname)
{
    const int words = table_words(p);
    const int fl = p->result == RES_FSUM || p->result == RES_FMAX;
    for (int w = 0; w < words; ++w) {
        double got = 0.0;
        for (unsigned b = 0; b < c->grid; ++b) {
            const size_t at = (size_t)b * words + w;
            const double x = fl ? (double)((const float *)c->h_out)[at] : (double)((const unsigned *)c->h_out)[at];
            got = p->result == RES_FMAX ? fmax(got, x) : got + x;
        }
        if (got != c->ref[w]) {
            fprintf(stderr, "advisor_pairs: %s: %s: word %d is %.17g, expected %.17g\n", p->name, kname, w, got,
                    c->ref[w]);
            return 1;
        }
    }
    return 0;
}

/* Compares each block's count, and the sum and XOR of its region's kept keys, with the reference. */
static int check_compact(const Ctx *c, const Pair *p, const char *kname)
{
    const unsigned *o = (const unsigned *)c->h_out;
    for (unsigned b = 0; b < c->grid; ++b) {
        const double *r = c->ref + 3u * b;
        const unsigned cnt = o[b];
        uint32_t sum = 0, x = 0;
        for (unsigned j = 0; j < cnt && cnt <= c->cap; ++j)
            sum += o[c->grid + (size_t)b * c->cap + j], x ^= o[c->grid + (size_t)b * c->cap + j];
        if (cnt != (unsigned)r[0] || sum != (uint32_t)r[1] || x != (uint32_t)r[2]) {
            fprintf(stderr, "advisor_pairs: %s: %s: block %u kept %u keys (sum %u, xor %u), expected %u (%u, %u)\n",
                    p->name, kname, b, cnt, sum, x, (unsigned)r[0], (uint32_t)r[1], (uint32_t)r[2]);
            return 1;
        }
    }
    return 0;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* One launch of fn, timed with events, its result copied back and checked. */
static int launch_checked(Ctx *c, const Pair *p, kernel_fn fn, const AdvArgs &a, const char *kname, float *ms)
{
    const size_t bytes = out_words(c, p) * sizeof(unsigned);
    cudaEvent_t t0, t1;
    CUDA_CHECK(cudaEventCreate(&t0), return 1);
    CUDA_CHECK(cudaEventCreate(&t1), return 1);
    /* poisoned: a kernel that writes nothing cannot pass the check */
    CUDA_CHECK(cudaMemset(c->d_out, 0xFF, bytes), return 1);
    CUDA_CHECK(cudaEventRecord(t0), return 1);
    fn<<<c->grid, ADV_BLOCK>>>(a);
    CUDA_CHECK(cudaGetLastError(), return 1);
    CUDA_CHECK(cudaEventRecord(t1), return 1);
    CUDA_CHECK(cudaEventSynchronize(t1), return 1);
    CUDA_CHECK(cudaEventElapsedTime(ms, t0, t1), return 1);
    CUDA_CHECK(cudaEventDestroy(t0), return 1);
    CUDA_CHECK(cudaEventDestroy(t1), return 1);
    CUDA_CHECK(cudaMemcpy(c->h_out, c->d_out, bytes, cudaMemcpyDeviceToHost), return 1);
    return p->result == RES_COMPACT ? check_compact(c, p, kname) : check_table(c, p, kname);
}

/* The warm-up and the timed launches of one role (0 baseline, 1 variant); the median in *median_ms. */
static int run_role(Ctx *c, const Pair *p, int role, float *median_ms)
{
    const int kind = role ? p->in_var : p->in_base;
    const unsigned *key = device_input(c, kind);
    if (!key)
        return 1;
    char kname[96];
    snprintf(kname, sizeof kname, "adv_%s%s on input %s", p->name, role ? "__v" : "", input_names[kind]);
    reference(c, p, c->h_key[kind]);
    const AdvArgs a = {key, c->d_val, c->d_out, c->d_sink, c->n, c->cap};
    float ms[MAXREPS + 1];
    for (unsigned r = 0; r <= c->reps; ++r)
        if (launch_checked(c, p, role ? p->var : p->base, a, kname, &ms[r]) != 0)
            return 1;
    qsort(ms + 1, c->reps, sizeof ms[0], cmp_float); /* ms[0]: the warm-up */
    *median_ms = ms[1 + c->reps / 2];
    return 0;
}

static void list_pairs(void)
{
    puts("pair,set,cure,base_kernel,variant_kernel,adds_work");
    for (size_t i = 0; i < NPAIRS; ++i)
        printf("%s,%s,%s,adv_%s,adv_%s__v,%s\n", pairs[i].name, pairs[i].set, pairs[i].cure, pairs[i].name,
               pairs[i].name, pairs[i].adds_work);
}

/* The values, the output, the sink and the reference buffer for n elements on this GPU. */
static int setup(Ctx *c)
{
    int dev, sms;
    CUDA_CHECK(cudaGetDevice(&dev), return 1);
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), return 1);
    c->grid = 4u * (unsigned)sms;
    c->cap = (c->n + c->grid * ADV_BLOCK - 1u) / (c->grid * ADV_BLOCK) * ADV_BLOCK;
    c->out_words = (size_t)c->grid * (c->cap + 1u);
    if (c->out_words < (size_t)c->grid * 4096u)
        c->out_words = (size_t)c->grid * 4096u;
    c->h_val = (float *)malloc((size_t)c->n * sizeof(float));
    c->h_out = malloc(c->out_words * sizeof(unsigned));
    c->ref = (double *)malloc((3u * c->grid + 4096u) * sizeof(double));
    if (!c->h_val || !c->h_out || !c->ref) {
        fprintf(stderr, "advisor_pairs: out of memory for %u elements\n", c->n);
        return 1;
    }
    for (unsigned i = 0; i < c->n; ++i)
        c->h_val[i] = (float)(mix64((3ull << 40) + i) & 3u);
    CUDA_CHECK(cudaMalloc(&c->d_val, (size_t)c->n * sizeof(float)), return 1);
    CUDA_CHECK(cudaMemcpy(c->d_val, c->h_val, (size_t)c->n * sizeof(float), cudaMemcpyHostToDevice), return 1);
    CUDA_CHECK(cudaMalloc(&c->d_out, c->out_words * sizeof(unsigned)), return 1);
    CUDA_CHECK(cudaMalloc(&c->d_sink, sizeof(unsigned)), return 1);
    return 0;
}

static void usage(FILE *f)
{
    fputs("usage: advisor_pairs [options]\n"
          "  -l, --list          print the pairs as CSV (pair,set,cure,base_kernel,variant_kernel,adds_work)\n"
          "                      and exit; needs no GPU\n"
          "  -p, --pair NAME     run only this pair (default: all)\n"
          "  -n, --elements N    elements per launch, a multiple of 1024 (default 16777216)\n"
          "  -r, --reps N        timed launches per kernel after one warm-up, 1..32 (default 5)\n"
          "  -h, --help          this text\n"
          "Prints one line per pair: its baseline's and variant's median time; exits 1 when a result\n"
          "differs from the CPU's.\n",
          f);
}

static int parse_count(const char *s, unsigned long long lo, unsigned long long hi, unsigned *out)
{
    char *end;
    errno = 0;
    const unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-' || v < lo || v > hi)
        return -1;
    *out = (unsigned)v;
    return 0;
}

/* Options into c and *only (a pair's name or NULL); -1 to exit 0 (--list, --help), 2 on a usage error. */
static int parse_args(int argc, char **argv, Ctx *c, const char **only)
{
    static const struct option opts[] = {{"list", no_argument, 0, 'l'},           {"pair", required_argument, 0, 'p'},
                                         {"elements", required_argument, 0, 'n'}, {"reps", required_argument, 0, 'r'},
                                         {"help", no_argument, 0, 'h'},           {0, 0, 0, 0}};
    int o;
    while ((o = getopt_long(argc, argv, "lp:n:r:h", opts, NULL)) != -1) {
        switch (o) {
        case 'l': list_pairs(); return -1;
        case 'h': usage(stdout); return -1;
        case 'p': *only = optarg; continue;
        case 'n':
            if (parse_count(optarg, ADV_TILE, 1ull << 30, &c->n) == 0 && c->n % ADV_TILE == 0)
                continue;
            fprintf(stderr, "advisor_pairs: --elements '%s': not a multiple of 1024 in [1024, 2^30]\n", optarg);
            return 2;
        case 'r':
            if (parse_count(optarg, 1, MAXREPS, &c->reps) == 0)
                continue;
            fprintf(stderr, "advisor_pairs: --reps '%s': not a number in [1, %d]\n", optarg, MAXREPS);
            return 2;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "advisor_pairs: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    for (size_t i = 0; *only && i < NPAIRS; ++i)
        if (strcmp(*only, pairs[i].name) == 0)
            return 0;
    if (*only) {
        fprintf(stderr, "advisor_pairs: unknown pair '%s' (--list names them)\n", *only);
        return 2;
    }
    return 0;
}

int main(int argc, char **argv)
{
    Ctx c;
    memset(&c, 0, sizeof c);
    c.n = 1u << 24;
    c.reps = 5;
    const char *only = NULL;
    const int rc = parse_args(argc, argv, &c, &only);
    if (rc != 0)
        return rc < 0 ? 0 : rc;
    if (setup(&c) != 0)
        return 1;
    printf("advisor_pairs: %u elements, grid %u x %d, %u timed launches per kernel\n", c.n, c.grid, ADV_BLOCK, c.reps);
    int failed = 0;
    for (size_t i = 0; i < NPAIRS; ++i) {
        const Pair *p = &pairs[i];
        float tb, tv;
        if (only && strcmp(only, p->name) != 0)
            continue;
        if (run_role(&c, p, 0, &tb) != 0 || run_role(&c, p, 1, &tv) != 0) {
            failed = 1;
            continue;
        }
        printf("%-22s %-9s %-12s base %-7s %9.4f ms  variant %-7s %9.4f ms\n", p->name, p->set, p->cure,
               input_names[p->in_base], tb, input_names[p->in_var], tv);
    }
    return failed;
}
