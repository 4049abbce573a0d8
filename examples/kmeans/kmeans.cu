/*
 * kmeans: the centroid update of k-means with shared-memory atomics, a second workload for the
 * atomutil case study (docs/case-study.md).  A profiling target: it links nothing of atomutil.
 *
 * One step of Lloyd's algorithm on 2-D float points: each thread takes a point, finds its nearest
 * centroid (the assignment, plain ALU work over the k centroids held in shared memory) and adds
 * the point to that cluster's sum and count in a block-private table in shared memory
 * (atomicAdd on float = a CAS loop on sm_90, atomicAdd(count, 1) = ATOMS.POPC.INC); at the end
 * each block merges its table into global memory.  Two optimizations of the Fermi-era GPU k-means
 * work are selectable:
 *   replication  R copies of the table, lane l updates copy l % R: lanes that pick the same
 *                cluster no longer hit the same word (no CAS-loop retries among them)
 *   padding      copy r starts at r * stride with stride = 1 (mod 32) words, so the R copies of
 *                a word lie in R different banks; without it stride = 3k and copies can share
 *                banks (k = 4: stride 12, only 8 distinct banks for 32 copies)
 * Kernels: kmeans_base (R = 1), kmeans_rep (R > 1, no padding), kmeans_rep_pad.
 * Every result is checked against a CPU update (counts exact, sums to 1e-3 relative).
 * --sweep runs k = 4, 32, 256 x R = 1, 2, 4, 8, 16, 32 x padding off/on in one process.
 */
#include <cuda_runtime.h>

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CUDA_CHECK_PROGRAM "kmeans"
#include "../../calibrate/kernels/cuda_check.h"

#define MAXK   256
#define MAXREP 32

/* Words of one copy of the table: k records of (sum x, sum y, count). */
static __host__ __device__ unsigned copy_stride(int k, int pad)
{
    unsigned s = 3u * (unsigned)k;
    return pad ? (s + 31u) / 32u * 32u + 1u : s;
}

/* Nearest centroid with explicitly rounded arithmetic (no FMA contraction), so the CPU check
 * computes exactly the same assignment. */
static __host__ __device__ __forceinline__ int nearest(float x, float y, const float2 *c, int k)
{
    int best = 0;
    float bd = 3.4e38f;
    for (int j = 0; j < k; ++j) {
#ifdef __CUDA_ARCH__
        float dx = __fsub_rn(x, c[j].x), dy = __fsub_rn(y, c[j].y);
        float d = __fadd_rn(__fmul_rn(dx, dx), __fmul_rn(dy, dy));
#else
        /* x86-64 without -mfma has no FMA to contract into: plain SSE single precision */
        float dx = x - c[j].x, dy = y - c[j].y;
        float d = dx * dx + dy * dy;
#endif
        if (d < bd)
            bd = d, best = j;
    }
    return best;
}

__device__ __forceinline__ void update_body(const float2 *__restrict__ pts, size_t n, const float2 *__restrict__ cent,
                                            int k, int rep, int pad, float *__restrict__ gsum,
                                            unsigned *__restrict__ gcnt)
{
    extern __shared__ float sh[];
    float2 *sc = (float2 *)sh;  /* k centroids */
    float *tab = sh + 2 * MAXK; /* rep copies of the table */
    const unsigned stride = copy_stride(k, pad), words = stride * (unsigned)rep;
    for (int j = threadIdx.x; j < k; j += blockDim.x)
        sc[j] = cent[j];
    for (unsigned i = threadIdx.x; i < words; i += blockDim.x)
        tab[i] = 0.0f; /* also count 0 */
    __syncthreads();

    float *mine = tab + ((threadIdx.x & 31u) % (unsigned)rep) * stride;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const float2 p = pts[i];
        const int c = nearest(p.x, p.y, sc, k);
        atomicAdd(&mine[3 * c], p.x);
        atomicAdd(&mine[3 * c + 1], p.y);
        atomicAdd((unsigned *)&mine[3 * c + 2], 1u);
    }
    __syncthreads();

    /* merge the copies, then into global memory */
    for (int w = threadIdx.x; w < 3 * k; w += blockDim.x) {
        float s = 0;
        unsigned cnt = 0;
        for (int r = 0; r < rep; ++r) {
            if (w % 3 == 2)
                cnt += __float_as_uint(tab[r * stride + w]);
            else
                s += tab[r * stride + w];
        }
        if (w % 3 == 2) {
            if (cnt)
                atomicAdd(&gcnt[w / 3], cnt);
        } else if (s != 0.0f) {
            atomicAdd(&gsum[2 * (w / 3) + w % 3], s);
        }
    }
}

