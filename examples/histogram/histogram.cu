/*
 * histogram: the RGBA shared-memory histogram kernels of the atomutil paper study.
 *
 * Each block keeps a private 4-channel x 256-bin histogram in shared memory, interleaved as
 * bin[value * 4 + channel], fills it with shared atomics over a grid-stride loop of pixels and
 * merges it into the global histogram.  Four variants:
 *   asread_popc   channels 0,1,2,3 in the order read, atomicAdd result unused -> ATOMS.POPC.INC
 *   asread_add    same order, atomicAdd result used                          -> ATOMS.ADD
 *   rotated_popc  thread t visits channel (t + k) % 4 at step k, result unused
 *   rotated_add   rotated order, result used
 * On a solid image every lane of a warp hits one bin per step (as read) or four bins in four banks
 * (rotated), so the atomic unit serializes; on a uniform random image conflicts are rare.
 * The program checks every result against a CPU histogram and prints one timing line per kernel.
 * It is a profiling target: it links none of atomutil's libraries.
 */
#include <cuda_runtime.h>

#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BINS 256
#define CHANNELS 4

#define CUDA_CHECK(call)                                                                   \
    do {                                                                                   \
        cudaError_t err_ = (call);                                                         \
        if (err_ != cudaSuccess) {                                                         \
            fprintf(stderr, "histogram: %s:%d: %s: %s\n", __FILE__, __LINE__, #call,       \
                    cudaGetErrorString(err_));                                             \
            return 1;                                                                      \
        }                                                                                  \
    } while (0)

/* ROTATE selects the channel order, USE_RESULT whether the atomic's old value is consumed.
 * When it is, the XOR of all old values is written only under a condition that never holds for
 * a histogram count (old values are < 2^31), which keeps the compiler from dropping it. */
template <bool ROTATE, bool USE_RESULT>
__device__ __forceinline__ void hist_body(const uchar4 *__restrict__ img, size_t npix,
                                          unsigned *__restrict__ out, unsigned *__restrict__ sink)
{
    __shared__ unsigned h[BINS * CHANNELS];
    for (int i = threadIdx.x; i < BINS * CHANNELS; i += blockDim.x)
        h[i] = 0;
    __syncthreads();

    unsigned acc = 0;
    const unsigned rot = ROTATE ? (threadIdx.x & 3u) : 0u;
    for (size_t p = (size_t)blockIdx.x * blockDim.x + threadIdx.x; p < npix;
         p += (size_t)gridDim.x * blockDim.x) {
        const uchar4 px = img[p];
        const unsigned v[CHANNELS] = {px.x, px.y, px.z, px.w};
#pragma unroll
        for (unsigned k = 0; k < CHANNELS; ++k) {
            const unsigned ch = (k + rot) & 3u;
            /* select without a local-memory array indexed at run time */
            const unsigned val = ch == 0 ? v[0] : ch == 1 ? v[1] : ch == 2 ? v[2] : v[3];
            if (USE_RESULT)
                acc ^= atomicAdd(&h[val * CHANNELS + ch], 1u);
            else
                atomicAdd(&h[val * CHANNELS + ch], 1u);
        }
    }
    if (USE_RESULT && acc == 0xFFFFFFFFu)
        *sink = acc;
    __syncthreads();

    for (int i = threadIdx.x; i < BINS * CHANNELS; i += blockDim.x)
        if (h[i])
            atomicAdd(&out[(i % CHANNELS) * BINS + i / CHANNELS], h[i]);
}

/* One named kernel per variant, so that profiler reports read well. */
#define HIST_KERNEL(name, rotate, use_result)                                                    \
    __global__ void name(const uchar4 *__restrict__ img, size_t npix, unsigned *__restrict__ out, \
                         unsigned *__restrict__ sink)                                            \
    {                                                                                            \
        hist_body<rotate, use_result>(img, npix, out, sink);                                     \
    }
