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
 * (rotated), so the atomic unit serializes; on a uniform random image conflicts are rare; a
 * natural-looking image (generated: sky, sun, textured ground, opaque alpha) lies in between, with
 * a skewed colour distribution and neighbouring pixels alike.
 * The program checks every result against a CPU histogram and prints one timing line per kernel.
 * --sweep runs the case study of docs/case-study.md in one process: image sizes 32 px to 16 Mpx,
 * block sizes 64 to 1024, every selected kernel and image kind.
 * It is a profiling target: it links none of atomutil's libraries.
 */
#include <cuda_runtime.h>

#include "../common/rgba_image.h"

#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BINS     256
#define CHANNELS 4

#define CUDA_CHECK_PROGRAM "histogram"
#include "../../calibrate/kernels/cuda_check.h"

/* ROTATE selects the channel order, USE_RESULT whether the atomic's old value is consumed.
 * When it is, the XOR of all old values is written only under a condition that never holds for
 * a histogram count (old values are < 2^31), which keeps the compiler from dropping it. */
template <bool ROTATE, bool USE_RESULT>
__device__ __forceinline__ void hist_body(const uchar4 *__restrict__ img, size_t npix, unsigned *__restrict__ out,
                                          unsigned *__restrict__ sink)
{
    __shared__ unsigned h[BINS * CHANNELS];
    for (int i = threadIdx.x; i < BINS * CHANNELS; i += blockDim.x)
        h[i] = 0;
    __syncthreads();

    unsigned acc = 0;
    const unsigned rot = ROTATE ? (threadIdx.x & 3u) : 0u;
    for (size_t p = (size_t)blockIdx.x * blockDim.x + threadIdx.x; p < npix; p += (size_t)gridDim.x * blockDim.x) {
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
#define HIST_KERNEL(name, rotate, use_result)                                                     \
    __global__ void name(const uchar4 *__restrict__ img, size_t npix, unsigned *__restrict__ out, \
                         unsigned *__restrict__ sink)                                             \
    {                                                                                             \
        hist_body<rotate, use_result>(img, npix, out, sink);                                      \
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
          "  -i, --image KIND    solid|uniform|natural|both|all (default both = solid and uniform)\n"
          "  -p, --pixels N      pixels in the image (default 4194304)\n"
          "  -g, --grid N        blocks; 0 = 4 per SM (default 0)\n"
          "  -b, --block N       threads per block, multiple of 32 (default 256)\n"
          "  -r, --reps N        timed launches per kernel after one warm-up (default 5)\n"
          "  -s, --seed N        random seed for the uniform and natural images (default 1)\n"
          "  -S, --sweep         sizes 32, 128, ..., 8M and 16M pixels x blocks 64..1024 (a -p or -b\n"
          "                      given restricts it to that value); grid min(4 per SM, pixels/block)\n"
          "  -h, --help          this text\n"
          "Prints one line per kernel and image: name, image, pixels, grid, block, median ms.\n"
          "Examples:\n"
          "  histogram\n"
          "  histogram -k asread_add -i solid -r 1\n"
          "  histogram --sweep -i all\n",
          f);
}

static int run_one(int k, const char *image, const uchar4 *d_img, const unsigned *ref, size_t npix, int grid, int block,
                   int reps, unsigned *d_out, unsigned *d_sink)
{
    unsigned got[BINS * CHANNELS];
    cudaEvent_t t0, t1;
    CUDA_CHECK(cudaEventCreate(&t0), return 1);
    CUDA_CHECK(cudaEventCreate(&t1), return 1);
    float ms[64];
    for (int r = 0; r <= reps; ++r) { /* r == 0 is the warm-up */
        /* poison the output: a kernel that writes nothing cannot pass the check */
        CUDA_CHECK(cudaMemset(d_out, 0, sizeof got), return 1);
        CUDA_CHECK(cudaEventRecord(t0), return 1);
        kernels[k].fn<<<grid, block>>>(d_img, npix, d_out, d_sink);
        CUDA_CHECK(cudaGetLastError(), return 1);
        CUDA_CHECK(cudaEventRecord(t1), return 1);
        CUDA_CHECK(cudaEventSynchronize(t1), return 1);
        if (r > 0)
            CUDA_CHECK(cudaEventElapsedTime(&ms[r - 1], t0, t1), return 1);
        CUDA_CHECK(cudaMemcpy(got, d_out, sizeof got, cudaMemcpyDeviceToHost), return 1);
        if (memcmp(got, ref, sizeof got) != 0) {
            fprintf(stderr, "histogram: %s on %s image: result differs from the CPU histogram\n", kernels[k].name,
                    image);
            return 1;
        }
    }
    CUDA_CHECK(cudaEventDestroy(t0), return 1);
    CUDA_CHECK(cudaEventDestroy(t1), return 1);
    qsort(ms, (size_t)reps, sizeof ms[0], cmp_float);
    printf("%-13s %-8s pixels=%zu grid=%d block=%d median_ms=%.4f\n", kernels[k].name, image, npix, grid, block,
           reps ? ms[reps / 2] : 0.0f);
    return 0;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {{"kernel", required_argument, 0, 'k'}, {"image", required_argument, 0, 'i'},
                                         {"pixels", required_argument, 0, 'p'}, {"grid", required_argument, 0, 'g'},
                                         {"block", required_argument, 0, 'b'},  {"reps", required_argument, 0, 'r'},
                                         {"seed", required_argument, 0, 's'},   {"sweep", no_argument, 0, 'S'},
                                         {"help", no_argument, 0, 'h'},         {0, 0, 0, 0}};
    const char *kname = "all", *iname = "both";
    unsigned long long npix = 4194304, grid = 0, block = 256, reps = 5, seed = 1;
    int c, sweep = 0, have_pix = 0, have_block = 0;
    while ((c = getopt_long(argc, argv, "k:i:p:g:b:r:s:Sh", opts, NULL)) != -1) {
        unsigned long long *dst = NULL;
        switch (c) {
        case 'k': kname = optarg; continue;
        case 'i': iname = optarg; continue;
        case 'S': sweep = 1; continue;
        case 'p': dst = &npix, have_pix = 1; break;
        case 'g': dst = &grid; break;
        case 'b': dst = &block, have_block = 1; break;
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
    int do_image[NIMAGES] = {0};
    do_image[IMG_SOLID] = !strcmp(iname, "solid") || !strcmp(iname, "both") || !strcmp(iname, "all");
    do_image[IMG_UNIFORM] = !strcmp(iname, "uniform") || !strcmp(iname, "both") || !strcmp(iname, "all");
    do_image[IMG_NATURAL] = !strcmp(iname, "natural") || !strcmp(iname, "all");
    if (!do_image[IMG_SOLID] && !do_image[IMG_UNIFORM] && !do_image[IMG_NATURAL]) {
        fprintf(stderr, "histogram: unknown image kind '%s'\n", iname);
        return 2;
    }
    if (npix == 0 || npix > (1ull << 31) || block == 0 || block % 32 || block > 1024 || reps > 64 ||
        grid > (1u << 30)) {
        fprintf(stderr, "histogram: out of range: pixels 1..2^31, block 32..1024 step 32, reps <= 64\n");
        return 2;
    }
    /* the sizes and block sizes to run: one of each, or the sweep's lists */
    unsigned long long sizes[16], blocks[8];
    int nsizes = 0, nblocks = 0;
    if (sweep && !have_pix) {
        for (unsigned long long n = 32; n <= (8ull << 20); n *= 4)
            sizes[nsizes++] = n;
        sizes[nsizes++] = 16ull << 20;
    } else {
        sizes[nsizes++] = npix;
    }
    if (sweep && !have_block) {
        for (unsigned long long b = 64; b <= 1024; b *= 2)
            blocks[nblocks++] = b;
    } else {
        blocks[nblocks++] = block;
    }
    unsigned long long maxpix = 0;
    for (int i = 0; i < nsizes; ++i)
        maxpix = sizes[i] > maxpix ? sizes[i] : maxpix;
    int dev;
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDevice(&dev), return 1);
    CUDA_CHECK(cudaGetDeviceProperties(&prop, dev), return 1);
    const unsigned long long per_sm_grid = 4ull * (unsigned)prop.multiProcessorCount;

    uchar4 *h_img = (uchar4 *)malloc(maxpix * sizeof(uchar4)), *d_img;
    unsigned *d_out, *d_sink, ref[BINS * CHANNELS];
    if (!h_img) {
        fprintf(stderr, "histogram: out of host memory\n");
        return 1;
    }
    CUDA_CHECK(cudaMalloc(&d_img, maxpix * sizeof(uchar4)), return 1);
    CUDA_CHECK(cudaMalloc(&d_out, BINS * CHANNELS * sizeof(unsigned)), return 1);
    CUDA_CHECK(cudaMalloc(&d_sink, sizeof(unsigned)), return 1);
    int rc = 0;
    for (int img = 0; img < NIMAGES && rc == 0; ++img) {
        if (!do_image[img])
            continue;
        for (int si = 0; si < nsizes && rc == 0; ++si) {
            const size_t n = (size_t)sizes[si];
            make_image(h_img, n, img, seed);
            cpu_histogram(h_img, n, ref);
            CUDA_CHECK(cudaMemcpy(d_img, h_img, n * sizeof(uchar4), cudaMemcpyHostToDevice), return 1);
            for (int bi = 0; bi < nblocks && rc == 0; ++bi) {
                unsigned long long g = grid;
                if (g == 0) {
                    g = per_sm_grid;
                    /* sweep: no block without pixels (small images) */
                    if (sweep && g > (n + blocks[bi] - 1) / blocks[bi])
                        g = (n + blocks[bi] - 1) / blocks[bi];
                }
                for (size_t k = 0; k < NKERNELS && rc == 0; ++k)
                    if (kfirst < 0 || (int)k == kfirst)
                        rc = run_one((int)k, image_names[img], d_img, ref, n, (int)g, (int)blocks[bi], (int)reps, d_out,
                                     d_sink);
            }
        }
    }
    CUDA_CHECK(cudaFree(d_img), return 1);
    CUDA_CHECK(cudaFree(d_out), return 1);
    CUDA_CHECK(cudaFree(d_sink), return 1);
    free(h_img);
    return rc;
}