/* One name per optimization, so that profiler reports read well. */
#define KM_KERNEL(name)                                                                                             \
    __global__ void name(const float2 *__restrict__ pts, size_t n, const float2 *__restrict__ cent, int k, int rep, \
                         int pad, float *__restrict__ gsum, unsigned *__restrict__ gcnt)                            \
    {                                                                                                               \
        update_body(pts, n, cent, k, rep, pad, gsum, gcnt);                                                         \
    }
KM_KERNEL(kmeans_base)
KM_KERNEL(kmeans_rep)
KM_KERNEL(kmeans_rep_pad)

typedef void (*km_fn)(const float2 *, size_t, const float2 *, int, int, int, float *, unsigned *);

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static double uniform01(unsigned long long *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return ((*s >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

/* Points from k Gaussian blobs (centres on a circle, sigma 0.08), in random order; initial
 * centroids are the blob centres moved by a little. */
static void make_data(float2 *pts, size_t n, float2 *cent, int k, unsigned long long seed)
{
    unsigned long long s = seed * 0x9E3779B97F4A7C15ull + 7;
    for (int j = 0; j < k; ++j) {
        double a = 6.283185307179586 * j / k, r = 1.0 + 0.3 * (j % 3);
        cent[j] = make_float2((float)(r * cos(a) + 0.05), (float)(r * sin(a) - 0.05));
    }
    for (size_t i = 0; i < n; ++i) {
        int j = (int)(uniform01(&s) * k);
        double a = 6.283185307179586 * j / k, r = 1.0 + 0.3 * (j % 3);
        double u1 = uniform01(&s), u2 = uniform01(&s), g = sqrt(-2.0 * log(u1));
        pts[i] = make_float2((float)(r * cos(a) + 0.08 * g * cos(6.283185307179586 * u2)),
                             (float)(r * sin(a) + 0.08 * g * sin(6.283185307179586 * u2)));
    }
}

typedef struct {
    const float2 *d_pts, *h_pts, *d_cent, *h_cent;
    size_t n;
    float *d_sum;
    unsigned *d_cnt;
    int grid, block, reps;
} setup;

/* Runs one variant: warm-up plus reps timed launches, each checked; prints one line. */
static int run_variant(const setup *st, int k, int rep, int pad)
{
    static double ref_sum[2 * MAXK];
    static unsigned ref_cnt[MAXK];
    static int ref_k = -1;
    if (ref_k != k) {
        memset(ref_sum, 0, sizeof ref_sum);
        memset(ref_cnt, 0, sizeof ref_cnt);
        for (size_t i = 0; i < st->n; ++i) {
            int c = nearest(st->h_pts[i].x, st->h_pts[i].y, st->h_cent, k);
            ref_sum[2 * c] += st->h_pts[i].x, ref_sum[2 * c + 1] += st->h_pts[i].y, ref_cnt[c]++;
        }
        ref_k = k;
    }
    km_fn fn = rep == 1 ? kmeans_base : pad ? kmeans_rep_pad : kmeans_rep;
    const char *name = rep == 1 ? "kmeans_base" : pad ? "kmeans_rep_pad" : "kmeans_rep";
    size_t smem = (2 * MAXK + (size_t)copy_stride(k, pad) * rep) * sizeof(float);
    CUDA_CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem), return 1);
    cudaEvent_t t0, t1;
    CUDA_CHECK(cudaEventCreate(&t0), return 1);
    CUDA_CHECK(cudaEventCreate(&t1), return 1);
    float ms[64], got_sum[2 * MAXK];
    unsigned got_cnt[MAXK];
    for (int r = 0; r <= st->reps; ++r) { /* r == 0 is the warm-up */
        CUDA_CHECK(cudaMemset(st->d_sum, 0, 2 * (size_t)k * sizeof(float)), return 1);
        CUDA_CHECK(cudaMemset(st->d_cnt, 0, (size_t)k * sizeof(unsigned)), return 1);
        CUDA_CHECK(cudaEventRecord(t0), return 1);
        fn<<<st->grid, st->block, smem>>>(st->d_pts, st->n, st->d_cent, k, rep, pad, st->d_sum, st->d_cnt);
        CUDA_CHECK(cudaGetLastError(), return 1);
        CUDA_CHECK(cudaEventRecord(t1), return 1);
        CUDA_CHECK(cudaEventSynchronize(t1), return 1);
        if (r > 0)
            CUDA_CHECK(cudaEventElapsedTime(&ms[r - 1], t0, t1), return 1);
        CUDA_CHECK(cudaMemcpy(got_sum, st->d_sum, 2 * (size_t)k * sizeof(float), cudaMemcpyDeviceToHost), return 1);
        CUDA_CHECK(cudaMemcpy(got_cnt, st->d_cnt, (size_t)k * sizeof(unsigned), cudaMemcpyDeviceToHost), return 1);
        for (int j = 0; j < k; ++j) {
            int bad = got_cnt[j] != ref_cnt[j];
            for (int d = 0; d < 2; ++d)
                bad |= fabs(got_sum[2 * j + d] - ref_sum[2 * j + d]) > 1e-3 * (fabs(ref_sum[2 * j + d]) + ref_cnt[j]);
            if (bad) {
                fprintf(stderr,
                        "kmeans: %s k=%d rep=%d pad=%d: cluster %d: count %u sum (%g, %g), "
                        "expected %u (%g, %g)\n",
                        name, k, rep, pad, j, got_cnt[j], got_sum[2 * j], got_sum[2 * j + 1], ref_cnt[j],
                        ref_sum[2 * j], ref_sum[2 * j + 1]);
                return 1;
            }
        }
    }
    CUDA_CHECK(cudaEventDestroy(t0), return 1);
    CUDA_CHECK(cudaEventDestroy(t1), return 1);
    qsort(ms, (size_t)st->reps, sizeof ms[0], cmp_float);
    printf("%-14s k=%d rep=%d pad=%d points=%zu grid=%d block=%d smem=%zu median_ms=%.4f\n", name, k, rep, pad, st->n,
           st->grid, st->block, smem, ms[st->reps / 2]);
    fflush(stdout);
    return 0;
}

static void usage(FILE *f)
{
    fputs("usage: kmeans [options]\n"
          "  -k, --clusters K    clusters, 1..256 (default 4)\n"
          "  -R, --rep R         table copies per block, 1..32 (default 1)\n"
          "  -P, --pad           pad the copies to distinct banks\n"
          "  -n, --points N      points (default 4194304)\n"
          "  -b, --block N       threads per block, multiple of 32 (default 256)\n"
          "  -g, --grid N        blocks; 0 = 4 per SM (default 0)\n"
          "  -r, --reps N        timed launches after one warm-up (default 5)\n"
          "  -S, --sweep         k = 4, 32, 256 x rep = 1..32 x pad off/on\n"
          "  -s, --seed N        random seed (default 1)\n"
          "  -h, --help          this text\n"
          "Prints one line per variant: kernel, k, rep, pad, points, grid, block, shared bytes, median ms.\n"
          "Examples:\n"
          "  kmeans -k 4 -R 32 -P\n"
          "  kmeans --sweep\n",
          f);
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {{"clusters", required_argument, 0, 'k'},
                                         {"rep", required_argument, 0, 'R'},
                                         {"pad", no_argument, 0, 'P'},
                                         {"points", required_argument, 0, 'n'},
                                         {"block", required_argument, 0, 'b'},
                                         {"grid", required_argument, 0, 'g'},
                                         {"reps", required_argument, 0, 'r'},
                                         {"sweep", no_argument, 0, 'S'},
                                         {"seed", required_argument, 0, 's'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    long k = 4, rep = 1, block = 256, grid = 0, reps = 5, seed = 1;
    long long npts = 4194304;
    int pad = 0, sweep = 0, c;
    while ((c = getopt_long(argc, argv, "k:R:Pn:b:g:r:Ss:h", opts, NULL)) != -1) {
        long *dst = NULL;
        char *end;
        switch (c) {
        case 'k': dst = &k; break;
        case 'R': dst = &rep; break;
        case 'b': dst = &block; break;
        case 'g': dst = &grid; break;
        case 'r': dst = &reps; break;
        case 's': dst = &seed; break;
        case 'P': pad = 1; continue;
        case 'S': sweep = 1; continue;
        case 'n':
            errno = 0;
            npts = strtoll(optarg, &end, 10);
            if (errno || *end || npts < 1 || npts > (1ll << 28)) {
                fprintf(stderr, "kmeans: --points must be 1..2^28\n");
                return 2;
            }
            continue;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
        errno = 0;
        *dst = strtol(optarg, &end, 10);
        if (errno || *end || *dst < 0) {
            fprintf(stderr, "kmeans: invalid number '%s'\n", optarg);
            return 2;
        }
    }
    if (optind < argc || k < 1 || k > MAXK || rep < 1 || rep > MAXREP || block < 32 || block % 32 || block > 1024 ||
        reps < 1 || reps > 64) {
        fprintf(stderr, "kmeans: out of range: k 1..%d, rep 1..%d, block 32..1024 step 32, reps 1..64\n", MAXK, MAXREP);
        return 2;
    }
    int dev;
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDevice(&dev), return 1);
    CUDA_CHECK(cudaGetDeviceProperties(&prop, dev), return 1);
    setup st;
    memset(&st, 0, sizeof st);
    st.n = (size_t)npts, st.block = (int)block, st.reps = (int)reps;
    st.grid = grid ? (int)grid : 4 * prop.multiProcessorCount;
    float2 *h_pts = (float2 *)malloc(st.n * sizeof(float2)), h_cent[MAXK], *d_pts, *d_cent;
    if (!h_pts) {
        fprintf(stderr, "kmeans: out of host memory\n");
        return 1;
    }
    CUDA_CHECK(cudaMalloc(&d_pts, st.n * sizeof(float2)), return 1);
    CUDA_CHECK(cudaMalloc(&d_cent, MAXK * sizeof(float2)), return 1);
    CUDA_CHECK(cudaMalloc(&st.d_sum, 2 * MAXK * sizeof(float)), return 1);
    CUDA_CHECK(cudaMalloc(&st.d_cnt, MAXK * sizeof(unsigned)), return 1);
    st.d_pts = d_pts, st.h_pts = h_pts, st.d_cent = d_cent, st.h_cent = h_cent;

    static const int ks[] = {4, 32, 256}, reps_list[] = {1, 2, 4, 8, 16, 32};
    int nk = sweep ? 3 : 1, rc = 0;
    for (int ki = 0; ki < nk && rc == 0; ++ki) {
        int kk = sweep ? ks[ki] : (int)k;
        make_data(h_pts, st.n, h_cent, kk, (unsigned long long)seed);
        CUDA_CHECK(cudaMemcpy(d_pts, h_pts, st.n * sizeof(float2), cudaMemcpyHostToDevice), return 1);
        CUDA_CHECK(cudaMemcpy(d_cent, h_cent, (size_t)kk * sizeof(float2), cudaMemcpyHostToDevice), return 1);
        if (!sweep) {
            rc = run_variant(&st, kk, (int)rep, pad);
            continue;
        }
        for (int ri = 0; ri < 6 && rc == 0; ++ri)
            for (int pd = 0; pd <= (reps_list[ri] > 1) && rc == 0; ++pd)
                rc = run_variant(&st, kk, reps_list[ri], pd);
    }
    CUDA_CHECK(cudaFree(d_pts), return 1);
    CUDA_CHECK(cudaFree(d_cent), return 1);
    CUDA_CHECK(cudaFree(st.d_sum), return 1);
    CUDA_CHECK(cudaFree(st.d_cnt), return 1);
    free(h_pts);
    return rc;
}