HIST_KERNEL(hist_asread_popc, false, false)
HIST_KERNEL(hist_asread_add, false, true)
HIST_KERNEL(hist_rotated_popc, true, false)
HIST_KERNEL(hist_rotated_add, true, true)

typedef void (*kernel_fn)(const uchar4 *, size_t, unsigned *, unsigned *);

static const struct {
    const char *name;
    kernel_fn fn;
} kernels[] = {
    {"asread_popc", hist_asread_popc},
    {"asread_add", hist_asread_add},
    {"rotated_popc", hist_rotated_popc},
    {"rotated_add", hist_rotated_add},
};
#define NKERNELS (sizeof kernels / sizeof kernels[0])

static void usage(FILE *f)
{
    fputs("usage: histogram [options]\n"
          "  -k, --kernel NAME   asread_popc|asread_add|rotated_popc|rotated_add|all (default all)\n"
          "  -i, --image KIND    solid|uniform|both (default both)\n"
          "  -p, --pixels N      pixels in the image (default 4194304)\n"
          "  -g, --grid N        blocks; 0 = 4 per SM (default 0)\n"
          "  -b, --block N       threads per block, multiple of 32 (default 256)\n"
          "  -r, --reps N        timed launches per kernel after one warm-up (default 5)\n"
          "  -s, --seed N        random seed for the uniform image (default 1)\n"
          "  -h, --help          this text\n"
          "Prints one line per kernel and image: name, image, pixels, grid, block, median ms.\n"
          "Examples:\n"
          "  histogram\n"
          "  histogram -k asread_add -i solid -r 1\n",
          f);
}

static int parse_u64(const char *s, unsigned long long *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-')
        return -1;
    *out = v;
    return 0;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Fills the image: solid = one colour everywhere, uniform = independent random bytes. */
static void make_image(uchar4 *img, size_t npix, int solid, unsigned long long seed)
{
    unsigned long long s = seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t i = 0; i < npix; ++i) {
        if (solid) {
            img[i] = make_uchar4(200, 100, 50, 255);
        } else {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17; /* xorshift64 */
            img[i] = make_uchar4((unsigned char)s, (unsigned char)(s >> 8), (unsigned char)(s >> 16),
                                 (unsigned char)(s >> 24));
        }
    }
}

static int run_one(int k, const char *image, const uchar4 *d_img, const uchar4 *h_img, size_t npix,
                   int grid, int block, int reps, unsigned *d_out, unsigned *d_sink)
{
    unsigned ref[BINS * CHANNELS] = {0}, got[BINS * CHANNELS];
    for (size_t i = 0; i < npix; ++i) {
        ref[0 * BINS + h_img[i].x]++;
        ref[1 * BINS + h_img[i].y]++;
        ref[2 * BINS + h_img[i].z]++;
        ref[3 * BINS + h_img[i].w]++;
    }
    cudaEvent_t t0, t1;
    CUDA_CHECK(cudaEventCreate(&t0));
    CUDA_CHECK(cudaEventCreate(&t1));
    float ms[64];
    for (int r = 0; r <= reps; ++r) { /* r == 0 is the warm-up */
        /* poison the output: a kernel that writes nothing cannot pass the check */
        CUDA_CHECK(cudaMemset(d_out, 0, sizeof got));
        CUDA_CHECK(cudaEventRecord(t0));
        kernels[k].fn<<<grid, block>>>(d_img, npix, d_out, d_sink);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaEventRecord(t1));
        CUDA_CHECK(cudaEventSynchronize(t1));
        if (r > 0)
            CUDA_CHECK(cudaEventElapsedTime(&ms[r - 1], t0, t1));
        CUDA_CHECK(cudaMemcpy(got, d_out, sizeof got, cudaMemcpyDeviceToHost));
        if (memcmp(got, ref, sizeof got) != 0) {
            fprintf(stderr, "histogram: %s on %s image: result differs from the CPU histogram\n",
                    kernels[k].name, image);
            return 1;
        }
    }
    CUDA_CHECK(cudaEventDestroy(t0));
    CUDA_CHECK(cudaEventDestroy(t1));
    qsort(ms, (size_t)reps, sizeof ms[0], cmp_float);
    printf("%-13s %-8s pixels=%zu grid=%d block=%d median_ms=%.4f\n", kernels[k].name, image, npix,
           grid, block, reps ? ms[reps / 2] : 0.0f);
    return 0;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"kernel", required_argument, 0, 'k'}, {"image", required_argument, 0, 'i'},
        {"pixels", required_argument, 0, 'p'}, {"grid", required_argument, 0, 'g'},
        {"block", required_argument, 0, 'b'},  {"reps", required_argument, 0, 'r'},
        {"seed", required_argument, 0, 's'},   {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    const char *kname = "all", *iname = "both";
    unsigned long long npix = 4194304, grid = 0, block = 256, reps = 5, seed = 1;
    int c;
    while ((c = getopt_long(argc, argv, "k:i:p:g:b:r:s:h", opts, NULL)) != -1) {
        unsigned long long *dst = NULL;
        switch (c) {
        case 'k': kname = optarg; continue;
        case 'i': iname = optarg; continue;
        case 'p': dst = &npix; break;
        case 'g': dst = &grid; break;
        case 'b': dst = &block; break;
        case 'r': dst = &reps; break;
        case 's': dst = &seed; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
        if (parse_u64(optarg, dst) != 0) {
            fprintf(stderr, "histogram: invalid number '%s'\n", optarg);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "histogram: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        return 2;
    }
    int kfirst = -1;
    for (size_t k = 0; k < NKERNELS; ++k)
        if (strcmp(kname, kernels[k].name) == 0)
            kfirst = (int)k;
    if (kfirst < 0 && strcmp(kname, "all") != 0) {
        fprintf(stderr, "histogram: unknown kernel '%s'\n", kname);
        return 2;
    }
    int do_solid = !strcmp(iname, "solid") || !strcmp(iname, "both");
    int do_uniform = !strcmp(iname, "uniform") || !strcmp(iname, "both");
    if (!do_solid && !do_uniform) {
        fprintf(stderr, "histogram: unknown image kind '%s'\n", iname);
        return 2;
    }
    if (npix == 0 || npix > (1ull << 31) || block == 0 || block % 32 || block > 1024 || reps > 64 ||
        grid > (1u << 30)) {
        fprintf(stderr, "histogram: out of range: pixels 1..2^31, block 32..1024 step 32, reps <= 64\n");
        return 2;
    }
    int dev;
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
    if (grid == 0)
        grid = 4ull * (unsigned)prop.multiProcessorCount;

    uchar4 *h_img = (uchar4 *)malloc(npix * sizeof(uchar4)), *d_img;
    unsigned *d_out, *d_sink;
    if (!h_img) {
        fprintf(stderr, "histogram: out of host memory\n");
        return 1;
    }
    CUDA_CHECK(cudaMalloc(&d_img, npix * sizeof(uchar4)));
    CUDA_CHECK(cudaMalloc(&d_out, BINS * CHANNELS * sizeof(unsigned)));
    CUDA_CHECK(cudaMalloc(&d_sink, sizeof(unsigned)));
    int rc = 0;
    for (int solid = 1; solid >= 0 && rc == 0; --solid) {
        if ((solid && !do_solid) || (!solid && !do_uniform))
            continue;
        make_image(h_img, npix, solid, seed);
        CUDA_CHECK(cudaMemcpy(d_img, h_img, npix * sizeof(uchar4), cudaMemcpyHostToDevice));
        for (size_t k = 0; k < NKERNELS && rc == 0; ++k)
            if (kfirst < 0 || (int)k == kfirst)
                rc = run_one((int)k, solid ? "solid" : "uniform", d_img, h_img, npix, (int)grid,
                             (int)block, (int)reps, d_out, d_sink);
    }
    CUDA_CHECK(cudaFree(d_img));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_sink));
    free(h_img);
    return rc;
}
